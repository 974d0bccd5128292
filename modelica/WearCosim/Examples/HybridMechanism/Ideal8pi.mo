within WearCosim.Examples.HybridMechanism;
model Ideal8pi "3-CPaR&R1R2 with an ideal D3 joint, w = 8*pi rad/s (reference for the clearance models)"
  extends WearCosim.Mechanisms.HybridMechanism3CPaRIdeal(omega = 8*3.141592653589793);
  annotation (experiment(StopTime = 0.5, Interval = 0.00025, Tolerance = 1e-9),
    Documentation(info = "<html><p>Ideal twin: closed-form inverse kinematics of chain 3 and the D3 reaction; reference for the near-zero-clearance check.</p></html>"));
end Ideal8pi;
