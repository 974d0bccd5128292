within WearCosim.Gears;
model Carrier "Massless planet carrier: rotates with the hub it is attached to; planets pinned by stiff spring-damper hinges"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  parameter Integer nPlanets = 3 "Number of planets";
  parameter SI.Radius rc = 0.025 "Radius of the planet pins";
  parameter Real e[3] = {0, 0, 1} "Carrier axis (unit), global frame";
  parameter Real e1[3] = {1, 0, 0} "Direction of pin 1 at the start (unit, normal to e)";
  parameter SI.Position rC0[3] = {0, 0, 0} "Nominal centre of the carrier hub";
  parameter SI.Length axialOffset = 0 "Position of the pin plane along e, relative to rC0";
  parameter SI.TranslationalSpringConstant kPin = 1e10 "Stiffness of the (nearly rigid) hinges";
  parameter SI.TranslationalDampingConstant cPin = 0 "Damping of the hinges";
  WearCosim.Gears.Hub hub "Carrier hub (connect to the body that turns the carrier)";
  WearCosim.Gears.Hub pin[nPlanets] "Planet hubs (planet wheels with fixed tilt, free translation)";
  SI.Angle psiC "Carrier rotation e.phi";
  SI.Position rPin[nPlanets, 3] "Current pin positions";
  SI.Velocity vPin[nPlanets, 3] "Current pin velocities";
  SI.Force fPin[nPlanets, 3] "Hinge forces on the planets";
  SI.Torque tPin[nPlanets, 3] "Moments of the hinge forces about the carrier centre";
protected
  final parameter Real e2[3] = cross(e, e1) "e x e1";
  final parameter SI.Position p0[nPlanets, 3] = {rc*(cos(2*pi*(i - 1)/nPlanets)*e1 + sin(2*pi*(i - 1)/nPlanets)*e2) + axialOffset*e for i in 1:nPlanets} "Pin offsets from the carrier centre at the start";
equation
  psiC = e*hub.phi;
  for i in 1:nPlanets loop
    // pin position: rotation of p0 about e by psiC (Rodrigues, exact for any psiC), plus the carrier hub displacement
    rPin[i, :] = rC0 + hub.u + cos(psiC)*p0[i, :] + sin(psiC)*cross(e, p0[i, :]) + (1 - cos(psiC))*(e*p0[i, :])*e;
    vPin[i, :] = hub.v + cross(hub.w, rPin[i, :] - rC0 - hub.u);
    fPin[i, :] = -kPin*(rC0 + p0[i, :] + pin[i].u - rPin[i, :]) - cPin*(pin[i].v - vPin[i, :]);
    pin[i].f = -fPin[i, :];
    pin[i].t = zeros(3);
    tPin[i, :] = cross(rPin[i, :] - rC0 - hub.u, fPin[i, :]);
  end for;
  hub.f = {sum(fPin[:, j]) for j in 1:3};
  hub.t = {sum(tPin[:, j]) for j in 1:3};
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-70, 0}, {70, 0}}, color = {0, 0, 0}, thickness = 2),
      Ellipse(extent = {{-15, 15}, {15, -15}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-85, 15}, {-55, -15}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{55, 15}, {85, -15}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Carrier of a planetary stage, modelled as in the paper as massless
(it turns with the body whose hub it is attached to, e.g. the driven bevel wheel). Planet i has its
nominal centre at r<sub>C0</sub> + p<sub>0,i</sub> and is held at the pin r<sub>pin,i</sub> = r<sub>C0</sub> + u<sub>C</sub> + R(e, &psi;<sub>C</sub>)p<sub>0,i</sub>
(Rodrigues rotation, exact for any carrier angle) by a hinge of stiffness k<sub>pin</sub> (the paper's absolutely rigid
hinge, here stiff) and damping c<sub>pin</sub>; the hinge transmits no moment (the planet spins freely). The hinge
forces react on the carrier hub as a force and a moment about its centre.</p></html>"));
end Carrier;
