within WearCosim.Gears;
model HubLoad "Prescribed force and torque (inputs) applied to the body owning a hub"
  import SI = WearCosim.Units.SI;
  input SI.Force f[3] "Force on the body owning the hub, global frame";
  input SI.Torque t[3] "Torque about the hub centre on the body owning the hub, global frame";
  WearCosim.Gears.Hub hub "Hub the load acts on";
equation
  hub.f = -f;
  hub.t = -t;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, 0}, {70, 0}}, color = {0, 0, 0}, thickness = 0.5, arrow = {Arrow.None, Arrow.Filled}),
      Ellipse(extent = {{60, 20}, {100, -20}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Applies the load <code>f</code>, <code>t</code> (inputs) to the body that
owns <code>hub</code> (flow convention of <a href=\"modelica://WearCosim.Gears.Hub\">Hub</a>: <code>hub.f = -f</code>,
as in <a href=\"modelica://WearCosim.Gears.TorqueSource\">TorqueSource</a>). The body-side counterpart of
<a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>: a load computed by another FMU (e.g. the mesh forces of
<a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">Components.Gears.GearMeshElement</a>) enters a wheel
through it.</p></html>"));
end HubLoad;
