within WearCosim.Gears;
model ElasticSupport "Elastic bearing support of a hub to the ground: translational and tilting spring-dampers"
  import SI = WearCosim.Units.SI;
  parameter SI.TranslationalSpringConstant k = 1e9 "Translational stiffness (isotropic)";
  parameter SI.TranslationalDampingConstant c = 0 "Translational damping";
  parameter SI.RotationalSpringConstant kTilt = 0 "Tilting stiffness (about axes normal to e3)";
  parameter SI.RotationalDampingConstant cTilt = 0 "Tilting damping";
  parameter Real e3[3] = {0, 0, 1} "Nominal axis of the supported hub";
  WearCosim.Gears.Hub hub "Supported hub";
  SI.Angle tilt[3] "Tilt part of phi (component normal to e3)";
  SI.AngularVelocity wTilt[3] "Tilt rate (component of w normal to e3)";
equation
  tilt = hub.phi - (e3*hub.phi)*e3;
  wTilt = hub.w - (e3*hub.w)*e3;
  hub.f = k*hub.u + c*hub.v;
  hub.t = kTilt*tilt + cTilt*wTilt;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{0, 100}, {0, 60}, {-30, 50}, {30, 30}, {-30, 10}, {30, -10}, {-30, -30}, {0, -40}, {0, -60}}, color = {0, 0, 0}, thickness = 0.5),
      Line(points = {{-60, -60}, {60, -60}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{-60, -80}, {-40, -60}}, color = {0, 0, 0}),
      Line(points = {{-20, -80}, {0, -60}}, color = {0, 0, 0}),
      Line(points = {{20, -80}, {40, -60}}, color = {0, 0, 0}),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Bearing of a free <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>:
force -(k<b>u</b> + c<b>v</b>) and tilting moment -(k<sub>tilt</sub>&phi;<sub>&perp;</sub> + c<sub>tilt</sub>&omega;<sub>&perp;</sub>) on the wheel; the spin
is free. Rigid supports are the Booleans of the Wheel (constraints, no stiff springs).</p></html>"));
end ElasticSupport;
