within WearCosim.Joints;
model RevoluteClearance "Planar revolute joint with radial clearance and a worn bearing: Flores contact, Ambrosio friction, optional Sommerfeld film (Flores hybrid)"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Interfaces.WearSurface;
  // ---------------------------------------------------------------- materials and laws
  parameter SI.ModulusOfElasticity E_bearing = 207e9 "Young's modulus of the bearing (worn body i)";
  parameter SI.PoissonNumber nu_bearing = 0.3 "Poisson's ratio of the bearing";
  parameter SI.ModulusOfElasticity E_journal = 207e9 "Young's modulus of the journal (body j)";
  parameter SI.PoissonNumber nu_journal = 0.3 "Poisson's ratio of the journal";
  parameter Real n_exp(unit = "1") = 1.5 "Exponent of the Flores law (1.5 for metals)";
  parameter Real cr(unit = "1", min = 0.01, max = 1) = 0.9 "Coefficient of restitution";
  parameter Real mu_d(unit = "1", min = 0) = 0.01 "Dynamic friction coefficient of the dry contact";
  parameter SI.Velocity v0 = 1e-4 "Ambrosio friction: no friction below this slip speed";
  parameter SI.Velocity v1 = 1e-2 "Ambrosio friction: full Coulomb friction above this slip speed";
  parameter SI.Velocity vImpactMin = 1e-3 "Floor of the captured impact velocity (grazing contacts)";
  parameter Boolean lubricated = false "true: Flores hybrid lubricated/dry force; false: dry contact only (a run-time switch of the FMU)" annotation (Evaluate = false);
  parameter SI.DynamicViscosity mu_oil = 0.4 "Oil dynamic viscosity (400 cP at 40 degC, seed section 3)";
  parameter Real epsMax(unit = "1", min = 0, max = 1) = 0.99 "Cap of the eccentricity ratio in the film forces";
  parameter Real wedgeScale(unit = "1", min = 0, max = 1) = 1 "Scale of the wedge (hydrodynamic) film force: 1 = squeeze + wedge (Sommerfeld), 0 = pure squeeze film (seed 002's assumption)";
  parameter SI.Length e0 = 0.05*c "Width of the lubricated-to-dry transition band (Flores hybrid)";
  parameter SI.Length eReg = 1e-12 "Regularisation of |e| at the bearing centre";
  replaceable model NormalForce = WearCosim.Joints.ContactLaws.Flores constrainedby WearCosim.Joints.ContactLaws.PartialNormalForce
    "Normal force law of the dry contact (default: Flores)" annotation (choicesAllMatching = true);
  // ---------------------------------------------------------------- kinematics (inputs, bound by the mechanism)
  input SI.Position rB[2] "Bearing centre, global frame";
  input SI.Velocity vB[2] "Velocity of the bearing centre, global frame";
  input SI.Angle phiB "Rotation angle of the bearing body";
  input SI.AngularVelocity wB "Angular velocity of the bearing body";
  input SI.Position rJ[2] "Journal centre, global frame";
  input SI.Velocity vJ[2] "Velocity of the journal centre, global frame";
  input SI.AngularVelocity wJ "Angular velocity of the journal body";
  // ---------------------------------------------------------------- loads on the bodies
  output SI.Force F[2] "Total joint force on the journal (solid contact + film), global frame";
  output SI.Torque tauJ "Joint torque on the journal body about the journal centre";
  output SI.Torque tauB "Joint torque on the bearing body about the bearing centre";
  // ---------------------------------------------------------------- internal variables
  SI.Length eVec[2] "Eccentricity vector rJ - rB, global frame";
  SI.Length e "Eccentricity (regularised magnitude of eVec)";
  Real nG[2] "Contact normal n = eVec/e, global frame";
  Real tG[2] "Contact tangent t (n rotated by +90 deg), global frame";
  SI.Velocity eDot "Radial velocity de/dt (= penetration velocity, see Documentation)";
  SI.AngularVelocity gammaDot "Whirl rate of the line of centres in the bearing frame";
  SI.Length hLocal "Wear depth of the bearing at theta";
  SI.Length cLocal "Local clearance c + h(theta)";
  SI.HertzStiffness K "Flores stiffness at the local (worn) bearing radius";
  SI.Force FnDry "Flores normal force of the dry contact";
  SI.Force FtDry "Ambrosio friction force of the dry contact, along t";
  SI.Force FrFilm "Squeeze-film force along n (0 for a dry joint)";
  SI.Force FtFilm "Wedge-film force along t (0 for a dry joint)";
  Real wDry "Weight of the dry force (1 for a dry joint; Flores hybrid weight if lubricated)";
  SI.Force Frad "Total radial force on the journal along n";
  SI.Force Ftan "Total tangential force on the journal along t";
  discrete SI.Velocity vImpact(start = 1, fixed = true) "Penetration velocity captured at the last contact onset";
  NormalForce normalForce(final n_exp = n_exp, final cr = cr, K = K, delta = delta, deltaDot = eDot, vImpact = vImpact)
    "Normal force law of the dry contact";
