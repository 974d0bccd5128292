within WearCosim.Examples.HybridMechanism;
model Dry7pi "3-CPaR&R1R2, dry D3 joint, c = 0.20 mm, w = 7*pi rad/s"
  extends WearCosim.Mechanisms.HybridMechanism3CPaR(omega = 7*3.141592653589793, c = 0.20e-3, lubricated = false);
  annotation (experiment(StopTime = 0.571429, Interval = 0.000286, Tolerance = 1e-9),
    Documentation(info = "<html><p>Dry reference of the lubrication study of seed 002 section 3.2 (c = 0.20 mm, &omega; = 7&pi;).</p></html>"));
end Dry7pi;
