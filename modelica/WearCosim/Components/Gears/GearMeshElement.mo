within WearCosim.Components.Gears;
model GearMeshElement "Gear mesh force element: kinematics of wheels a and b in, mesh forces and torques on both wheels out; flank wear interface of wheel b's drive flank"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  // ---------------------------------------------------------------- teeth
  parameter SI.Length module = 4e-3 "Module (transverse)";
  parameter Integer zA = 25 "Teeth of wheel a (the larger wheel; the ring if internal)";
  parameter Integer zB = 25 "Teeth of wheel b (its drive flank is the worn surface of the wear interface)";
  parameter Boolean internal = false "Internal mesh, a is the ring (the wear-interface geometry assumes an external pair)";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Angle beta = 0 "Helix angle of wheel a (sign = hand of the helix)";
  parameter SI.Angle gammaCone = 0 "Pitch-cone angle of wheel a (0: cylindrical gears)";
  final parameter SI.Radius rhoA = module*zA/2 "Pitch radius of wheel a";
  final parameter SI.Radius rhoB = module*zB/2 "Pitch radius of wheel b";
  // ---------------------------------------------------------------- nominal placement (the same as the wheels of the body model)
  parameter SI.Position rA0[3] = {0, 0, 0} "Nominal centre of wheel a, global frame";
  parameter Real e1A[3] = {1, 0, 0} "Nominal e1 of wheel a (unit vector, towards the pitch point for the default rB0)";
  parameter Real e3A[3] = {0, 0, 1} "Nominal axis e3 of wheel a (unit vector)";
  parameter SI.Position rB0[3] = rA0 + (if internal then rhoA - rhoB else rhoA + rhoB)*e1A "Nominal centre of wheel b, global frame";
  parameter Real e1B[3] = if internal then e1A else -e1A "Nominal e1 of wheel b (unit vector)";
  parameter Real e3B[3] = e3A "Nominal axis e3 of wheel b (unit vector; bevel: both axes point to the cone apex)";
  // ---------------------------------------------------------------- mesh laws
  parameter SI.Length b = 0 "Backlash (total, along the tooth normal)";
  parameter SI.Length X = 0 "Amplitude of the manufacturing error X*(1 - cos(meshPhase)) (eq. 15)";
  parameter SI.TranslationalSpringConstant k_m = 1e8 "Mesh stiffness (constant), or single-pair stiffness if variableStiffness";
  parameter Boolean variableStiffness = false "true: smoothed single/double tooth-pair alternation of the stiffness; a run-time switch of the FMU" annotation (Evaluate = false);
  replaceable model Stiffness = WearCosim.Gears.StiffnessLaws.SmoothedRectangle constrainedby WearCosim.Gears.StiffnessLaws.PartialStiffness
    "Periodic mesh stiffness law used if variableStiffness (default: smoothed rectangle)" annotation (choicesAllMatching = true);
  parameter SI.TranslationalSpringConstant k_double = 2*k_m "Double-pair stiffness (variableStiffness)";
  parameter Real epsAlpha(min = 1, max = 2) = 1.6 "Transverse contact ratio (variableStiffness)";
  parameter Real sharpness = 30 "Steepness of the smoothed single/double transitions (variableStiffness)";
  parameter Real chi = 0 "Proportionality factor of the mesh damping (eq. 23)";
  parameter SI.Density density = 7800 "Density of the wheels (only for the default IA, IB: solid discs of the pitch radius and width L)";
  parameter SI.Inertia IA = density*pi*rhoA^2*L*rhoA^2/2 "Polar inertia of wheel a in the mesh damping (eq. 23); set it to the body model's";
  parameter SI.Inertia IB = density*pi*rhoB^2*L*rhoB^2/2 "Polar inertia of wheel b in the mesh damping (eq. 23); set it to the body model's";
  parameter Real muMesh = 0 "Tooth friction coefficient in the mesh dynamics (eq. 26)";
  parameter SI.Velocity vReg = 1e-3 "Regularisation of the friction direction at zero sliding (mesh friction and Ft)";
  parameter SI.Time tauBeta = 0.01 "Relaxation time of the mesh's unwrapped centre-line angle";
  // ---------------------------------------------------------------- wear interface (profile surface: wheel b's drive flank)
  parameter Integer nSectors(min = 1) = 20 "Number of wear sectors along the active profile of wheel b's drive flank";
  parameter SI.Length L = 0.02 "Face width (contact length of the flank)";
  parameter Real mu = 0.05 "Friction coefficient of the friction force Ft reported by the wear interface";
  parameter SI.ModulusOfElasticity E = 206e9 "Young's modulus of both wheels (Hertz half-width)";
  parameter SI.PoissonNumber nu = 0.3 "Poisson's ratio of both wheels (Hertz half-width)";
  final parameter SI.Radius rbA = rhoA*cos(alpha) "Base radius of wheel a";
  final parameter SI.Radius rbB = rhoB*cos(alpha) "Base radius of wheel b";
  final parameter SI.Length lineT = (rhoA + rhoB)*sin(alpha) "Length T1T2 of the line of action between the base-circle tangency points";
  final parameter SI.Length xiTip = sqrt((rhoB + module)^2 - rbB^2) "Roll length of b at its tip (start of contact)";
  final parameter SI.Length xiSAP = lineT - sqrt((rhoA + module)^2 - rbA^2) "Roll length of b at its start of active profile (end of contact)";
  final parameter SI.Length xiPitch = rhoB*sin(alpha) "Roll length of b at the pitch point";
  final parameter SI.Length gAlpha = xiTip - xiSAP "Length of the path of contact";
  final parameter SI.Length profileLength = (xiTip^2 - xiSAP^2)/(2*rbB) "Length of the active profile of wheel b's flank, start of active profile to tip";
  input SI.Length wearDepth[nSectors](each start = 0) "Wear depth of wheel b's drive flank per sector (sector i centred at (i - 1/2)*profileLength/nSectors from the start of active profile)";
  // ---------------------------------------------------------------- kinematics of the wheels (inputs)
  input SI.Position uA[3] "Displacement of the centre of wheel a from rA0, global frame";
  input SI.Velocity vA[3] "Velocity of the centre of wheel a, global frame";
  input SI.Angle phiA[3] "Rotation of wheel a, E0a*{tilt1, tilt2, psi} (psi: unbounded spin about e3A), global frame";
  input SI.AngularVelocity wA[3] "Angular velocity of wheel a, global frame";
  input SI.Position uB[3] "Displacement of the centre of wheel b from rB0, global frame";
  input SI.Velocity vB[3] "Velocity of the centre of wheel b, global frame";
  input SI.Angle phiB[3] "Rotation of wheel b, E0b*{tilt1, tilt2, psi} (psi: unbounded spin about e3B), global frame";
  input SI.AngularVelocity wB[3] "Angular velocity of wheel b, global frame";
  // ---------------------------------------------------------------- loads on the wheels (outputs)
  output SI.Force fA[3] "Mesh force on wheel a, global frame";
  output SI.Torque tA[3] "Mesh torque on wheel a about its centre, global frame";
  output SI.Force fB[3] "Mesh force on wheel b, global frame";
  output SI.Torque tB[3] "Mesh torque on wheel b about its centre, global frame";
  // ---------------------------------------------------------------- mesh state (outputs)
  output SI.Force F "Signed normal mesh force on wheel b along the tooth normal (> 0 drive flank, < 0 back flank)";
  output SI.Force Fpitch "Transmitted tangential force at the pitch circle";
  output SI.Length ds "Mesh compression / transmission error (> b/2: drive flank in contact, < -b/2: back flank)";
  output SI.Length te "Loaded transmission error of the wheel bodies along the tooth normal";
  output SI.Angle meshPhase "Mesh phase (2*pi per tooth)";
  output SI.TranslationalSpringConstant k "Current mesh stiffness";
  output Boolean contactBack "Back flank in contact";
  output SI.Length hC "Wear depth of wheel b's drive flank at the current contact point";
  output SI.Length xi "Roll length of b at the contact (mean tooth)";
  // ---------------------------------------------------------------- wear interface (outputs)
  output SI.Force Fn "Normal force on the drive flank (>= 0)";
  output SI.Force Ft "Friction force on the flank, -mu*Fn along the sliding direction";
  output SI.Length delta "Penetration of the drive flank beyond the backlash, ds - b/2 (> 0 in contact)";
  output SI.Length sContact "Contact position along wheel b's flank profile, from its start of active profile";
  output SI.Velocity vSlip "Sliding velocity at the contact, signed";
  output SI.Length halfWidth "Hertz line-contact half-width from the local involute radii of curvature";
  output Boolean inContact "Drive flank in contact";
  WearCosim.Gears.HubMotion motionA(u = uA, v = vA, phi = phiA, w = wA) "Wheel a as seen by the mesh";
  WearCosim.Gears.HubMotion motionB(u = uB, v = vB, phi = phiB, w = wB) "Wheel b as seen by the mesh";
  WearCosim.Gears.GearMesh mesh(redeclare final model Stiffness = Stiffness, rhoA = rhoA, rhoB = rhoB, zA = zA, internal = internal, alpha = alpha, beta = beta,
    gammaCone = gammaCone, rA0 = rA0, e1A = e1A, e3A = e3A, rB0 = rB0, e1B = e1B, e3B = e3B, b = b, X = X,
    k_m = k_m, variableStiffness = variableStiffness, k_double = k_double, epsAlpha = epsAlpha,
    sharpness = sharpness, chi = chi, IA = IA, IB = IB, mu = muMesh, vReg = vReg, tauBeta = tauBeta, hWear = hC) "Tooth mesh (Gears.GearMesh)";
