within WearCosim.Examples.Basic;
model VanDerPol "Van der Pol oscillator (stiff for large mu)"
  extends WearCosim.Icons.Example;
  parameter Real mu = 5 "Nonlinear damping parameter";
  Real x(start = 2, fixed = true) "Position";
  Real y(start = 0, fixed = true) "Velocity";
equation
  der(x) = y;
  der(y) = mu*(1 - x^2)*y - x;
  annotation (experiment(StopTime = 20, Interval = 0.01, Tolerance = 1e-8),
    Documentation(info = "<html><p>x'' - mu(1 - x<sup>2</sup>)x' + x = 0.</p></html>"));
end VanDerPol;
