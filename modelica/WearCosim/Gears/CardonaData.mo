within WearCosim.Gears;
record CardonaData "Cardona's test (seed 003 Table 3, case 3): data in inch-lbf-s, converted to SI here and only here"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  constant Real inch = 0.0254 "1 in in m";
  constant Real lbf = 4.4482216152605 "1 lbf in N";
  // ---------------------------------------------------------------- Table 3 as published (inch, lbf, s, rad)
  parameter Real module_in = 0.15748 "Module [in]";
  parameter Real alpha_deg = 20 "Pressure angle [deg]";
  parameter Integer z1 = 25 "Teeth of the driving wheel a";
  parameter Integer z2 = 25 "Teeth of the driven wheel b";
  parameter Real chi = 0.1 "Proportionality factor of the mesh damping";
  parameter Real km_in = 1.477e7 "Mesh stiffness [lbf/in]";
  parameter Real X_in = 0.0003937 "Amplitude of the transmission error dx_error [in]";
  parameter Real Ia_in = 0.0102 "Inertia of wheel a [lbf.in.s2]";
  parameter Real Ib_in = 0.0102 "Inertia of wheel b [lbf.in.s2]";
  parameter Real I1_in = 0.051 "Inertia I1 (driving side) [lbf.in.s2]";
  parameter Real I2_in = 0.0102 "Inertia I2 (load side) [lbf.in.s2]";
  parameter Real k1_in = 1.7e7 "Torsional stiffness of shaft 1 [lbf.in/rad]";
  parameter Real k2_in = 3.0e7 "Torsional stiffness of shaft 2 [lbf.in/rad]";
  parameter Real C1_in = 0.076026 "Torsional damping of shaft 1 [lbf.in.s/rad]";
  parameter Real C2_in = 0.12369 "Torsional damping of shaft 2 [lbf.in.s/rad]";
  parameter Real T_in = 945.6 "Transmitted torque [lbf.in]";
  parameter Real b_in = 0 "Backlash [in] (case 2: 0.001968)";
  // ---------------------------------------------------------------- SI
  final parameter SI.Length module = module_in*inch "Module";
  final parameter SI.Angle alpha = alpha_deg*pi/180 "Pressure angle";
  final parameter SI.Radius rho = module*z1/2 "Pitch radius (1.9685 in)";
  final parameter SI.TranslationalSpringConstant k_m = km_in*lbf/inch "Mesh stiffness";
  final parameter SI.Length X = X_in*inch "Error amplitude";
  final parameter SI.Length b = b_in*inch "Backlash";
  final parameter SI.Inertia Ia = Ia_in*lbf*inch "Inertia of wheel a";
  final parameter SI.Inertia Ib = Ib_in*lbf*inch "Inertia of wheel b";
  final parameter SI.Inertia I1 = I1_in*lbf*inch "Inertia I1";
  final parameter SI.Inertia I2 = I2_in*lbf*inch "Inertia I2";
  final parameter SI.RotationalSpringConstant k1 = k1_in*lbf*inch "Shaft 1 stiffness";
  final parameter SI.RotationalSpringConstant k2 = k2_in*lbf*inch "Shaft 2 stiffness";
  final parameter SI.RotationalDampingConstant C1 = C1_in*lbf*inch "Shaft 1 damping";
  final parameter SI.RotationalDampingConstant C2 = C2_in*lbf*inch "Shaft 2 damping";
  final parameter SI.Torque T = T_in*lbf*inch "Transmitted torque (step at t = 0 on I1)";
  annotation (Documentation(info = "<html>
<p>Cardona (1995) as quoted by seed 003, Table 3 (the table has no units; inch-lbf-s with inertias in
lbf&middot;in&middot;s<sup>2</sup> is the consistent reading: module 0.15748 in = 4 mm, backlash 0.001968 in = 50 &micro;m,
error amplitude 0.0003937 in = 10 &micro;m). Conversion factors: 1 in = 0.0254 m, 1 lbf = 4.4482216152605 N;
lengths &times; in, stiffness [lbf/in] &times; lbf/in, inertias, torques, torsional stiffness and damping
[lbf&middot;in&middot;s<sup>k</sup>] &times; lbf&middot;in.</p>
<p>Wheel masses are not in the table: the rigid supports hold the centres, so they do not enter the dynamics.</p>
</html>"));
end CardonaData;