protected
  Real frac "Fraction of the current mesh period";
  SI.Length Rcurv "Equivalent radius of curvature of the two involutes at the contact";
equation
  connect(motionA.hub, mesh.hubA);
  connect(motionB.hub, mesh.hubB);
  fA = motionA.f;
  tA = motionA.t;
  fB = motionB.f;
  tB = motionB.t;
  F = mesh.Fn;
  Fpitch = mesh.Ftan;
  ds = mesh.ds;
  te = mesh.te;
  meshPhase = mesh.meshPhase;
  k = mesh.k;
  contactBack = mesh.contactBack;
  // wear interface, mean tooth (as Examples.Gears.GearWear): the contact runs from b's tip to its SAP once per mesh period
  frac = meshPhase/(2*pi) - floor(meshPhase/(2*pi));
  xi = xiTip - gAlpha*frac;
  sContact = (xi^2 - xiSAP^2)/(2*rbB);
  hC = WearCosim.Gears.flankWearDepth(wearDepth, sContact, profileLength);
  vSlip = (e3A*wA - e3B*wB)*(xi - xiPitch);
  Rcurv = xi*(lineT - xi)/lineT;
  halfWidth = sqrt(4*Fn*Rcurv/(pi*L*(E/(2*(1 - nu^2)))));
  Fn = max(F, 0);
  Ft = -mu*Fn*vSlip/sqrt(vSlip^2 + vReg^2);
  delta = ds - b/2;
  inContact = mesh.contactDrive;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-90, 60}, {10, -40}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{10, 40}, {80, -30}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-30, -40}, {50, 40}}, color = {255, 0, 0}, thickness = 0.5),
      Ellipse(extent = {{5, 15}, {15, 5}}, lineColor = {255, 0, 0}, fillColor = {255, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>The tooth mesh of the spatial gear pair (<a href=\"modelica://WearCosim.Gears.GearMesh\">Gears.GearMesh</a>, eq. 5-26)
as a force element with causal ports: the motion of the two wheel hubs comes in, the mesh loads on both wheels go
out. The wheels themselves (and shafts, bearings, torques) are a separate body model, e.g.
<a href=\"modelica://WearCosim.Components.Gears.CardonaDrive\">CardonaDrive</a> or
<a href=\"modelica://WearCosim.Components.Gears.PairDrive\">PairDrive</a>, whose inputs <code>fA, tA, fB, tB</code>
and outputs <code>uA, vA, phiA, wA, uB, vB, phiB, wB</code> have the same names. Inside, two
<a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>s play the wheels: they set the hub potentials from the
inputs and return the mesh flows as loads, so the mesh equations are those of the monolithic
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>. The outputs depend directly on the inputs (direct
feedthrough); the only state is the mesh's unwrapped centre-line angle.</p>
<p>The nominal placement (<code>rA0, e1A, e3A, rB0, e1B, e3B</code>) and the inertias <code>IA, IB</code> of the mesh
damping must be those of the body model's wheels; the defaults match the defaults of the drives (external spur pair
along x, axes +z, solid steel discs of width <code>L</code>).</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>uA[3], uB[3]</td><td>input</td><td>m</td><td>displacement of the wheel centre from its nominal position rA0 / rB0, global frame</td></tr>
<tr><td>vA[3], vB[3]</td><td>input</td><td>m/s</td><td>velocity of the wheel centre</td></tr>
<tr><td>phiA[3], phiB[3]</td><td>input</td><td>rad</td><td>rotation E0&middot;{tilt1, tilt2, &psi;} of the wheel (&psi; unbounded spin about e3)</td></tr>
<tr><td>wA[3], wB[3]</td><td>input</td><td>rad/s</td><td>angular velocity of the wheel</td></tr>
<tr><td>wearDepth[nSectors]</td><td>input (start 0)</td><td>m</td><td>wear depth of wheel b's drive flank, sector i centred at (i-&frac12;)&middot;profileLength/nSectors from its start of active profile</td></tr>
<tr><td>fA[3], fB[3]</td><td>output</td><td>N</td><td>mesh force on wheel a / b, global frame</td></tr>
<tr><td>tA[3], tB[3]</td><td>output</td><td>N&middot;m</td><td>mesh torque on wheel a / b about its centre</td></tr>
<tr><td>F</td><td>output</td><td>N</td><td>signed normal mesh force (&gt; 0 drive flank, &lt; 0 back flank)</td></tr>
<tr><td>Fpitch</td><td>output</td><td>N</td><td>tangential force at the pitch circle</td></tr>
<tr><td>ds, te</td><td>output</td><td>m</td><td>mesh compression (transmission error, eq. 14), loaded transmission error of the bodies</td></tr>
<tr><td>meshPhase</td><td>output</td><td>rad</td><td>mesh phase, 2&pi; per tooth</td></tr>
<tr><td>k</td><td>output</td><td>N/m</td><td>current mesh stiffness</td></tr>
<tr><td>contactBack</td><td>output (Boolean)</td><td>-</td><td>back flank in contact</td></tr>
<tr><td>hC, xi</td><td>output</td><td>m</td><td>wear depth at the contact point; roll length of b at the contact</td></tr>
<tr><td>Fn, Ft</td><td>output</td><td>N</td><td>wear interface: normal force on the drive flank (&ge; 0), friction force -&mu;F<sub>n</sub> along the sliding</td></tr>
<tr><td>delta</td><td>output</td><td>m</td><td>wear interface: penetration ds - b/2</td></tr>
<tr><td>sContact</td><td>output</td><td>m</td><td>wear interface: contact position along b's profile</td></tr>
<tr><td>vSlip</td><td>output</td><td>m/s</td><td>wear interface: sliding velocity (&omega;<sub>a</sub> - &omega;<sub>b</sub>)(&xi; - &xi;<sub>pitch</sub>)</td></tr>
<tr><td>halfWidth</td><td>output</td><td>m</td><td>wear interface: Hertz half-width</td></tr>
<tr><td>inContact</td><td>output (Boolean)</td><td>-</td><td>wear interface: drive flank in contact</td></tr>
<tr><td>nSectors, L, profileLength</td><td>parameter (profileLength final)</td><td>-, m, m</td><td>wear interface geometry (profile surface)</td></tr>
</table>
<h4>Flank wear interface</h4>
<p>As in <a href=\"modelica://WearCosim.Examples.Gears.GearWear\">Examples.Gears.GearWear</a> (mean tooth, constant
load sharing): wheel b's drive flank is the worn profile surface; the contact runs once per mesh period from b's tip
to its start of active profile, &xi; = &xi;<sub>tip</sub> - g<sub>&alpha;</sub>&middot;frac(&phi;<sub>m</sub>/2&pi;),
s = (&xi;<sup>2</sup> - &xi;<sub>SAP</sub><sup>2</sup>)/(2r<sub>b,B</sub>); the wear depth h(s)
(<a href=\"modelica://WearCosim.Gears.flankWearDepth\">flankWearDepth</a>) reduces the mesh compression of the drive
flank. With <code>wearDepth</code> = 0 (default) the mesh is exactly the unworn one. The geometry assumes an external
spur (or helical, transverse section) pair with addendum = module. Ft is reported for the wear master only; the mesh
dynamics uses <code>muMesh</code> (eq. 26, default 0).</p>
</html>"));
end GearMeshElement;
