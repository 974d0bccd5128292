within WearCosim.Gears;
model HubMotion "Massless hub driver: moves a hub as prescribed by its inputs and returns the load the connected elements apply to it"
  import SI = WearCosim.Units.SI;
  input SI.Position u[3] "Displacement of the hub centre from its nominal position, global frame";
  input SI.Velocity v[3] "Velocity of the hub centre, global frame";
  input SI.Angle phi[3] "Rotation of the hub (E0*{tilt1, tilt2, psi}, see Hub), global frame";
  input SI.AngularVelocity w[3] "Angular velocity of the hub, global frame";
  output SI.Force f[3] "Force the connected elements apply to the body of this hub, global frame";
  output SI.Torque t[3] "Torque about the hub centre the connected elements apply to the body of this hub, global frame";
  WearCosim.Gears.WheelHub hub "Driven hub (owned: positions and velocities set here)";
equation
  hub.u = u;
  hub.v = v;
  hub.phi = phi;
  hub.w = w;
  f = hub.f;
  t = hub.t;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-40, 40}, {40, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Line(points = {{-90, -70}, {90, -70}}, color = {0, 0, 0}, arrow = {Arrow.None, Arrow.Filled}),
      Line(points = {{-70, -90}, {-70, 90}}, color = {0, 0, 0}, arrow = {Arrow.None, Arrow.Filled}),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Stands in for a <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>
whose motion is computed elsewhere (another FMU): it sets the potentials of <code>hub</code> from its inputs,
exactly as a wheel sets them from its states, and, like a wheel, it receives the sum of the flows of the connected
elements as the load on the body (<code>f = hub.f</code>, <code>t = hub.t</code>). Used by
<a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">Components.Gears.GearMeshElement</a> to turn the
<a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a> into a force element with causal ports; the counterpart
on the body side is <a href=\"modelica://WearCosim.Gears.HubLoad\">HubLoad</a>.</p></html>"));
end HubMotion;
