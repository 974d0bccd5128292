within WearCosim.Components.Mechanisms;
model HybridMechanismBody "3-CPaR&R1R2 hybrid mechanism (seed 002) without its D3 clearance joint: joint force and torques in, D3 joint kinematics out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseHybridMechanism3CPaRClearance;
  // ---------------------------------------------------------------- loads of the D3 joint (inputs: outputs of the joint)
  input SI.Force F[2] "Joint force on the journal (body 3, link C3D3) at D3, XY; the platform receives -F";
  input SI.Torque tauJ "Joint torque on the journal body (body 3) about the journal centre";
  input SI.Torque tauB "Joint torque on the bearing body (platform) about D3 (taken by the prescribed drives: not used)";
  // ---------------------------------------------------------------- kinematics of the D3 joint (outputs: inputs of the joint)
  output SI.Position rB[2] "Bearing centre D3 on the platform, XY";
  output SI.Velocity vB[2] "Velocity of the bearing centre D3";
  output SI.Angle phiB "Rotation angle of the bearing body (the platform only translates: 0)";
  output SI.AngularVelocity wB "Angular velocity of the bearing body (0)";
  output SI.Position rJ[2] "Journal centre (on C3D3), XY";
  output SI.Velocity vJ[2] "Velocity of the journal centre";
  output SI.AngularVelocity wJ "Angular velocity of the journal body (body 3: alpha')";
equation
  FJournal = F;
  tauJournal = tauJ;
  rB = rD3;
  vB = vD3;
  phiB = 0;
  wB = 0;
  rJ = rJournal;
  vJ = vJournal;
  wJ = qd[1];
  annotation (Documentation(info = "<html>
<p>The seed's 3-CPaR&amp;R<sub>1</sub>R<sub>2</sub> hybrid mechanism (docs/physics/mechanisms.md) without its revolute D3 between link C3D3
(journal) and the moving platform (bearing), as a component with causal ports: the D3 joint's force and torques in,
the kinematics of journal and bearing out. Connected to
<a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceDry\">Components.Joints.RevoluteClearanceDry</a>
or <a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceLubricated\">RevoluteClearanceLubricated</a>
port to port (same names), it integrates the equations of the monolithic
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">Mechanisms.HybridMechanism3CPaR</a>: both extend
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaRClearance\">BaseHybridMechanism3CPaRClearance</a>
(prescribed drives, platform translation, the two free angles &alpha;, &beta; of chain 3, initial state with the
journal centred).</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>F[2]</td><td>input</td><td>N</td><td>joint force on the journal (body 3 at D3), XY; the platform receives -F</td></tr>
<tr><td>tauJ</td><td>input</td><td>N.m</td><td>joint torque on body 3 about the journal centre</td></tr>
<tr><td>tauB</td><td>input</td><td>N.m</td><td>joint torque on the platform (taken by the prescribed drives, not used; kept so that every joint output has a partner)</td></tr>
<tr><td>rB[2]</td><td>output</td><td>m</td><td>bearing centre D3 = (q<sub>1</sub> + x<sub>D3</sub>, q<sub>2</sub> + y<sub>D3</sub>)</td></tr>
<tr><td>vB[2]</td><td>output</td><td>m/s</td><td>velocity of D3</td></tr>
<tr><td>phiB</td><td>output</td><td>rad</td><td>bearing rotation (0: the platform only translates)</td></tr>
<tr><td>wB</td><td>output</td><td>rad/s</td><td>bearing angular velocity (0)</td></tr>
<tr><td>rJ[2]</td><td>output</td><td>m</td><td>journal centre A3 + (l<sub>31</sub> + l<sub>33</sub>)u(&alpha;) + l<sub>32</sub>u(&beta;)</td></tr>
<tr><td>vJ[2]</td><td>output</td><td>m/s</td><td>journal velocity</td></tr>
<tr><td>wJ</td><td>output</td><td>rad/s</td><td>angular velocity of body 3, &alpha;'</td></tr>
<tr><td>ex, ey</td><td>output</td><td>m</td><td>journal centre relative to the bearing centre (orbit)</td></tr>
<tr><td>q1 ... q5</td><td>output</td><td>m, rad</td><td>prescribed drives (for reference)</td></tr>
</table>
<h4>Parameters</h4>
<p><code>omega</code> (rad/s, default 8&pi;): angular frequency of the driving laws; <code>data</code>
(<a href=\"modelica://WearCosim.Mechanisms.HybridMechanismData\">HybridMechanismData</a>): drives, geometry, masses and
inertias, assembly branch <code>data.elbow</code>, in-plane gravity <code>data.gPlane</code>. The record's D3-joint
fields (data.R_journal, data.L, data.E_*, data.nu_*, data.cr, data.mu_d, data.v0, data.v1, data.mu_oil, data.epsMax,
data.wedgeScale) are <b>not used</b> by the body: in a composition they are parameters of the joint component
(E_bearing = 110e9, nu_bearing = 0.34, mu_d = 0.1, wedgeScale = 0 reproduce the record's defaults; the clearance
c is the joint's).</p>
<h4>Causality</h4>
<p>No direct feedthrough: every output is a function of the states (&alpha;, &beta;, &alpha;', &beta;', drive phase), the
parameters and time; the joint loads enter only the derivatives. A system body + joint (force element with
feedthrough) therefore has no algebraic loop.</p>
</html>"));
end HybridMechanismBody;
