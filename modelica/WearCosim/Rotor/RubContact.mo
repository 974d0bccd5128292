within WearCosim.Rotor;
model RubContact "Rotor-stator rub: circular clearance with a worn stator, penalty normal force with contact damping, regularised Coulomb friction"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Interfaces.WearSurface(R_journal = 0.075, c = 0.2e-3, L = 0.02, nSectors = 36);
  parameter SI.TranslationalSpringConstant k_c(min = 0) = 2e7 "Contact (penalty) stiffness";
  parameter SI.TranslationalDampingConstant c_c(min = 0) = 200 "Contact damping (acts only in contact)";
  parameter Real mu(min = 0) = 0.1 "Coulomb friction coefficient rotor/stator";
  parameter SI.Velocity vEps(min = 1e-9) = 1e-3 "Friction regularisation: Ft = -mu*Fn*tanh(vSlip/vEps)";
  parameter SI.ModulusOfElasticity E_rotor = 211e9 "Young's modulus of the disk (for the Hertz half-width)";
  parameter SI.PoissonNumber nu_rotor = 0.3 "Poisson's ratio of the disk";
  parameter SI.ModulusOfElasticity E_stator = 211e9 "Young's modulus of the stator (for the Hertz half-width)";
  parameter SI.PoissonNumber nu_stator = 0.3 "Poisson's ratio of the stator";
  parameter SI.Length eReg = 1e-12 "Regularisation of |e| at the stator centre";
  replaceable model NormalForce = WearCosim.Rotor.RubLaws.KelvinVoigt constrainedby WearCosim.Rotor.RubLaws.PartialNormalForce
    "Normal force law of the rub (default: Kelvin-Voigt penalty)" annotation (choicesAllMatching = true);
  input SI.Position rR[2] "Displacement of the disk centre (rub node), global frame";
  input SI.Velocity vR[2] "Velocity of the disk centre";
  input SI.Position rS[2] "Displacement of the stator centre";
  input SI.Velocity vS[2] "Velocity of the stator centre";
  input SI.AngularVelocity Omega "Spin speed of the rotor";
  output SI.Force F[2] "Contact force on the rotor, global frame (the stator receives -F)";
  output SI.Energy energy "Potential energy of the contact spring, k_c*max(delta, 0)^2/2";
  SI.Length eVec[2] "Rotor centre relative to the stator centre";
  SI.Length e "Eccentricity |eVec| (regularised)";
  Real n[2] "Contact normal (stator centre to rotor centre)";
  Real t[2] "Contact tangent (n rotated by +90 deg)";
  SI.Velocity deltaDot "Penetration rate (radial velocity d|e|/dt)";
  SI.Length hLocal "Wear depth of the stator at theta";
  NormalForce normalForce(final k_c = k_c, final c_c = c_c, delta = delta, deltaDot = deltaDot) "Normal force law of the rub";
