within WearCosim.Examples.Gears;
model KuboDynamicFactor "Kubo's spur pair (seed 003 Table 2): variable mesh stiffness, dynamic factor at a steady speed nRpm"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  parameter Real nRpm = 6000 "Speed of wheel a [rpm] (steady: both wheels start at the rigid speeds)";
  parameter Boolean brake = true "true: wheel b braked by T (steady speed); false: b free (spin-up from nRpm by T)";
  parameter SI.Torque T = 1 "Driving torque on a, 1000 N.mm (and braking torque on b)";
  parameter SI.Length module = 4e-3 "Module";
  parameter Integer z = 25 "Teeth of both wheels";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Length width = 0.01 "Face width (not in Table 2; chosen)";
  parameter SI.TranslationalSpringConstant kSingle = 1.3e8 "Single tooth-pair stiffness (14 N/(mm.um) x 10 mm, rounded)";
  parameter SI.TranslationalSpringConstant kDouble = 2.3e8 "Double tooth-pair stiffness";
  parameter Real chi = 0.3 "Mesh damping factor (Table 2)";
  parameter Real sharpness = 4 "Smoothing of the single/double stiffness transitions (see GearMesh)";
  final parameter SI.Radius rho = module*z/2 "Pitch radius";
  final parameter Real epsAlpha = (2*sqrt((rho + module)^2 - (rho*cos(alpha))^2) - 2*rho*sin(alpha))/(pi*module*cos(alpha)) "Contact ratio of the standard pair (addendum = module)";
  final parameter SI.TranslationalSpringConstant kMean = kSingle + (kDouble - kSingle)*(epsAlpha - 1) "Mean mesh stiffness";
  final parameter SI.AngularVelocity w0 = nRpm*2*pi/60 "Speed of a";
  final parameter SI.Force F0 = T/(rho*cos(alpha)) "Static mesh force with the brake";
  parameter Boolean variableStiffness = true "true: periodic mesh stiffness (law Stiffness); false: constant kSingle; a run-time switch of the FMU" annotation (Evaluate = false);
  replaceable model Stiffness = WearCosim.Gears.StiffnessLaws.SmoothedRectangle constrainedby WearCosim.Gears.StiffnessLaws.PartialStiffness
    "Mesh stiffness law of the pair (default: smoothed rectangle)" annotation (choicesAllMatching = true);
  WearCosim.Gears.GearPair pair(redeclare final model Stiffness = Stiffness, module = module, zA = z, zB = z, alpha = alpha, width = width, variableStiffness = variableStiffness,
    k_m = kSingle, k_double = kDouble, epsAlpha = epsAlpha, sharpness = sharpness, chi = chi, X = 0, wA0 = w0,
    psiB0 = F0/(kMean*rho*cos(alpha))) "Spur pair 25/25, rigid bearings, b pre-rotated by the static deflection";
  WearCosim.Gears.TorqueSource drive(T = T) "Driving torque on a";
  WearCosim.Gears.TorqueSource load(T = if brake then T else 0) "Braking torque on b (b turns negatively about z)";
  output SI.Force F "Normal mesh force";
  output SI.Force Fstatic "Static (quasi-steady) mesh force";
  output SI.AngularVelocity wa "Speed of a";
  output Real nA "Speed of a [rpm]";
  output SI.Frequency fMesh "Mesh frequency z*n/60";
  output SI.TranslationalSpringConstant k "Current mesh stiffness";
equation
  connect(drive.hub, pair.hubA);
  connect(load.hub, pair.hubB);
  F = pair.mesh.Fn;
  Fstatic = if brake then F0 else F0*pair.IB/(pair.IA + pair.IB);
  wa = pair.wheelA.w;
  nA = wa*60/(2*pi);
  fMesh = z*nA/60;
  k = pair.mesh.k;
  annotation (experiment(StopTime = 0.03, Interval = 1e-6, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>Seed 003, second test (Kubo et al. 1972, Table 2): steel spur pair z = 25/25, m = 4 mm, &alpha; = 20&deg;,
&chi; = 0.3, no error (X = 0), rigid bearings; the excitation is the mesh stiffness alternation.</p>
<p>Stiffness (not given in the paper, which uses a numerical stiffness function): single/double tooth-pair
alternation of <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a> (<code>variableStiffness</code>), contact ratio
&epsilon;<sub>&alpha;</sub> = 1.61 of the standard pair, k<sub>single</sub> = 1.3&middot;10<sup>8</sup> N/m and k<sub>double</sub> =
2.3&middot;10<sup>8</sup> N/m for a 10 mm face width (single-pair stiffness ~ 13 N/(mm&middot;&micro;m), ISO 6336 order of
magnitude; double pair less than twice the single one because of the shorter lever of the second pair).</p>
<p>Operating point: instead of the paper's spin-up to 20000 rpm by 1000 N&middot;mm, each speed is run
quasi-steadily: both wheels start at the rigid speeds (a: <code>nRpm</code>), a is driven by T and b braked by T,
so the mean speed stays constant and the static force is F<sub>0</sub> = T/(&rho; cos&alpha;). Dynamic factor =
max F / F<sub>0</sub> after the transient. <code>brake = false</code> gives the paper's spin-up (b free, static force
T I<sub>b</sub>/((I<sub>a</sub>+I<sub>b</sub>)&rho; cos&alpha;)). Sweep and plot: <code>python -m wearcosim.studies.gears kubo</code>.
The pair's torsional natural frequency &omega;<sub>n</sub><sup>2</sup> = k<sub>mean</sub>(I<sub>a</sub>r<sub>b</sub><sup>2</sup> +
I<sub>b</sub>r<sub>b</sub><sup>2</sup>)/(I<sub>a</sub>I<sub>b</sub>) (r<sub>b</sub> base radius) gives f<sub>n</sub> = 5.29 kHz: resonances at
12.7 krpm (f<sub>m</sub> = f<sub>n</sub>), 6.3 krpm (2f<sub>m</sub>), 4.2 krpm (3f<sub>m</sub>).</p></html>"));
end KuboDynamicFactor;
