within WearCosimMSL.Rotational;
model HubToFlange "Adapter: the spin of a WearCosim body's hub drives a Rotational flange; the flange torque acts on the body about the axis"
  import SI = Modelica.Units.SI;
  parameter Real e[3] = {0, 0, 1} "Axis of the flange (unit vector, global frame): the nominal axis e3 of the hub's body, or -e3 to count the flange the other way" annotation (Evaluate = true);
  WearCosim.Gears.Hub hub "Hub of the WearCosim body (Wheel, GearPair.hubA/hubB): its owner sets the motion"
    annotation (Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
  Modelica.Mechanics.Rotational.Interfaces.Flange_b flange "Rotational flange: angle = spin of the hub about e"
    annotation (Placement(transformation(extent = {{90, -10}, {110, 10}})));
  output SI.Torque tau "Torque the MSL side applies to the WearCosim body about e (= flange.tau)";
equation
  flange.phi = e*hub.phi;
  hub.t = -flange.tau*e;
  hub.f = zeros(3);
  tau = flange.tau;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-90, 40}, {-10, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-65, 15}, {-35, -15}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Rectangle(extent = {{-10, 10}, {90, -10}}, lineColor = {64, 64, 64}, fillColor = {192, 192, 192}, fillPattern = FillPattern.HorizontalCylinder),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255}),
      Text(extent = {{-100, -60}, {100, -90}}, textString = "e = %e", textColor = {0, 0, 0})}),
    Documentation(info = "<html>
<p>Connects a hub of <a href=\"modelica://WearCosim\">WearCosim</a> whose body is a WearCosim body (a
<a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>, an <a href=\"modelica://WearCosim.Gears.Inertia\">Inertia</a>, the wheels of a
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> through <code>hubA</code>/<code>hubB</code>) to a
<code>Modelica.Mechanics.Rotational</code> flange. The adapter is a massless, rigid coupling about the axis <code>e</code>; on the
WearCosim side it is an element (<a href=\"modelica://WearCosim.Gears.Hub\">Hub</a>, like a shaft or a torque source), so the body
that owns the hub sets the motion, and any MSL component can be connected to the flange (an MSL <code>Inertia</code> rigidly on the flange
is a second body on the same shaft: the exporter's index reduction merges the two).</p>
<h4>Equations</h4>
<pre>
flange.phi = e&middot;hub.phi          (= &psi;, the hub's spin about e; hub.phi = E0&middot;{tilt1, tilt2, &psi;})
hub.t      = -flange.tau&middot;e      (torque about e only: no bending moment)
hub.f      = 0                    (no force)
</pre>
<h4>Sign conventions</h4>
<ul>
<li>MSL: <code>flange.tau</code> is the torque flowing <i>into</i> the component that owns the flange (here: the adapter), i.e. the torque the
connected MSL side exerts on the adapter about e. WearCosim: <code>hub.t</code> flows into the element (here: the adapter): it is the torque the
WearCosim body exerts on the adapter, and the adapter exerts <code>-hub.t</code> on the body.</li>
<li>Massless adapter, torques about e: <code>flange.tau + e&middot;hub.t = 0</code>. The MSL side's torque passes through: the WearCosim body
receives <code>tau = flange.tau</code> about e (output; a positive <code>tau</code> drives the body in the positive sense of e), and the MSL side
receives <code>-tau</code> from the body.</li>
<li>The flange angle is the spin &psi; about e by the right-hand rule. With <code>e</code> = the body's nominal axis e3,
<code>e&middot;hub.phi = &psi;</code> exactly, also with tilts (E0 is orthonormal). <code>e = -e3</code> gives <code>flange.phi = -&psi;</code> and
applies the torque about -e3, consistently: the adapter stays lossless,
<code>flange.tau&middot;der(flange.phi) + hub.t&middot;hub.w = 0</code>.</li>
</ul>
<h4>The other degrees of freedom</h4>
<p>The adapter transmits no force and no moment about axes normal to e: the translations and tilts of the hub are left to the
WearCosim side, i.e. to the body's own supports (<code>fixedTranslation</code>, <code>fixedTilt</code> of a Wheel or GearPair, rigid by
default in GearPair) or to an <a href=\"modelica://WearCosim.Gears.ElasticSupport\">ElasticSupport</a> on the same hub. The MSL
flange has no support connector: the reaction of the axis goes to the fixed frame through those supports.</p>
</html>"));
end HubToFlange;
