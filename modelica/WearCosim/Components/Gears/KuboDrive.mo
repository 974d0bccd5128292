within WearCosim.Components.Gears;
model KuboDrive "Wheels of Kubo's spur pair (seed 003 Table 2) at a steady speed nRpm: driving torque on a, braking torque on b; mesh loads in, wheel kinematics out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Components.Gears.PairDrive(module = 4e-3, zA = 25, zB = 25, width = 0.01, wA0 = w0,
    psiB0 = F0/(kMean*rhoA*cos(alpha)), TA = T, TB = if brake then T else 0);
  parameter Real nRpm = 6000 "Speed of wheel a [rpm] (steady: both wheels start at the rigid speeds)";
  parameter Boolean brake = true "true: wheel b braked by T (steady speed); false: b free (spin-up from nRpm by T)";
  parameter SI.Torque T = 1 "Driving torque on a, 1000 N.mm (and braking torque on b)";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle (initial static deflection)";
  parameter SI.TranslationalSpringConstant kSingle = 1.3e8 "Single tooth-pair stiffness of the mesh (initial static deflection)";
  parameter SI.TranslationalSpringConstant kDouble = 2.3e8 "Double tooth-pair stiffness of the mesh (initial static deflection)";
  final parameter Real epsAlpha = (2*sqrt((rhoA + module)^2 - (rhoA*cos(alpha))^2) - 2*rhoA*sin(alpha))/(pi*module*cos(alpha)) "Contact ratio of the standard pair (addendum = module)";
  final parameter SI.TranslationalSpringConstant kMean = kSingle + (kDouble - kSingle)*(epsAlpha - 1) "Mean mesh stiffness";
  final parameter SI.AngularVelocity w0 = nRpm*2*pi/60 "Speed of a";
  final parameter SI.Force F0 = T/(rhoA*cos(alpha)) "Static mesh force with the brake";
  annotation (experiment(StopTime = 0.03, Interval = 1e-6, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>The body side of <a href=\"modelica://WearCosim.Examples.Gears.KuboDynamicFactor\">Examples.Gears.KuboDynamicFactor</a>:
<a href=\"modelica://WearCosim.Components.Gears.PairDrive\">PairDrive</a> with steel discs z = 25/25, m = 4 mm, face width
10 mm in rigid bearings, a starting at <code>nRpm</code> and b at the rigid speed, pre-rotated by the static deflection
F<sub>0</sub>/(k<sub>mean</sub>&rho;cos&alpha;) (this needs the mesh's stiffness and pressure angle: keep
<code>alpha, kSingle, kDouble</code> equal to those of the mesh element); a driven by T, b braked by T
(<code>brake</code>) or free. Connected to <a href=\"modelica://WearCosim.Components.Gears.KuboMesh\">KuboMesh</a> it
reproduces KuboDynamicFactor (nRpm is a parameter of both FMUs' systems: set it here).</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>fA[3], fB[3]</td><td>input</td><td>N</td><td>mesh force on wheel a / b, global frame</td></tr>
<tr><td>tA[3], tB[3]</td><td>input</td><td>N&middot;m</td><td>mesh torque on wheel a / b about its centre</td></tr>
<tr><td>uA[3], uB[3]</td><td>output</td><td>m</td><td>displacement of the wheel centre (0: rigid bearings)</td></tr>
<tr><td>vA[3], vB[3]</td><td>output</td><td>m/s</td><td>velocity of the wheel centre</td></tr>
<tr><td>phiA[3], phiB[3]</td><td>output</td><td>rad</td><td>rotation {0, 0, &psi;} of the wheel</td></tr>
<tr><td>wA[3], wB[3]</td><td>output</td><td>rad/s</td><td>angular velocity of the wheel</td></tr>
<tr><td>wa, wb</td><td>output</td><td>rad/s</td><td>spin speeds of a and b about their own axes</td></tr>
</table>
<p>All outputs are states (no direct feedthrough).</p></html>"));
end KuboDrive;
