within WearCosim.Rotor;
model JeffcottRub "Jeffcott rotor (single disk on a massless shaft) with unbalance rubbing on a worn stator; wear interface at the top level"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Interfaces.WearSurface(R_journal = 0.075, c = 0.2e-3, L = 0.02, nSectors = 36);
  parameter SI.Mass m = 5 "Disk mass";
  parameter SI.TranslationalSpringConstant k = 5e5 "Shaft stiffness at the disk";
  parameter SI.TranslationalDampingConstant d = 50 "Viscous damping of the disk";
  parameter Real unbalance(unit = "kg.m") = 5e-5 "Unbalance m*eU (eU: eccentricity of the mass centre)";
  parameter SI.AngularVelocity Omega0 = 300 "Spin speed (before and at the start of the ramp)";
  parameter SI.AngularVelocity Omega1 = Omega0 "Spin speed at the end of the ramp";
  parameter SI.Time tRampStart = 0 "Start of the linear speed ramp";
  parameter SI.Time tRamp(min = 1e-6) = 1 "Duration of the speed ramp";
  parameter SI.TranslationalSpringConstant k_c(min = 0) = 2e7 "Contact (penalty) stiffness";
  parameter SI.TranslationalDampingConstant c_c(min = 0) = 200 "Contact damping";
  parameter Real mu(min = 0) = 0.1 "Friction coefficient rotor/stator";
  parameter SI.Velocity vEps(min = 1e-9) = 1e-3 "Friction regularisation velocity";
  parameter SI.Position x0 = 0 "Initial disk position x";
  parameter SI.Position y0 = 0 "Initial disk position y";
  parameter SI.Velocity vx0 = 0 "Initial disk velocity x";
  parameter SI.Velocity vy0 = 0 "Initial disk velocity y";
  output SI.Position x(start = x0, fixed = true) "Disk centre x relative to the stator centre";
  output SI.Position y(start = y0, fixed = true) "Disk centre y relative to the stator centre";
  SI.Velocity vx(start = vx0, fixed = true) "Disk velocity x";
  SI.Velocity vy(start = vy0, fixed = true) "Disk velocity y";
  SI.Angle phi(start = 0, fixed = true) "Spin angle";
  output SI.AngularVelocity Omega "Spin speed";
  output SI.Length whirlRadius "Distance of the disk centre from the stator centre";
  output SI.AngularVelocity whirlRate "Whirl angular velocity (> 0 forward, < 0 backward)";
  output SI.Energy energy "Kinetic + shaft strain + contact spring energy";
  SI.AngularAcceleration dOmega "Spin acceleration";
  replaceable model NormalForce = WearCosim.Rotor.RubLaws.KelvinVoigt constrainedby WearCosim.Rotor.RubLaws.PartialNormalForce
    "Normal force law of the rub (default: Kelvin-Voigt penalty)" annotation (choicesAllMatching = true);
  WearCosim.Rotor.RubContact contact(redeclare final model NormalForce = NormalForce, final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L,
    final k_c = k_c, final c_c = c_c, final mu = mu, final vEps = vEps,
    wearDepth = wearDepth, rR = {x, y}, vR = {vx, vy}, rS = {0, 0}, vS = {0, 0}, Omega = Omega) "Rub contact";
equation
  Omega = Omega0 + (Omega1 - Omega0)*min(1, max(0, (time - tRampStart)/tRamp));
  dOmega = noEvent(if time > tRampStart and time < tRampStart + tRamp then (Omega1 - Omega0)/tRamp else 0);
  der(phi) = Omega;
  der(x) = vx;
  der(y) = vy;
  m*der(vx) = -k*x - d*vx + unbalance*(Omega^2*cos(phi) + dOmega*sin(phi)) + contact.F[1];
  m*der(vy) = -k*y - d*vy + unbalance*(Omega^2*sin(phi) - dOmega*cos(phi)) + contact.F[2];
  whirlRadius = sqrt(x^2 + y^2 + contact.eReg^2);
  whirlRate = (x*vy - y*vx)/whirlRadius^2;
  energy = 0.5*m*(vx^2 + vy^2) + 0.5*k*(x^2 + y^2) + contact.energy;
  Fn = contact.Fn;
  Ft = contact.Ft;
  delta = contact.delta;
  theta = contact.theta;
  vSlip = contact.vSlip;
  halfWidth = contact.halfWidth;
  inContact = contact.inContact;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-80, 80}, {80, -80}}, lineColor = {0, 0, 0}, fillColor = {160, 160, 164}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-68, 68}, {68, -68}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-35, 55}, {55, -35}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{5, 15}, {15, 5}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Line(points = {{10, 10}, {45, 45}}, color = {255, 0, 0}, arrow = {Arrow.None, Arrow.Filled}),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Jeffcott (Laval) rotor: a disk of mass m on a massless shaft of lateral stiffness k, viscous damping d,
unbalance u = m<sub>u</sub>e<sub>U</sub>, spin &Omega;(t) (constant or ramped), no tilt, no gyroscopic effect, rubbing on a
rigid stator through <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>:</p>
<p>m r'' + d r' + k r = u(&Omega;<sup>2</sup>cos&phi; + &Omega;'sin&phi;, &Omega;<sup>2</sup>sin&phi; - &Omega;'cos&phi;) + F<sub>contact</sub>.</p>
<p>Steady synchronous full annular rub (r = const &gt; c, whirl at &Omega;, mass eccentricity e<sub>U</sub> = u/m)
satisfies the closed form
[(k - m&Omega;<sup>2</sup>)r + k<sub>c</sub>(r - c)]<sup>2</sup> + [d&Omega;r + &mu;k<sub>c</sub>(r - c)]<sup>2</sup> = (u&Omega;<sup>2</sup>)<sup>2</sup>
(radial and tangential force balance in the frame whirling with the disk; the contact damping does not act
because &delta;' = 0), verified in tests/rotor. <code>energy</code> = &frac12;m|v|<sup>2</sup> + &frac12;k|r|<sup>2</sup> +
&frac12;k<sub>c</sub>max(&delta;,0)<sup>2</sup> is conserved for d = c<sub>c</sub> = &mu; = u = 0 at any constant spin (tested over
100 impacts).</p>
</html>"));
end JeffcottRub;
