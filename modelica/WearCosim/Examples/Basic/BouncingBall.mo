within WearCosim.Examples.Basic;
model BouncingBall "Ball bouncing on the ground (when + reinit)"
  extends WearCosim.Icons.Example;
  parameter WearCosim.Units.SI.Acceleration g = 9.81 "Gravity";
  parameter Real e(min = 0, max = 1) = 0.8 "Coefficient of restitution";
  parameter WearCosim.Units.SI.Position h0 = 1 "Initial height";
  WearCosim.Units.SI.Position h(start = 1, fixed = true) "Height of the ball";
  WearCosim.Units.SI.Velocity v(start = 0, fixed = true) "Velocity of the ball";
  output Integer nImpacts(start = 0, fixed = true) "Number of impacts so far";
equation
  der(h) = v;
  der(v) = -g;
  when h < 0 then
    reinit(v, -e*pre(v));
    nImpacts = pre(nImpacts) + 1;
  end when;
  annotation (experiment(StopTime = 3, Interval = 0.01, Tolerance = 1e-8),
    Documentation(info = "<html><p>Free fall with elastic-loss impacts.  Impact times are
analytic: t1 = sqrt(2 h0/g), then each flight lasts e times the previous one
(2 v/g).</p></html>"));
end BouncingBall;
