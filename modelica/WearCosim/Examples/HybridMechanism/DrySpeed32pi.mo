within WearCosim.Examples.HybridMechanism;
model DrySpeed32pi "3-CPaR&R1R2, dry D3 joint, c = 0.25 mm, w = 32*pi rad/s"
  extends WearCosim.Mechanisms.HybridMechanism3CPaR(omega = 32*3.141592653589793, c = 0.25e-3, lubricated = false);
  annotation (experiment(StopTime = 0.125, Interval = 6.25e-05, Tolerance = 1e-9),
    Documentation(info = "<html><p>Speed study of seed 002 section 3.1 (c = 0.25 mm, &omega; = 4&pi;, 8&pi;, 16&pi;, 32&pi;): two drive periods. Expected trend: higher speed, fewer separate impacts, longer continuous contact, deeper penetration.</p></html>"));
end DrySpeed32pi;
