within WearCosim.Examples.HybridMechanism;
model DrySpeed8pi "3-CPaR&R1R2, dry D3 joint, c = 0.25 mm, w = 8*pi rad/s"
  extends WearCosim.Mechanisms.HybridMechanism3CPaR(omega = 8*3.141592653589793, c = 0.25e-3, lubricated = false);
  annotation (experiment(StopTime = 0.5, Interval = 0.00025, Tolerance = 1e-9),
    Documentation(info = "<html><p>Speed study of seed 002 section 3.1 (c = 0.25 mm, &omega; = 4&pi;, 8&pi;, 16&pi;, 32&pi;): two drive periods. Expected trend: higher speed, fewer separate impacts, longer continuous contact, deeper penetration.</p></html>"));
end DrySpeed8pi;
