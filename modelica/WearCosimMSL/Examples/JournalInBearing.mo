within WearCosimMSL.Examples;
model JournalInBearing "A spinning journal made of MSL masses and an inertia drops into a fixed dry clearance bearing (WearCosim joint through RevoluteClearanceXY)"
  extends WearCosim.Icons.Example;
  import SI = Modelica.Units.SI;
  parameter SI.Mass m = 2 "Journal mass";
  parameter SI.Inertia Jj = 1e-4 "Journal polar inertia";
  parameter SI.AngularVelocity w0 = 50 "Initial spin of the journal";
  parameter SI.Acceleration g = 9.81 "Gravity (along -y)";
  Modelica.Mechanics.Translational.Components.Fixed bearingX "Bearing centre x (fixed)";
  Modelica.Mechanics.Translational.Components.Fixed bearingY "Bearing centre y (fixed)";
  Modelica.Mechanics.Rotational.Components.Fixed bearingPhi "Bearing rotation (fixed)";
  WearCosimMSL.Translational.RevoluteClearanceXY clearance(nSectors = 12, R_journal = 0.01, c = 1e-4, L = 0.02, wearDepth = zeros(12),
    joint(mu_d = 0.1, cr = 0.9)) "Dry clearance joint, unworn (WearCosim)";
  Modelica.Mechanics.Translational.Components.Mass journalX(m = m, s(start = 0, fixed = true), v(start = 0, fixed = true)) "Journal, x motion (MSL)";
  Modelica.Mechanics.Translational.Components.Mass journalY(m = m, s(start = 0, fixed = true), v(start = 0, fixed = true)) "Journal, y motion (MSL)";
  Modelica.Mechanics.Rotational.Components.Inertia journalSpin(J = Jj, phi(start = 0, fixed = true), w(start = w0, fixed = true)) "Journal rotation (MSL)";
  Modelica.Mechanics.Translational.Sources.ConstantForce weight(f_constant = -m*g) "Weight of the journal (MSL)";
  output SI.Position x = journalX.s "Journal centre x";
  output SI.Position y = journalY.s "Journal centre y";
  output SI.AngularVelocity wJ = journalSpin.w "Journal spin";
  output SI.Force FnOut = clearance.Fn "Normal contact force";
  output SI.Force FtOut = clearance.Ft "Friction force on the journal along the tangent";
equation
  connect(bearingX.flange, clearance.flange_xB);
  connect(bearingY.flange, clearance.flange_yB);
  connect(bearingPhi.flange, clearance.flange_phiB);
  connect(clearance.flange_xJ, journalX.flange_a);
  connect(clearance.flange_yJ, journalY.flange_a);
  connect(clearance.flange_phiJ, journalSpin.flange_a);
  connect(weight.flange, journalY.flange_b);
  annotation (experiment(StopTime = 0.1, Interval = 1e-4, Tolerance = 1e-11),
    Documentation(info = "<html>
<p>The rig of docs/library.md (a journal of mass m dropped from the centre of a fixed, unworn bearing with radial clearance c = 0.1 mm) with
the journal built of MSL components: a <code>Translational.Components.Mass</code> for x and one for y (gravity by a
<code>Sources.ConstantForce</code>) and a <code>Rotational.Components.Inertia</code> spinning at w<sub>0</sub>; the bearing is three MSL
<code>Fixed</code>. The WearCosim joint acts between them through <a href=\"modelica://WearCosimMSL.Translational.RevoluteClearanceXY\">RevoluteClearanceXY</a>:
the journal falls through the clearance, bounces (Flores, c<sub>r</sub> = 0.9), and the friction of the spinning journal
(Ambr&oacute;sio, &mu; = 0.1) drives it sideways and slows its spin.</p>
<pre>
m x'' = F_x,   m y'' = F_y - m g,   Jj wJ' = R_journal Ftan
F = (-Fn) n + Ftan t,   n = (x, y)/e,  t = (-n_y, n_x),  e = |(x, y)|
Fn = K delta^1.5 (1 + 8 (1 - cr)/(5 cr) e'/e'(-))  (delta = e - c &gt; 0),   Ftan = -mu c_d(|v_t|) Fn v_t/|v_t|,   v_t = t.(x', y') + R_journal wJ
</pre>
<p>tests/library/test_interop_msl.py integrates these equations with SciPy (the impact velocity e'<sup>(-)</sup> captured at each contact onset) and
compares the journal's motion, spin and contact force: to 1.4e-8 of their range when the reference's contact switches where the exporter's
relations do (0.1 nm past &delta; = 0), to 9e-5 with the exact switching (the 0.1 nm carried on by 20 impacts; docs/library.md).</p>
</html>"));
end JournalInBearing;
