within WearCosim.Gears;
connector Hub "Hub of a wheel/shaft as seen by a massless element: displacement and rotation, velocities as inputs; force and torque as flows"
  import SI = WearCosim.Units.SI;
  SI.Position u[3] "Displacement of the hub centre from its nominal position, global frame";
  input SI.Velocity v[3] "Velocity of the hub centre, global frame (set by the body that owns the hub)";
  SI.Angle phi[3] "Rotation of the hub, global components of E0*{tilt1, tilt2, psi} (psi: unbounded spin about the nominal axis, tilts small)";
  input SI.AngularVelocity w[3] "Angular velocity of the hub, global frame (first order in the tilts; set by the body that owns the hub)";
  flow SI.Force f[3] "Force flowing into the component through the hub, global frame";
  flow SI.Torque t[3] "Torque (about the hub centre) flowing into the component through the hub, global frame";
  annotation (
    Icon(graphics = {
      Ellipse(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-40, 40}, {40, -40}}, lineColor = {0, 0, 0}, fillColor = {160, 160, 164}, fillPattern = FillPattern.Solid)}),
    Diagram(graphics = {
      Ellipse(extent = {{-40, 40}, {40, -40}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 90}, {150, 50}}, textString = "%name")}),
    Documentation(info = "<html>
<p>Connector of the gear library, element side (see also <a href=\"modelica://WearCosim.Gears.WheelHub\">WheelHub</a>,
the side of the body that owns the hub). A wheel (<a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>) owns the
potentials of its hub; massless elements (meshes, shafts, supports, sources, carrier) read them and
return forces through the flows (Modelica sign convention: a flow is positive into the component,
so the force the element exerts <i>on the wheel</i> is <code>-f</code>).</p>
<p>Rotation description (singularity-free scheme, see <a href=\"modelica://WearCosim.Gears\">Gears</a>):
every hub has a nominal frame E0 = [e1, e2, e3] (e3 = nominal axis). The rotation is
R = E0&middot;R<sub>x</sub>(tilt1)&middot;R<sub>y</sub>(tilt2)&middot;R<sub>z</sub>(&psi;)&middot;E0<sup>T</sup>; <code>phi</code> carries
E0&middot;{tilt1, tilt2, &psi;}. &psi; is the large accumulated rotation (an unbounded angle, never
wrapped); the tilts are small increments held by bearings. The only singular configuration of
this parametrisation is a tilt of 90&deg;, which a wheel in bearings cannot reach.</p>
<p>Balance (MLS 9.3.1): 6 potentials (<code>u</code>, <code>phi</code>) and 6 flows (<code>f</code>, <code>t</code>).
The velocities travel with the hub because the mesh damping and the friction need the velocities of
the contact points and the exporter does not differentiate connector variables; they are causal signals, not
potentials: <code>input</code> here, <code>output</code> in <a href=\"modelica://WearCosim.Gears.WheelHub\">WheelHub</a>
(the <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>, <a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>
and the exposed hubs of <a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>), as a RealInput meets a RealOutput.
Every connection set of hubs therefore holds exactly one WheelHub: the body that sets the positions and
velocities. An element of one's own (bearing, load, coupling) uses <code>Hub</code>; a body of one's own uses
<code>WheelHub</code>.</p>
</html>"));
end Hub;
