within WearCosim.Gears;
model TorsionalShaft "Massless torsional shaft element (spring-damper about a common axis) between two hubs"
  import SI = WearCosim.Units.SI;
  parameter SI.RotationalSpringConstant k = 1e4 "Torsional stiffness";
  parameter SI.RotationalDampingConstant c = 0 "Torsional damping";
  parameter Real e[3] = {0, 0, 1} "Common axis of the two hubs (unit vector), global frame";
  WearCosim.Gears.Hub hubA "Hub of end a";
  WearCosim.Gears.Hub hubB "Hub of end b";
  output SI.Angle twist "Twist e.(phi_a - phi_b)";
  output SI.Torque tau "Shaft torque k*twist + c*d(twist)/dt (acts as -tau on a, +tau on b about e)";
equation
  twist = e*(hubA.phi - hubB.phi);
  tau = k*twist + c*(e*(hubA.w - hubB.w));
  hubA.t = tau*e;
  hubB.t = -tau*e;
  hubA.f = zeros(3);
  hubB.f = zeros(3);
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-100, 0}, {-50, 0}, {-40, 25}, {-20, -25}, {0, 25}, {20, -25}, {40, 25}, {50, 0}, {100, 0}}, color = {0, 0, 0}, thickness = 0.5),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Torque &tau; = k(&phi;<sub>a</sub>-&phi;<sub>b</sub>)&middot;e + c(&omega;<sub>a</sub>-&omega;<sub>b</sub>)&middot;e, applied
as -&tau;e to the body at a and +&tau;e to the body at b (eq. 27: k<sub>1</sub>, C<sub>1</sub>, k<sub>2</sub>, C<sub>2</sub>). Transmits no force and
no bending moment (the two ends are supported by their own bearings). Both hubs must have e as
their nominal axis (their spin is then e&middot;&phi;).</p></html>"));
end TorsionalShaft;
