within WearCosim.Examples.Basic;
model ContactOscillator "Mass on a spring hitting a one-sided Hunt-Crossley/Flores wall (impact velocity captured at contact onset)"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  parameter SI.Mass m = 1 "Mass";
  parameter SI.TranslationalSpringConstant k = 100 "Suspension stiffness";
  parameter SI.HertzStiffness K = 1e8 "Contact stiffness of F = K*delta^1.5";
  parameter Real cr(min = 0.01, max = 1) = 0.8 "Coefficient of restitution";
  parameter SI.Velocity vEps = 1e-6 "Floor of the captured impact velocity (avoids division by zero)";
  SI.Position x(start = 0.1, fixed = true) "Position (wall at x = 0, contact for x < 0)";
  SI.Velocity v(start = 0, fixed = true) "Velocity";
  SI.Distance delta "Penetration into the wall (negative: gap)";
  SI.Force F "Contact force (>= 0)";
  discrete SI.Velocity vImpact(start = 1, fixed = true) "Penetration velocity at the last contact onset";
equation
  delta = -x;
  F = if delta > 0 then max(0, K*max(delta, 0)^1.5*(1 + 8*(1 - cr)/(5*cr)*(-v)/vImpact)) else 0;
  der(x) = v;
  m*der(v) = -k*x + F;
  when delta > 0 then
    vImpact = max(-pre(v), vEps);
  end when;
  annotation (experiment(StopTime = 1, Interval = 0.001, Tolerance = 1e-8),
    Documentation(info = "<html><p>One-sided contact with the Flores dissipative law
F = K&delta;<sup>1.5</sup>(1 + 8(1-c<sub>r</sub>)/(5c<sub>r</sub>) &delta;'/&delta;'<sup>(-)</sup>),
where the impact velocity &delta;'<sup>(-)</sup> is captured by a when-clause at contact
onset (guarded away from zero by vEps) and the force is clipped at 0 (no adhesion).</p></html>"));
end ContactOscillator;
