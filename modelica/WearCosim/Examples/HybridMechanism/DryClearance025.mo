within WearCosim.Examples.HybridMechanism;
model DryClearance025 "3-CPaR&R1R2, dry D3 joint, c = 0.25 mm, w = 30*pi rad/s"
  extends WearCosim.Mechanisms.HybridMechanism3CPaR(omega = 30*3.141592653589793, c = 0.25e-3, lubricated = false);
  annotation (experiment(StopTime = 0.133333, Interval = 6.67e-05, Tolerance = 1e-9),
    Documentation(info = "<html><p>Clearance study of seed 002 section 3.1 (&omega; = 30&pi;, c = 0.15, 0.25, 0.35, 0.45 mm): two drive periods.</p></html>"));
end DryClearance025;
