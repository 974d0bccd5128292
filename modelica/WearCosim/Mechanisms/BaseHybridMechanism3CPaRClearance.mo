within WearCosim.Mechanisms;
partial model BaseHybridMechanism3CPaRClearance "3-CPaR&R1R2 around its D3 clearance joint: chain 3 freed at D3, states, journal kinematics and equations of motion under the joint loads"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseHybridMechanism3CPaR;
  SI.Angle q[2](start = qStart, each fixed = true) "Passive angles of chain 3: alpha (A3B3, C3D3), beta (parallelogram)";
  SI.AngularVelocity qd[2](start = qdStart, each fixed = true) "Angular velocities of chain 3";
  SI.Position rJournal[2] "Journal centre (on C3D3), XY";
  SI.Velocity vJournal[2] "Velocity of the journal centre";
  output SI.Position ex "Journal centre relative to the bearing centre, x (orbit)";
  output SI.Position ey "Journal centre relative to the bearing centre, y (orbit)";
  // ---------------------------------------------------------------- loads of the D3 joint (bound by the extending model)
  SI.Force FJournal[2] "Force of the D3 clearance joint on the journal (body 3: coupler with C3D3), XY";
  SI.Torque tauJournal "Torque of the D3 clearance joint on body 3 about the journal centre";
  SI.Torque tauFric[2] "Generalised forces of the Coulomb friction in chain 3's passive joints A3 and the parallelogram (zero by default)";
protected
  final parameter SI.Position p0[2] = {data.q10 + data.xD3 - data.xA3, data.q20 - data.qAmp + data.yD3 - data.yA3} "D3 relative to A3 at t = 0";
  final parameter SI.Length d0 = sqrt(p0[1]^2 + p0[2]^2) "|A3D3| at t = 0";
  final parameter SI.Angle alpha0 = atan2(p0[2], p0[1]) + data.elbow*acos((a3^2 + d0^2 - data.l32^2)/(2*a3*d0)) "Ideal alpha at t = 0";
  final parameter SI.Angle beta0 = atan2(p0[2] - a3*sin(alpha0), p0[1] - a3*cos(alpha0)) "Ideal beta at t = 0";
  final parameter SI.Angle qStart[2] = {alpha0, beta0} "Initial angles: journal centred in the bearing";
  final parameter Real detJ0 = a3*data.l32*sin(beta0 - alpha0) "Determinant of the chain Jacobian at t = 0 [m2]";
  final parameter SI.AngularVelocity qdStart[2] = {data.l32*cos(beta0)*(-data.qAmp*omega)/detJ0, -a3*cos(alpha0)*(-data.qAmp*omega)/detJ0} "Initial rates: ideal velocities at t = 0 (D3 velocity (-qAmp*w, 0))";
equation
  rJournal = {data.xA3, data.yA3} + a3*{cos(q[1]), sin(q[1])} + data.l32*{cos(q[2]), sin(q[2])};
  vJournal = a3*qd[1]*{-sin(q[1]), cos(q[1])} + data.l32*qd[2]*{-sin(q[2]), cos(q[2])};
  der(q) = qd;
  tauFric = {-data.tauFricA3*tanh(qd[1]/data.wFric) + data.tauFricPa*tanh((qd[2] - qd[1])/data.wFric), -data.tauFricPa*tanh((qd[2] - qd[1])/data.wFric)};
  [M11, hM*cos(q[1] - q[2]); hM*cos(q[1] - q[2]), M22]*der(qd) = {a3*({-sin(q[1]), cos(q[1])}*FJournal) + tauJournal - hM*sin(q[1] - q[2])*qd[2]^2 - data.gPlane*G1*cos(q[1]) + tauFric[1], data.l32*({-sin(q[2]), cos(q[2])}*FJournal) + hM*sin(q[1] - q[2])*qd[1]^2 - data.gPlane*G2*cos(q[2]) + tauFric[2]};
  ex = rJournal[1] - rD3[1];
  ey = rJournal[2] - rD3[2];
  annotation (Documentation(info = "<html>
<p>The 3-CPaR&amp;R<sub>1</sub>R<sub>2</sub> mechanism (docs/physics/mechanisms.md) with its revolute D3 between link C3D3 (journal) and
the moving platform (bearing) removed: prescribed drives and platform kinematics of
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaR\">BaseHybridMechanism3CPaR</a>, plus the two free
coordinates of chain 3 (&alpha;, &beta;) and their Lagrange equations under the loads of the D3 joint, the variables
<code>FJournal</code> (force on the journal) and <code>tauJournal</code> (torque on body 3). An extending model binds
them, either to a <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a> of its own
(<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a>) or to inputs
(<a href=\"modelica://WearCosim.Components.Mechanisms.HybridMechanismBody\">Components.Mechanisms.HybridMechanismBody</a>);
one set of equations serves both.</p>
<pre>
  M(q) q'' = J(q)^T F + [tauJ - hM sin(alpha-beta) beta'^2,  hM sin(alpha-beta) alpha'^2] + Q_g
</pre>
<p>Derivation, simplifications and the gravity term Q<sub>g</sub>: see
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a> and
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaR\">BaseHybridMechanism3CPaR</a>. The platform's motion
is prescribed (drives assumed stiff), so the joint's torque on the bearing does not enter. Initial state: the
ideal configuration and velocity at t = 0 with the journal centred.</p>
</html>"));
end BaseHybridMechanism3CPaRClearance;
