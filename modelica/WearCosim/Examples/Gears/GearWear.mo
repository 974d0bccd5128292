within WearCosim.Examples.Gears;
model GearWear "Spur pair at steady speed with a worn pinion flank: the profile wear interface (mean tooth) for the wear master"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  // ---------------------------------------------------------------- wear interface (profile surface)
  parameter Integer nSectors = 20 "Number of wear sectors along the active profile of the worn flank";
  parameter SI.Length L = 0.02 "Face width (contact length)";
  final parameter SI.Length profileLength = (xiTip^2 - xiSAP^2)/(2*rbB) "Length of the active profile of the worn (pinion) flank, SAP to tip";
  input SI.Length wearDepth[nSectors](each start = 0) "Wear depth of the pinion's drive flank per sector (sector i centred at (i - 1/2)*profileLength/nSectors from the start of the active profile)";
  output SI.Force Fn "Normal tooth force (>= 0)";
  output SI.Force Ft "Friction force on the flank, -mu*Fn along the sliding direction";
  output SI.Length delta "Penetration beyond the backlash (> 0 in contact)";
  output SI.Length sContact "Contact position along the worn flank's profile, from its start of active profile";
  output SI.Velocity vSlip "Sliding velocity (omega_a + omega_b)*(xi - xi_pitch), signed";
  output SI.Length halfWidth "Hertz line-contact half-width from the local involute radii of curvature";
  output Boolean inContact "Drive flank in contact";
  // ---------------------------------------------------------------- pair and operating point
  parameter SI.Length module = 3e-3 "Module";
  parameter Integer zA = 31 "Driving wheel a";
  parameter Integer zB = 23 "Driven pinion b (its flank wears)";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.TranslationalSpringConstant k_m = 4e8 "Mesh stiffness (constant: isolates the effect of wear)";
  parameter Real chi = 0.1 "Mesh damping factor";
  parameter SI.Length b = 20e-6 "Backlash";
  parameter SI.Torque T = 100 "Driving torque on a = braking torque on b times zA/zB";
  parameter Real nRpm = 1000 "Speed of a [rpm]";
  parameter Real mu = 0.05 "Friction coefficient reported in Ft";
  parameter SI.Velocity vReg = 1e-3 "Regularisation of the friction direction";
  parameter SI.ModulusOfElasticity E = 206e9 "Young's modulus of both wheels";
  parameter SI.PoissonNumber nu = 0.3 "Poisson's ratio";
  final parameter SI.Radius rhoA = module*zA/2 "Pitch radius of a";
  final parameter SI.Radius rhoB = module*zB/2 "Pitch radius of b";
  final parameter SI.Radius rbA = rhoA*cos(alpha) "Base radius of a";
  final parameter SI.Radius rbB = rhoB*cos(alpha) "Base radius of b";
  final parameter SI.Length lineT = (rhoA + rhoB)*sin(alpha) "Length T1T2 of the line of action between the base-circle tangency points";
  final parameter SI.Length xiTip = sqrt((rhoB + module)^2 - rbB^2) "Roll length of b at its tip (start of contact, A)";
  final parameter SI.Length xiSAP = lineT - sqrt((rhoA + module)^2 - rbA^2) "Roll length of b at its start of active profile (end of contact, E)";
  final parameter SI.Length xiPitch = rhoB*sin(alpha) "Roll length of b at the pitch point";
  final parameter SI.Length gAlpha = xiTip - xiSAP "Length of the path of contact";
  final parameter Real epsAlpha = gAlpha/(pi*module*cos(alpha)) "Contact ratio";
  final parameter SI.Length sPitch = (xiPitch^2 - xiSAP^2)/(2*rbB) "Profile position of the pitch point";
  final parameter SI.AngularVelocity w0 = nRpm*2*pi/60 "Speed of a";
  final parameter SI.Force F0 = T/rbA "Static normal force";
  final parameter SI.Time meshPeriod = 2*pi/(zA*w0) "Mesh period";
  WearCosim.Gears.GearPair pair(module = module, zA = zA, zB = zB, alpha = alpha, width = L, k_m = k_m, chi = chi, b = b,
    wA0 = w0, psiB0 = (F0/k_m + b/2)/rbB, mesh(hWear = hC)) "Spur pair, rigid bearings; mesh compression reduced by the wear at the contact";
  WearCosim.Gears.TorqueSource drive(T = T) "Driving torque on a";
  WearCosim.Gears.TorqueSource load(T = T*zB/zA) "Braking torque on b (b turns negatively about z)";
  output SI.Length te "Loaded transmission error along the line of action";
  output SI.Length hC "Wear depth at the contact point";
  output SI.Length xi "Roll length of b at the contact (distance from b's base-tangency point along the line of action)";
  output SI.Force F "Signed mesh force";
