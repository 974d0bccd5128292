within WearCosim.Gears;
model CardonaTransmission "Cardona's test transmission with the spatial gear pair: I1 -(k1, C1)- wheel a = wheel b -(k2, C2)- I2, torque T on I1"
  import SI = WearCosim.Units.SI;
  parameter WearCosim.Gears.CardonaData data "Table 3 (inch-lbf-s, converted to SI inside)";
  WearCosim.Gears.Inertia inertia1(Ip = data.I1) "Driving inertia I1";
  WearCosim.Gears.TorsionalShaft shaft1(k = data.k1, c = data.C1) "Shaft 1 (k1, C1)";
  WearCosim.Gears.GearPair pair(module = data.module, zA = data.z1, zB = data.z2, alpha = data.alpha, width = 0.02,
    IA = data.Ia, IB = data.Ib, b = data.b, X = data.X, k_m = data.k_m, chi = data.chi,
    fixedTranslationA = true, fixedTranslationB = true) "Spatial gear pair, rigid supports";
  WearCosim.Gears.TorsionalShaft shaft2(k = data.k2, c = data.C2) "Shaft 2 (k2, C2)";
  WearCosim.Gears.Inertia inertia2(Ip = data.I2) "Load inertia I2 (free)";
  WearCosim.Gears.TorqueSource torque(T = data.T) "Transmitted torque T, step at t = 0";
  output SI.Force F "Normal mesh force (eq. 18 + 22)";
  output SI.Force Fpitch "Tangential mesh force at the pitch circle, F*cos(alpha)";
  output SI.Length ds "Transmission error (eq. 14)";
  output SI.AngularVelocity w1 "Speed of I1";
  output SI.AngularVelocity wa "Speed of wheel a";
  output SI.AngularVelocity wb "Speed of wheel b, counted in the sense of rotation of a (eq. 27: theta3)";
  output SI.AngularVelocity w2 "Speed of I2, counted like wb (eq. 27: theta4)";
  output Boolean inContact "Teeth in contact (either flank)";
equation
  connect(torque.hub, inertia1.hub);
  connect(inertia1.hub, shaft1.hubA);
  connect(shaft1.hubB, pair.hubA);
  connect(pair.hubB, shaft2.hubA);
  connect(shaft2.hubB, inertia2.hub);
  F = pair.mesh.Fn;
  Fpitch = pair.mesh.Ftan;
  ds = pair.mesh.ds;
  w1 = inertia1.w;
  wa = pair.wheelA.w;
  wb = -pair.wheelB.w;
  w2 = -inertia2.w;
  inContact = pair.mesh.contactDrive or pair.mesh.contactBack;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-100, 30}, {-10, 30}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{10, -30}, {100, -30}}, color = {0, 0, 0}, thickness = 1),
      Rectangle(extent = {{-30, 80}, {-10, -20}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Rectangle(extent = {{10, 20}, {30, -80}}, lineColor = {0, 0, 0}, fillColor = {160, 160, 164}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Seed 003, third test (Cardona 1995, Table 3), built from library components: the spatial
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> (12 DOF, centres and tilts held by rigid supports, the
paper's cases 1-2), two <a href=\"modelica://WearCosim.Gears.TorsionalShaft\">TorsionalShaft</a>s and two
<a href=\"modelica://WearCosim.Gears.Inertia\">Inertia</a>s. Both wheels' axes are +z, so wheel b and I2 turn negatively;
the outputs <code>wb</code>, <code>w2</code> are counted in the sense of eq. 27 (&theta;<sub>3</sub>, &theta;<sub>4</sub>).
The shafts connect coaxial hubs only (the shaft of wheel b lies on b's axis).</p>
<p>Expected mean force: the chain accelerates as a whole at T/&Sigma;I, so the mesh carries
F<sub>pitch</sub> = T(I<sub>b</sub>+I<sub>2</sub>)/(&rho;&Sigma;I) = 120.1 lbf = 534 N at the pitch circle
(F = F<sub>pitch</sub>/cos&alpha; along the tooth normal).</p></html>"));
end CardonaTransmission;
