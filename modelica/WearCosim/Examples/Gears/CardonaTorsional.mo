within WearCosim.Examples.Gears;
model CardonaTorsional "Cardona's test as the 4-DOF torsional system of eq. 27 (independent reference for CardonaCase1/2)"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  parameter WearCosim.Gears.CardonaData data "Table 3 (inch-lbf-s, converted to SI inside); data.b_in = 0.001968 for case 2";
  parameter Boolean baseRadius = true "true: mesh lever arm = base radius rho*cos(alpha) (consistent with the spatial model's tooth normal); false: pitch radius rho as printed";
  final parameter SI.Radius r = if baseRadius then data.rho*cos(data.alpha) else data.rho "Lever arm of the mesh force along the line of action";
  final parameter SI.TranslationalDampingConstant bm = 2*data.chi*sqrt(data.k_m*data.Ia*data.Ib/(data.Ia*data.rho^2 + data.Ib*data.rho^2)) "Mesh damping (eq. 23 of seed 003)";
  SI.Angle th1(start = 0, fixed = true) "theta1: I1";
  SI.Angle th2(start = 0, fixed = true) "theta2: wheel a";
  SI.Angle th3(start = 0, fixed = true) "theta3: wheel b (counted in the sense of rotation of a)";
  SI.Angle th4(start = 0, fixed = true) "theta4: I2 (counted like theta3)";
  SI.AngularVelocity w1(start = 0, fixed = true) "d(theta1)/dt";
  SI.AngularVelocity wa(start = 0, fixed = true) "d(theta2)/dt";
  SI.AngularVelocity wb(start = 0, fixed = true) "d(theta3)/dt";
  SI.AngularVelocity w2(start = 0, fixed = true) "d(theta4)/dt";
  output SI.Length ds "Mesh compression r*(theta2 - theta3) + x_err";
  output SI.Length xErr "Error x_err = X*(1 - cos(z1*theta2))";
  output SI.Force F "Mesh force along the line of action: k_m*H(ds) + b_m*r*(wa - wb) in contact";
  output SI.Force Fpitch "Tangential mesh force at the pitch circle, F*r/rho";
  output Boolean inContact "|ds| > b/2";
  Boolean drive "ds > b/2";
  Boolean back "ds < -b/2";
equation
  der(th1) = w1;
  der(th2) = wa;
  der(th3) = wb;
  der(th4) = w2;
  xErr = data.X*(1 - cos(data.z1*th2));
  ds = r*th2 - r*th3 + xErr;
  drive = ds > data.b/2;
  back = ds < -data.b/2;
  inContact = drive or back;
  F = if drive then data.k_m*(ds - data.b/2) + bm*r*(wa - wb) else if back then data.k_m*(ds + data.b/2) + bm*r*(wa - wb) else 0;
  Fpitch = F*r/data.rho;
  data.I1*der(w1) + data.C1*(w1 - wa) + data.k1*(th1 - th2) = data.T;
  data.Ia*der(wa) - data.C1*(w1 - wa) - data.k1*(th1 - th2) + r*F = 0;
  data.Ib*der(wb) + data.C2*(wb - w2) + data.k2*(th3 - th4) - r*F = 0;
  data.I2*der(w2) - data.C2*(wb - w2) - data.k2*(th3 - th4) = 0;
  annotation (experiment(StopTime = 0.02, Interval = 2e-6, Tolerance = 1e-8),
    Documentation(info = "<html>
<p>Eq. 27 of seed 003 (garbled in the source; its intended form, docs/physics/gears.md), written independently of the gear library:</p>
<pre>
I1 th1'' + C1 (th1' - th2') + k1 (th1 - th2) = T
Ia th2'' - C1 (th1' - th2') - k1 (th1 - th2) + r [b_m r (th2' - th3') + k_m H(r th2 - r th3 + x_err)] = 0
Ib th3'' + C2 (th3' - th4') + k2 (th3 - th4) - r [b_m r (th2' - th3') + k_m H(r th2 - r th3 + x_err)] = 0
I2 th4'' - C2 (th3' - th4') - k2 (th3 - th4) = 0
H(z) = z - b/2 (z &gt; b/2),  0 (|z| &lt;= b/2),  z + b/2 (z &lt; -b/2);  damping only in contact
</pre>
<p>Signs checked: T drives I1; shaft 1 (k1, C1) couples I1 and wheel a; the mesh force resists a and drives b;
shaft 2 couples b to the free load I2. th3, th4 are counted in the sense of rotation of a (the wheels turn
oppositely), so rigid meshing is th2 = th3 for z1 = z2.</p>
<p>Radius: the spatial model (seed 003, eq. 12-14) measures the compression along the tooth normal, which for a
spur pair is the line of action, tangent to the base circle: d(ds) = rho cos(alpha) d(theta). The lever arm that
makes eq. 27 the same system is therefore the base radius r = rho cos(alpha) (<code>baseRadius = true</code>, default).
With the pitch radius as printed (<code>baseRadius = false</code>) the torsional mesh stiffness would be
k<sub>m</sub>&rho;<sup>2</sup> instead of k<sub>m</sub>&rho;<sup>2</sup>cos<sup>2</sup>&alpha; (6 % apart in frequency). Either way the
force at the pitch circle F<sub>pitch</sub> = F r/&rho; has the mean T(I<sub>b</sub>+I<sub>2</sub>)/(&rho;&Sigma;I) = 120.1 lbf.
b<sub>m</sub> uses the form of eq. 23 given in docs/physics/gears.md with the pitch radii, as the spatial model does, and x<sub>err</sub> the
angle of wheel a (cos is even, so the sense does not matter).</p>
</html>"));
end CardonaTorsional;
