within WearCosimMSL.Translational;
model RevoluteClearanceXY "Revolute joint with clearance (WearCosim) between a journal and a bearing given as x, y Translational flanges and a Rotational flange each"
  import SI = Modelica.Units.SI;
  extends WearCosim.Interfaces.WearSurface;
  WearCosim.Joints.RevoluteClearance joint(final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L, wearDepth = wearDepth,
    rJ = {flange_xJ.s, flange_yJ.s}, vJ = {der(flange_xJ.s), der(flange_yJ.s)}, wJ = der(flange_phiJ.phi),
    rB = {flange_xB.s, flange_yB.s}, vB = {der(flange_xB.s), der(flange_yB.s)}, phiB = flange_phiB.phi, wB = der(flange_phiB.phi))
    "The clearance joint (set its materials and laws here: joint(mu_d = 0.1, cr = 0.9, ...))";
  Modelica.Mechanics.Translational.Interfaces.Flange_b flange_xJ "Journal centre, x (global frame)"
    annotation (Placement(transformation(extent = {{90, 50}, {110, 70}})));
  Modelica.Mechanics.Translational.Interfaces.Flange_b flange_yJ "Journal centre, y (global frame)"
    annotation (Placement(transformation(extent = {{90, -10}, {110, 10}})));
  Modelica.Mechanics.Rotational.Interfaces.Flange_b flange_phiJ "Journal rotation about z"
    annotation (Placement(transformation(extent = {{90, -70}, {110, -50}})));
  Modelica.Mechanics.Translational.Interfaces.Flange_a flange_xB "Bearing centre, x (global frame)"
    annotation (Placement(transformation(extent = {{-110, 50}, {-90, 70}})));
  Modelica.Mechanics.Translational.Interfaces.Flange_a flange_yB "Bearing centre, y (global frame)"
    annotation (Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
  Modelica.Mechanics.Rotational.Interfaces.Flange_a flange_phiB "Bearing rotation about z"
    annotation (Placement(transformation(extent = {{-110, -70}, {-90, -50}})));
equation
  flange_xJ.f = -joint.F[1];
  flange_yJ.f = -joint.F[2];
  flange_phiJ.tau = -joint.tauJ;
  flange_xB.f = joint.F[1];
  flange_yB.f = joint.F[2];
  flange_phiB.tau = -joint.tauB;
  Fn = joint.Fn;
  Ft = joint.Ft;
  delta = joint.delta;
  theta = joint.theta;
  vSlip = joint.vSlip;
  halfWidth = joint.halfWidth;
  inContact = joint.inContact;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-80, 80}, {80, -80}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-62, 62}, {62, -62}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-30, 20}, {60, -70}}, lineColor = {0, 0, 0}, fillColor = {128, 128, 128}, fillPattern = FillPattern.Solid),
      Text(extent = {{-95, 75}, {-55, 45}}, textString = "xB"),
      Text(extent = {{-95, 15}, {-55, -15}}, textString = "yB"),
      Text(extent = {{-95, -45}, {-55, -75}}, textString = "phiB"),
      Text(extent = {{55, 75}, {95, 45}}, textString = "xJ"),
      Text(extent = {{55, 15}, {95, -15}}, textString = "yJ"),
      Text(extent = {{55, -45}, {95, -75}}, textString = "phiJ"),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>WearCosim's planar revolute joint with clearance (<a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>:
Flores contact, Ambr&oacute;sio friction, optional Sommerfeld film, a worn bearing) between a journal and a bearing, each a planar rigid body made of
MSL one-dimensional components: the x and y of its centre are <code>Translational</code> flanges (a <code>Components.Mass</code> each, or
<code>Components.Fixed</code>), its rotation about z a <code>Rotational</code> flange (an <code>Inertia</code>, or <code>Fixed</code>). All six flanges
must be connected: a flange left open has zero force, which contradicts the joint's force.</p>
<h4>Equations</h4>
<pre>
joint.rJ = {flange_xJ.s, flange_yJ.s},  joint.vJ = der(joint.rJ),  joint.wJ = der(flange_phiJ.phi)
joint.rB = {flange_xB.s, flange_yB.s},  joint.vB = der(joint.rB),  joint.phiB = flange_phiB.phi,  joint.wB = der(flange_phiB.phi)
flange_xJ.f = -joint.F[1],  flange_yJ.f = -joint.F[2],  flange_phiJ.tau = -joint.tauJ
flange_xB.f = +joint.F[1],  flange_yB.f = +joint.F[2],  flange_phiB.tau = -joint.tauB
</pre>
<h4>Sign conventions</h4>
<p>The joint computes the force <code>F</code> on the journal (global frame) and the torques <code>tauJ</code> on the journal about its centre and
<code>tauB</code> on the bearing about its centre; the bearing receives -<code>F</code>. A flange's flow is the force (torque) flowing into the
adapter, and the body on the flange receives its negative: the journal's masses receive F[1], F[2], its inertia tauJ; the bearing's masses
-F[1], -F[2], its inertia tauB. The velocities the joint needs are the derivatives of the flange positions (the exporter differentiates them
through the bodies' states).</p>
<h4>Wear interface</h4>
<p>The adapter extends <a href=\"modelica://WearCosim.Interfaces.WearSurface\">Interfaces.WearSurface</a>: <code>wearDepth</code> enters the joint, and the
contact outputs (<code>Fn</code>, <code>Ft</code>, <code>delta</code>, <code>theta</code>, <code>vSlip</code>, <code>halfWidth</code>, <code>inContact</code>)
are the joint's; a model that binds them at its top level is driven by the wear master like the library's mechanisms. Materials, laws and
the lubrication switch are the joint's parameters: <code>RevoluteClearanceXY clearance(c = 1e-4, joint(mu_d = 0.1))</code>.</p>
</html>"));
end RevoluteClearanceXY;
