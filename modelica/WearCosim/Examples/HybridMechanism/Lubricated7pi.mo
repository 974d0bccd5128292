within WearCosim.Examples.HybridMechanism;
model Lubricated7pi "3-CPaR&R1R2, lubricated D3 joint, c = 0.20 mm, w = 7*pi rad/s"
  extends WearCosim.Mechanisms.HybridMechanism3CPaR(omega = 7*3.141592653589793, c = 0.20e-3, lubricated = true);
  annotation (experiment(StopTime = 0.571429, Interval = 0.000286, Tolerance = 1e-9),
    Documentation(info = "<html><p>Lubricated case of seed 002 section 3.2 (c = 0.20 mm, &omega; = 7&pi;, oil 0.4 Pa&middot;s, Flores hybrid model). Expected: fewer/softer impacts and smaller penetration than <code>Dry7pi</code>.</p></html>"));
end Lubricated7pi;
