within WearCosim.Components.Gears;
model PairDrive "Two wheels in bearings, driving torque TA on wheel a, braking torque TB on wheel b (Kubo's test, the gear-wear rig); mesh loads in, wheel kinematics out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Components.Gears.PartialWheelPair;
  parameter SI.Torque TA = 1 "Driving torque on wheel a about e3A";
  parameter SI.Torque TB = TA*zB/zA "Torque on wheel b about e3B (> 0 brakes b, which turns negatively; default: balances TA at the rigid ratio)";
  WearCosim.Gears.TorqueSource drive(T = TA, e = e3A) "Driving torque on a";
  WearCosim.Gears.TorqueSource load(T = TB, e = e3B) "Braking torque on b";
  output SI.AngularVelocity wa "Spin speed of wheel a about e3A";
  output SI.AngularVelocity wb "Spin speed of wheel b about e3B (negative for an external pair turning forward)";
equation
  connect(drive.hub, wheelA.hub);
  connect(load.hub, wheelB.hub);
  wa = wheelA.w;
  wb = wheelB.w;
  annotation (Documentation(info = "<html>
<p>The body side of <a href=\"modelica://WearCosim.Examples.Gears.KuboDynamicFactor\">Examples.Gears.KuboDynamicFactor</a>
and <a href=\"modelica://WearCosim.Examples.Gears.GearWear\">Examples.Gears.GearWear</a>: the two wheels of a
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> (defaults: steel discs of the pitch radius and face width
<code>width</code>, rigid bearings), a constant driving torque TA on a and a braking torque TB on b, both wheels
starting at the rigid speeds (wA0, wB0) with b pre-rotated by psiB0. Connected to
<a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">GearMeshElement</a> with the same module, teeth,
face width (element: <code>L</code>) and density it reproduces the monolithic examples:</p>
<ul>
<li>Kubo: <a href=\"modelica://WearCosim.Components.Gears.KuboDrive\">KuboDrive</a> (this model with Kubo's parameters:
module = 4e-3, zA = zB = 25, width = 0.01, wA0 = nRpm&middot;2&pi;/60, psiB0 = F0/(k<sub>mean</sub>&rho;cos&alpha;), TA = T,
TB = T or 0) with <a href=\"modelica://WearCosim.Components.Gears.KuboMesh\">KuboMesh</a>.</li>
<li>GearWear: module = 3e-3, zA = 31, zB = 23, width = 0.02, wA0 = w0, psiB0 = (F0/k<sub>m</sub> + b/2)/r<sub>b,B</sub>,
TA = T, TB = T&middot;zB/zA (default); element with k_m = 4e8, chi = 0.1, b = 20e-6, the wear interface.</li>
</ul>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>fA[3], fB[3]</td><td>input</td><td>N</td><td>mesh force on wheel a / b, global frame</td></tr>
<tr><td>tA[3], tB[3]</td><td>input</td><td>N&middot;m</td><td>mesh torque on wheel a / b about its centre</td></tr>
<tr><td>uA[3], uB[3]</td><td>output</td><td>m</td><td>displacement of the wheel centre (0 in rigid bearings)</td></tr>
<tr><td>vA[3], vB[3]</td><td>output</td><td>m/s</td><td>velocity of the wheel centre</td></tr>
<tr><td>phiA[3], phiB[3]</td><td>output</td><td>rad</td><td>rotation E0&middot;{tilt1, tilt2, &psi;} of the wheel (tilts held: {0, 0, &psi;})</td></tr>
<tr><td>wA[3], wB[3]</td><td>output</td><td>rad/s</td><td>angular velocity of the wheel</td></tr>
<tr><td>wa, wb</td><td>output</td><td>rad/s</td><td>spin speeds of a and b about their own axes</td></tr>
</table>
<p>All outputs are states (no direct feedthrough).</p></html>"));
end PairDrive;
