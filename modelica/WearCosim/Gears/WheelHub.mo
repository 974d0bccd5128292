within WearCosim.Gears;
connector WheelHub "Hub of a wheel/shaft as owned by its body: displacement and rotation, velocities as outputs; force and torque as flows"
  import SI = WearCosim.Units.SI;
  SI.Position u[3] "Displacement of the hub centre from its nominal position, global frame";
  output SI.Velocity v[3] "Velocity of the hub centre, global frame (set by the body that owns the hub)";
  SI.Angle phi[3] "Rotation of the hub, global components of E0*{tilt1, tilt2, psi} (psi: unbounded spin about the nominal axis, tilts small)";
  output SI.AngularVelocity w[3] "Angular velocity of the hub, global frame (first order in the tilts; set by the body that owns the hub)";
  flow SI.Force f[3] "Force flowing into the component through the hub, global frame";
  flow SI.Torque t[3] "Torque (about the hub centre) flowing into the component through the hub, global frame";
  annotation (
    Icon(graphics = {
      Ellipse(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-40, 40}, {40, -40}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid)}),
    Diagram(graphics = {
      Ellipse(extent = {{-40, 40}, {40, -40}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 90}, {150, 50}}, textString = "%name")}),
    Documentation(info = "<html>
<p>Connector of the gear library, side of the body that owns the hub (a <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>,
<a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>, the exposed hubs of
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>): the same variables as
<a href=\"modelica://WearCosim.Gears.Hub\">Hub</a> with the velocities <code>v</code>, <code>w</code> as outputs
(the body sets them together with the positions). Balanced: 6 potentials, 6 flows. Connect it to the
<code>Hub</code>s of the elements that act on the body; see <a href=\"modelica://WearCosim.Gears.Hub\">Hub</a> for the
rotation description and the sign convention.</p>
</html>"));
end WheelHub;
