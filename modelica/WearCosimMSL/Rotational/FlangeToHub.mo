within WearCosimMSL.Rotational;
model FlangeToHub "Adapter: an MSL body on a Rotational flange moves a WearCosim hub (spin about a fixed axis, bearing held); the hub's load acts on the MSL body"
  import SI = Modelica.Units.SI;
  parameter Real e[3] = {0, 0, 1} "Axis of the shaft (unit vector, global frame): the nominal axis e3 of the hub, or -e3 to count the flange the other way" annotation (Evaluate = true);
  Modelica.Mechanics.Rotational.Interfaces.Flange_a flange "Rotational flange of the MSL body that owns the motion"
    annotation (Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
  WearCosim.Gears.WheelHub hub "Hub driven as a body's hub: spin = flange angle about e, centre and tilt held by the bearing"
    annotation (Placement(transformation(extent = {{90, -10}, {110, 10}})));
  output SI.Torque tau "Torque the WearCosim elements apply to the MSL body about e (= e*hub.t = -flange.tau)";
  output SI.Force fBearing[3] "Bearing reaction: force of the WearCosim elements on the hub centre, taken by the bearing (= hub.f)";
  output SI.Torque tBearing[3] "Bearing reaction: moment of the WearCosim elements normal to e, taken by the bearing";
equation
  hub.u = zeros(3);
  hub.v = zeros(3);
  hub.phi = e*flange.phi;
  hub.w = e*der(flange.phi);
  flange.tau = -e*hub.t;
  tau = e*hub.t;
  fBearing = hub.f;
  tBearing = hub.t - tau*e;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Rectangle(extent = {{-90, 10}, {10, -10}}, lineColor = {64, 64, 64}, fillColor = {192, 192, 192}, fillPattern = FillPattern.HorizontalCylinder),
      Ellipse(extent = {{10, 40}, {90, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{35, 15}, {65, -15}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Line(points = {{-40, -40}, {40, -40}}, color = {0, 0, 0}, thickness = 0.5),
      Line(points = {{-40, -40}, {-55, -60}}, color = {0, 0, 0}),
      Line(points = {{0, -40}, {-15, -60}}, color = {0, 0, 0}),
      Line(points = {{40, -40}, {25, -60}}, color = {0, 0, 0}),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255}),
      Text(extent = {{-100, -65}, {100, -95}}, textString = "e = %e", textColor = {0, 0, 0})}),
    Documentation(info = "<html>
<p>The other causality of <a href=\"modelica://WearCosimMSL.Rotational.HubToFlange\">HubToFlange</a>: the body is on the MSL side (an
MSL <code>Inertia</code>, or any train of MSL components that sets the flange's angle), and WearCosim <i>elements</i> act on it through
the hub (a <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>, a <a href=\"modelica://WearCosim.Gears.TorsionalShaft\">TorsionalShaft</a>,
a <a href=\"modelica://WearCosim.Gears.TorqueSource\">TorqueSource</a>). On the WearCosim side the adapter is the body that owns the hub
(<a href=\"modelica://WearCosim.Gears.WheelHub\">WheelHub</a>, as a <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a> or
<a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>): it sets the hub's position, rotation and velocities; every connection set of
hubs holds exactly one owner, so do not connect it to the hub of a Wheel or a GearPair (use HubToFlange there). With two of these
adapters and two MSL inertias a WearCosim <code>GearMesh</code> becomes a gear mesh with backlash of a Rotational drive train
(<a href=\"modelica://WearCosimMSL.Examples.InertiasThroughMesh\">Examples.InertiasThroughMesh</a>).</p>
<h4>Equations</h4>
<pre>
hub.u = 0,  hub.v = 0                 (centre held by a rigid bearing on the axis)
hub.phi = e&middot;flange.phi              (spin = flange angle about e, no tilt)
hub.w   = e&middot;der(flange.phi)
flange.tau = -e&middot;hub.t                (torque about e passed to the MSL body)
</pre>
<h4>Sign conventions</h4>
<ul>
<li>WearCosim: on the body side, <code>hub.t</code> (and <code>hub.f</code>) flow <i>into</i> the body: they are the load the connected elements
apply to it (a Wheel's equation is I<sub>p</sub>&omega;' = e3&middot;hub.t). MSL: <code>flange.tau</code> flows into the adapter; the torque on the
MSL body on the flange is <code>-flange.tau</code>.</li>
<li>Massless adapter, torques about e: <code>flange.tau + e&middot;hub.t = 0</code>, so the MSL body receives <code>tau = e&middot;hub.t</code>
(output): a positive <code>tau</code> accelerates it in the positive sense of e.</li>
<li>Lossless: <code>flange.tau&middot;der(flange.phi) + hub.t&middot;hub.w = 0</code>. <code>e</code> must be the hub's nominal axis as the
connected elements assume it (e.g. <code>e3A</code>, <code>e3B</code> of a GearMesh); <code>-e3</code> counts the flange the other way.</li>
</ul>
<h4>The other degrees of freedom</h4>
<p>The hub is held by a rigid bearing: no translation, no tilt. The force <code>hub.f</code> and the moment normal to e that the elements
apply are taken by the bearing to the fixed frame; they are reported as <code>fBearing</code>, <code>tBearing</code> and do not reach
the MSL side. For an elastic or free bearing use a WearCosim <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a> and
HubToFlange instead.</p>
</html>"));
end FlangeToHub;