protected
  final parameter SI.HertzStiffness K0 = WearCosim.Contact.floresStiffness(E_bearing, nu_bearing, E_journal, nu_journal, R_bearing, R_journal) "Flores stiffness of the unworn joint (for reference)";
equation
  // geometry in the bearing frame
  eVec = rJ - rB;
  e = sqrt(eVec[1]^2 + eVec[2]^2 + eReg^2);
  nG = eVec/e;
  tG = {-nG[2], nG[1]};
  theta = atan2(-sin(phiB)*eVec[1] + cos(phiB)*eVec[2], cos(phiB)*eVec[1] + sin(phiB)*eVec[2]);
  eDot = nG*(vJ - vB);
  gammaDot = (eVec[1]*(vJ[2] - vB[2]) - (vJ[1] - vB[1])*eVec[2])/e^2 - wB;
  vSlip = tG*(vJ - vB) + R_journal*wJ - (R_bearing + hLocal)*wB;
  // worn local clearance and stiffness
  hLocal = WearCosim.Contact.wearProfile(wearDepth, theta);
  cLocal = c + hLocal;
  K = WearCosim.Contact.floresStiffness(E_bearing, nu_bearing, E_journal, nu_journal, R_bearing + hLocal, R_journal);
  delta = e - cLocal;
  inContact = delta > 0;
  // impact velocity captured at contact onset (the only event of the joint)
  when delta > 0 then
    vImpact = max(pre(eDot), vImpactMin);
  end when;
  // dry contact: normal force law (default Flores), Ambrosio friction
  FnDry = if delta > 0 then normalForce.Fn else 0;
  FtDry = WearCosim.Contact.ambrosioFriction(mu_d, FnDry, vSlip, v0, v1);
  // film and hybrid weighting
  if lubricated then
    FrFilm = WearCosim.Contact.sommerfeldRadial(mu_oil, L, R_journal, cLocal, e, eDot, epsMax);
    FtFilm = wedgeScale*WearCosim.Contact.sommerfeldTangential(mu_oil, L, R_journal, cLocal, e, wJ - wB, gammaDot, epsMax);
    wDry = WearCosim.Contact.hybridWeight(e, cLocal, e0);
  else
    FrFilm = 0;
    FtFilm = 0;
    wDry = 1;
  end if;
  Fn = wDry*FnDry;
  Ft = wDry*FtDry;
  halfWidth = WearCosim.Contact.hertzHalfWidth(Fn, R_bearing + hLocal, R_journal, E_bearing, nu_bearing, E_journal, nu_journal, L);
  Frad = (1 - wDry)*FrFilm - Fn;
  Ftan = (1 - wDry)*FtFilm + Ft;
  F = Frad*nG + Ftan*tG;
  tauJ = R_journal*Ftan;
  tauB = -(R_journal + e)*Ftan;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-80, 80}, {80, -80}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-62, 62}, {62, -62}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-30, 20}, {60, -70}}, lineColor = {0, 0, 0}, fillColor = {128, 128, 128}, fillPattern = FillPattern.Solid),
      Line(points = {{0, 0}, {15, -25}}, color = {255, 0, 0}, thickness = 0.5),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Journal (body j, centre r<sub>J</sub>, radius R<sub>journal</sub>) inside a bearing (body i, centre
r<sub>B</sub>, rotation &phi;<sub>B</sub>, radius R<sub>bearing</sub> + h(&theta;)) in the joint plane; the
kinematic constraint of the ideal revolute is replaced by forces (seed 002 (docs/physics/clearance-joint.md), seed 002
section 1). The mechanism binds the kinematic inputs and applies <code>F</code> and
<code>tauJ</code> to the journal body and -<code>F</code>, <code>tauB</code> to the bearing body.</p>
<h4>Equations</h4>
<ul>
<li>e = r<sub>J</sub> - r<sub>B</sub>, |e| = (e<sub>x</sub><sup>2</sup>+e<sub>y</sub><sup>2</sup>+e<sub>reg</sub><sup>2</sup>)<sup>1/2</sup>, n = e/|e|, t = n rotated +90&deg;;
&theta; = atan2 of n in the bearing frame.</li>
<li>Local clearance c<sub>local</sub> = c + h(&theta;), h from <code>wearDepth</code> by
<a href=\"modelica://WearCosim.Contact.wearProfile\">wearProfile</a>; penetration &delta; = |e| - c<sub>local</sub>.</li>
<li>Normal force: the replaceable law <code>NormalForce</code> (<a href=\"modelica://WearCosim.Joints.ContactLaws\">ContactLaws</a>),
evaluated while &delta; &gt; 0; default <a href=\"modelica://WearCosim.Joints.ContactLaws.Flores\">Flores</a>: F<sub>n,dry</sub> = K(R<sub>bearing</sub>+h)&delta;<sup>1.5</sup>[1 + 8(1-c<sub>r</sub>)/(5c<sub>r</sub>)&delta;'/&delta;'<sup>(-)</sup>] &ge; 0,
&delta;'<sup>(-)</sup> captured by <code>when delta &gt; 0</code> from <code>pre(eDot)</code> and floored at
<code>vImpactMin</code>.</li>
<li>Friction (Ambr&oacute;sio): F<sub>t,dry</sub> = -&mu;<sub>d</sub>c<sub>d</sub>(|v<sub>t</sub>|)F<sub>n,dry</sub>v<sub>t</sub>/|v<sub>t</sub>|, with
v<sub>t</sub> = t&middot;(v<sub>J</sub>-v<sub>B</sub>) + R<sub>journal</sub>&omega;<sub>J</sub> - (R<sub>bearing</sub>+h)&omega;<sub>B</sub>.</li>
<li>Lubricated (<code>lubricated = true</code>; a run-time parameter of the FMU, declared <code>Evaluate = false</code>:
both branches are computed and an if-expression selects one): Sommerfeld long-bearing film F<sub>r</sub>, F<sub>t</sub> with the local clearance,
&omega; = &omega;<sub>J</sub>-&omega;<sub>B</sub>, &gamma;' the whirl rate in the bearing frame, &epsilon; capped at
&epsilon;<sub>max</sub>; Flores hybrid blend with weight w = clip((|e|-c<sub>local</sub>)/e<sub>0</sub>, 0, 1):
force = (1-w)&middot;film + w&middot;dry. Dry joint: w = 1.</li>
<li>Force on the journal F = [(1-w)F<sub>r</sub> - wF<sub>n,dry</sub>] n + [(1-w)F<sub>t,film</sub> + wF<sub>t,dry</sub>] t;
torque on the journal about its centre R<sub>journal</sub>F<sub>tan</sub>; on the bearing about its centre
-(R<sub>journal</sub>+|e|)F<sub>tan</sub> (contact point at r<sub>J</sub> + R<sub>journal</sub>n).</li>
<li>Wear-interface outputs: <code>Fn</code> = wF<sub>n,dry</sub> and <code>Ft</code> = wF<sub>t,dry</sub> are the
<i>solid-contact</i> forces (the film carries load without wear); <code>halfWidth</code> the Hertz half-width of
<code>Fn</code>; <code>vSlip</code> = v<sub>t</sub>; <code>inContact</code> = &delta; &gt; 0.</li>
</ul>
<h4>Assumptions, simplifications and regularisations</h4>
<ul>
<li>Rigid bodies, planar joint, no misalignment, no axial clearance. The journal keeps its shape
(it is harder); only the bearing wears.</li>
<li>Penetration velocity &delta;' &asymp; d|e|/dt: the term -h'(&theta;)&theta;' from the wear-profile slope is
neglected (|h'| ~ wear depth/sector width &lt;&lt; 1, and it vanishes before any wear).</li>
<li>Events: the only event-generating relation is <code>delta &gt; 0</code> (if-expression of F<sub>n,dry</sub>,
<code>inContact</code> and the when-clause); all other switches (friction regimes, &epsilon; cap, hybrid
weight) are continuous and live inside functions, which create no events.</li>
<li><code>eReg</code> = 10<sup>-12</sup> m defines n at the bearing centre; <code>vImpactMin</code> = 1 mm/s
bounds the Flores damping for grazing contacts (&delta;'<sup>(-)</sup> &rarr; 0 would give infinite damping);
a run that starts in contact assumes &delta;'<sup>(-)</sup> = 1 m/s (start of <code>vImpact</code>).</li>
<li>&epsilon;<sub>max</sub> = 0.99 caps the film forces (they diverge for &epsilon; &rarr; 1); e<sub>0</sub> = 5 % of c is the
width of the hybrid band (Flores et al. 2006 leave e<sub>0</sub> to the analyst; it must be small compared with
c and large compared with the penetrations of the dry contact).</li>
<li>The Sommerfeld (full-film, infinitely long bearing) solution ignores cavitation and is applied for
L/D &ge; 2 as in the seed.</li>
<li><code>wedgeScale</code> scales the wedge (load-carrying, hydrodynamic) film force: 1 keeps the full
Sommerfeld film of seed 002 eq. 6 (docs/physics/clearance-joint.md); 0 gives the pure squeeze film that seed 002 assumes for its mechanism
(section 1.1.2: the relative radial velocity dominates the relative rotation). A pure squeeze film damps the
approach of the journal but cannot carry a steady load, so the journal still reaches the bearing wall and
wears, with softer impacts.</li>
</ul>
<p>Default parameters: steel journal and bearing, c<sub>r</sub> = 0.9, &mu;<sub>d</sub> = 0.01,
v<sub>0</sub> = 10<sup>-4</sup> m/s, v<sub>1</sub> = 10<sup>-2</sup> m/s (Flores &amp; Ambr&oacute;sio 2004), oil 0.4 Pa&middot;s (seed 002).</p>
</html>"));
end RevoluteClearance;