protected
  Real frac "Fraction of the current mesh period";
  SI.Length Rcurv "Equivalent radius of curvature of the two involutes at the contact";
equation
  connect(drive.hub, pair.hubA);
  connect(load.hub, pair.hubB);
  // mean tooth: the contact runs once along the path of contact per mesh period, from b's tip (A) to its SAP (E)
  frac = pair.mesh.meshPhase/(2*pi) - floor(pair.mesh.meshPhase/(2*pi));
  xi = xiTip - gAlpha*frac;
  sContact = (xi^2 - xiSAP^2)/(2*rbB);
  hC = WearCosim.Gears.flankWearDepth(wearDepth, sContact, profileLength);
  vSlip = (pair.wheelA.w - pair.wheelB.w)*(xi - xiPitch);
  Rcurv = xi*(lineT - xi)/lineT;
  halfWidth = sqrt(4*Fn*Rcurv/(pi*L*(E/(2*(1 - nu^2)))));
  F = pair.mesh.Fn;
  Fn = max(F, 0);
  Ft = -mu*Fn*vSlip/sqrt(vSlip^2 + vReg^2);
  delta = pair.mesh.ds - b/2;
  inContact = pair.mesh.contactDrive;
  te = pair.mesh.te;
  annotation (experiment(StopTime = 0.02, Interval = 1e-5, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>Gear-tooth wear through the <i>profile</i> wear interface: wheel a (z = 31) drives the pinion b (z = 23)
at <code>nRpm</code> (quasi-steady: a driven by T, b braked by T z<sub>B</sub>/z<sub>A</sub>, both starting at the rigid
speeds with the static deflection). The pinion's drive flank is the worn surface.</p>
<h4>Interface</h4>
<p>Inputs <code>wearDepth[nSectors]</code> (m, sector i centred at (i-&frac12;)L<sub>p</sub>/n along the active profile of the
pinion flank, from its start of active profile), outputs <code>Fn, Ft, delta, sContact, vSlip, halfWidth, inContact</code>,
parameters <code>nSectors, profileLength, L</code>.</p>
<h4>Model (mean tooth)</h4>
<ul>
<li>All teeth are identical: the wear profile of one flank applies to every tooth, and one representative
contact runs along the path of contact once per mesh period, from the pinion tip (A) to its start of active
profile (E): roll length &xi; = &xi;<sub>tip</sub> - g<sub>&alpha;</sub>&middot;frac(&phi;<sub>m</sub>/2&pi;) (&phi;<sub>m</sub> the mesh phase of
<a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>); the load sharing of double-pair contact is not modelled
(constant k<sub>m</sub>).</li>
<li>Profile position (involute arc length from the SAP): s = (&xi;<sup>2</sup> - &xi;<sub>SAP</sub><sup>2</sup>)/(2r<sub>b</sub>).</li>
<li>Sliding: v<sub>slip</sub> = (&omega;<sub>a</sub> + &omega;<sub>b</sub>)(&xi; - &xi;<sub>P</sub>) (external mesh; magnitudes of the speeds), zero at the
pitch point.</li>
<li>Hertz line contact of the two involutes: radii of curvature &xi; and T<sub>1</sub>T<sub>2</sub> - &xi;, R = &xi;(T<sub>1</sub>T<sub>2</sub>-&xi;)/T<sub>1</sub>T<sub>2</sub>,
b<sub>H</sub> = (4F<sub>n</sub>R/(&pi;LE*))<sup>1/2</sup>, E* = E/(2(1-&nu;<sup>2</sup>)).</li>
<li>Wear in the transmission error: the compression of the drive flank is &Delta;s - h(s), h interpolated at the contact
position by <a href=\"modelica://WearCosim.Gears.flankWearDepth\">flankWearDepth</a> (the worn material adds to the backlash).
The wear profile therefore shows up directly in the loaded transmission error <code>te</code>.</li>
<li>The friction force Ft = -&mu;F<sub>n</sub>v<sub>slip</sub>/(v<sub>slip</sub><sup>2</sup>+v<sub>reg</sub><sup>2</sup>)<sup>1/2</sup> is reported for the wear master; the
dynamics uses the mesh's own eq. 26 friction (here &mu; = 0 in the mesh: the reference points of eq. 19 roll without
sliding).</li>
<li><code>sContact</code> (and h, hence the force) jumps back from E to A at each new mesh period (change of the
representative tooth pair); the integrator absorbs the jump (no event).</li>
</ul></html>"));
end GearWear;
