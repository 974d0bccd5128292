within WearCosim.Components.Gears;
model CardonaDrive "Cardona's test transmission without its mesh: I1 -(k1, C1)- wheel a, wheel b -(k2, C2)- I2, torque T on I1; mesh loads in, wheel kinematics out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Components.Gears.PartialWheelPair(final module = data.module, final zA = data.z1, final zB = data.z2,
    width = 0.02, IA = data.Ia, IB = data.Ib);
  parameter WearCosim.Gears.CardonaData data "Table 3 (inch-lbf-s, converted to SI inside); the backlash data.b_in is a parameter of the mesh element";
  WearCosim.Gears.Inertia inertia1(Ip = data.I1) "Driving inertia I1";
  WearCosim.Gears.TorsionalShaft shaft1(k = data.k1, c = data.C1) "Shaft 1 (k1, C1)";
  WearCosim.Gears.TorsionalShaft shaft2(k = data.k2, c = data.C2) "Shaft 2 (k2, C2)";
  WearCosim.Gears.Inertia inertia2(Ip = data.I2) "Load inertia I2 (free)";
  WearCosim.Gears.TorqueSource torque(T = data.T) "Transmitted torque T, step at t = 0";
  output SI.AngularVelocity w1 "Speed of I1";
  output SI.AngularVelocity wa "Speed of wheel a";
  output SI.AngularVelocity wb "Speed of wheel b, counted in the sense of rotation of a (eq. 27: theta3)";
  output SI.AngularVelocity w2 "Speed of I2, counted like wb (eq. 27: theta4)";
equation
  connect(torque.hub, inertia1.hub);
  connect(inertia1.hub, shaft1.hubA);
  connect(shaft1.hubB, wheelA.hub);
  connect(wheelB.hub, shaft2.hubA);
  connect(shaft2.hubB, inertia2.hub);
  w1 = inertia1.w;
  wa = wheelA.w;
  wb = -wheelB.w;
  w2 = -inertia2.w;
  annotation (experiment(StopTime = 0.02, Interval = 2e-6, Tolerance = 1e-8),
    Documentation(info = "<html>
<p>The body side of <a href=\"modelica://WearCosim.Gears.CardonaTransmission\">Gears.CardonaTransmission</a> (seed 003,
Cardona's test, Table 3 in <a href=\"modelica://WearCosim.Gears.CardonaData\">CardonaData</a>): the same
<a href=\"modelica://WearCosim.Gears.Inertia\">Inertia</a>s, <a href=\"modelica://WearCosim.Gears.TorsionalShaft\">TorsionalShaft</a>s,
<a href=\"modelica://WearCosim.Gears.TorqueSource\">TorqueSource</a> and wheels (I<sub>a</sub>, I<sub>b</sub> of the table,
discs of 20 mm face width otherwise), without the tooth mesh. Connected to
<a href=\"modelica://WearCosim.Components.Gears.CardonaMesh\">CardonaMesh</a> (the
<a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">GearMeshElement</a> with the same data) it is the monolithic transmission: case 1 with data.b_in = 0, case 2 with data.b_in = 0.001968
(backlash 50 &micro;m, a parameter of the mesh only; the table's cases 1 and 2 both have rigid supports).
<code>elasticSupports = true</code> puts both wheel centres on elastic bearings (kSupport, cSupport) instead.</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>fA[3], fB[3]</td><td>input</td><td>N</td><td>mesh force on wheel a / b, global frame</td></tr>
<tr><td>tA[3], tB[3]</td><td>input</td><td>N&middot;m</td><td>mesh torque on wheel a / b about its centre</td></tr>
<tr><td>uA[3], uB[3]</td><td>output</td><td>m</td><td>displacement of the wheel centre (0 in rigid bearings)</td></tr>
<tr><td>vA[3], vB[3]</td><td>output</td><td>m/s</td><td>velocity of the wheel centre</td></tr>
<tr><td>phiA[3], phiB[3]</td><td>output</td><td>rad</td><td>rotation E0&middot;{tilt1, tilt2, &psi;} of the wheel (tilts held: {0, 0, &psi;})</td></tr>
<tr><td>wA[3], wB[3]</td><td>output</td><td>rad/s</td><td>angular velocity of the wheel</td></tr>
<tr><td>w1, wa, wb, w2</td><td>output</td><td>rad/s</td><td>speeds of I1, wheel a, wheel b and I2 (b and I2 counted in the sense of a, eq. 27)</td></tr>
</table>
<p>All outputs are states (no direct feedthrough).</p></html>"));
end CardonaDrive;