equation
  eVec = rR - rS;
  e = sqrt(eVec[1]^2 + eVec[2]^2 + eReg^2);
  n = eVec/e;
  t = {-n[2], n[1]};
  theta = atan2(eVec[2], eVec[1]);
  hLocal = WearCosim.Contact.wearProfile(wearDepth, theta);
  delta = e - (c + hLocal);
  deltaDot = n*(vR - vS);
  vSlip = R_journal*Omega + t*(vR - vS);
  inContact = delta > 0;
  Fn = if delta > 0 then normalForce.Fn else 0;
  Ft = -mu*Fn*tanh(vSlip/vEps);
  F = -Fn*n + Ft*t;
  halfWidth = WearCosim.Contact.hertzHalfWidth(Fn, R_bearing + hLocal, R_journal, E_stator, nu_stator, E_rotor, nu_rotor, L);
  energy = 0.5*k_c*max(delta, 0)^2;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-80, 80}, {80, -80}}, lineColor = {0, 0, 0}, fillColor = {160, 160, 164}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-68, 68}, {68, -68}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-40, 60}, {60, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{22, 52}, {34, 40}}, lineColor = {255, 0, 0}, fillColor = {255, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Point-to-point rotor-stator contact of seed 004 (docs/physics/rotor.md) (seed 004): the disk (radius
<code>R_journal</code>, centre r<sub>R</sub>) turns at &Omega; inside a stator bore of radius
<code>R_bearing</code> = R<sub>journal</sub> + c, worn by h(&theta;) per sector (the
<a href=\"modelica://WearCosim.Interfaces.WearSurface\">wear interface</a>, identical to the clearance
joint's, so the wear master drives it unchanged). The stator does not rotate: its frame is the
global frame, &theta; = atan2(e<sub>y</sub>, e<sub>x</sub>) of e = r<sub>R</sub> - r<sub>S</sub>.</p>
<h4>Equations</h4>
<ul>
<li>Penetration &delta; = |e| - (c + h(&theta;)), penetration rate &delta;' = n&middot;(v<sub>R</sub> - v<sub>S</sub>).</li>
<li>Normal force (penalty with contact damping): F<sub>n</sub> = max(0, k<sub>c</sub>&delta; + c<sub>c</sub>&delta;') for
&delta; &gt; 0, else 0. The onset <code>delta &gt; 0</code> is a real event (the force law has a kink there,
and with c<sub>c</sub> &gt; 0 a jump of c<sub>c</sub>&delta;'); the clip at 0 (the damping term would pull the surfaces
together at the end of an impact, an adhesive force that a contact cannot transmit) creates no event.</li>
<li>Friction (Coulomb, regularised): F<sub>t</sub> = -&mu;F<sub>n</sub> tanh(v<sub>slip</sub>/v<sub>&epsilon;</sub>), with the
slip velocity of the disk surface relative to the stator v<sub>slip</sub> = R&Omega; + t&middot;(v<sub>R</sub> - v<sub>S</sub>)
(spin plus tangential whirl velocity). tanh replaces sign(v): smooth, so no stick-slip events; the
error is below &mu;F<sub>n</sub>(1 - tanh 3) = 0.5 % for |v<sub>slip</sub>| &gt; 3v<sub>&epsilon;</sub>; with
v<sub>&epsilon;</sub> = 1 mm/s and R&Omega; of several m/s the rub is always in gross slip (a rolling backward whirl
without slip is not resolved below ~1 mm/s).</li>
<li>Force on the rotor F = -F<sub>n</sub>n + F<sub>t</sub>t; the friction moment R&times;F<sub>t</sub> on the spin is not
fed back (the spin speed is prescribed).</li>
<li><code>halfWidth</code>: Hertz half-width of a cylinder (disk, R<sub>journal</sub>) in a cylindrical bore
(R<sub>bearing</sub> + h) over the axial length L, for the wear master's pressure distribution.</li>
</ul>
<h4>Why a penalty law instead of the seed's augmented Lagrangian</h4>
<p>The seed enforces the contact constraint with an augmented Lagrangian (iterated multipliers on top of a
penalty). That needs an iteration at every time step inside the integrator, which an FMU's
right-hand side cannot do, and it models a rigid stator. A penalty stiffness k<sub>c</sub> is the
augmented Lagrangian without multiplier updates; with k<sub>c</sub> equal to the local contact stiffness of
stator and seal (rather than an arbitrarily large number) it is the physical compliance of the contact, and
the contact damping c<sub>c</sub> represents the energy lost in impacts. Both are exactly the parameters the seed
varies (contact stiffness, contact damping), so the parameter study remains meaningful.</p>
<p>The normal force law is replaceable (<code>NormalForce</code>, see <a href=\"modelica://WearCosim.Rotor.RubLaws\">RubLaws</a>);
the default <a href=\"modelica://WearCosim.Rotor.RubLaws.KelvinVoigt\">KelvinVoigt</a> is the law described above.</p>
</html>"));
end RubContact;
