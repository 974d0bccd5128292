within WearCosim.Gears;
model GearMesh "Massless spatial tooth mesh between the hubs of wheels a and b (Popov-Sorokin after Cardona, seed 003 eq. 5-26)"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  // ---------------------------------------------------------------- gear geometry
  parameter SI.Radius rhoA = 0.05 "Pitch radius of wheel a (the larger wheel; the ring of an internal mesh)";
  parameter SI.Radius rhoB = 0.05 "Pitch radius of wheel b";
  parameter Integer zA = 25 "Number of teeth of wheel a";
  parameter Boolean internal = false "true: internal mesh (a is the ring gear), eq. 7b; false: eq. 7a";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Angle beta = 0 "Helix angle of wheel a (sign = hand of the helix)";
  parameter SI.Angle gammaCone = 0 "Pitch-cone angle of wheel a (0: cylindrical gears)";
  // ---------------------------------------------------------------- nominal placement of the wheels (as in the Wheel components)
  parameter SI.Position rA0[3] = {0, 0, 0} "Nominal centre of wheel a (centre of its pitch circle), global frame";
  parameter Real e1A[3] = {1, 0, 0} "Nominal e1 of wheel a";
  parameter Real e3A[3] = {0, 0, 1} "Nominal axis e3 of wheel a";
  parameter SI.Position rB0[3] = rA0 + (if internal then rhoA - rhoB else rhoA + rhoB)*e1A "Nominal centre of wheel b";
  parameter Real e1B[3] = if internal then e1A else -e1A "Nominal e1 of wheel b";
  parameter Real e3B[3] = e3A "Nominal axis e3 of wheel b (external and internal spur/helical: = e3A; bevel: both axes point to the cone apex)";
  // ---------------------------------------------------------------- mesh laws
  parameter SI.Length b = 0 "Backlash (total, along the tooth normal)";
  parameter SI.Length X = 0 "Amplitude of the manufacturing error, dx_error = X*(1 - cos(zA*gamma_a)) (eq. 15)";
  parameter SI.TranslationalSpringConstant k_m = 1e8 "Mesh stiffness (constant), or single-pair stiffness if variableStiffness";
  parameter Boolean variableStiffness = false "true: periodic stiffness of the law Stiffness (default: smoothed single/double tooth-pair alternation), see Documentation; a run-time switch of the FMU" annotation (Evaluate = false);
  replaceable model Stiffness = WearCosim.Gears.StiffnessLaws.SmoothedRectangle constrainedby WearCosim.Gears.StiffnessLaws.PartialStiffness
    "Periodic mesh stiffness law used if variableStiffness (default: smoothed rectangle)" annotation (choicesAllMatching = true);
  parameter SI.TranslationalSpringConstant k_double = 2*k_m "Double-pair stiffness (variableStiffness)";
  parameter Real epsAlpha(min = 1, max = 2) = 1.6 "Transverse contact ratio: double-pair fraction of a mesh period is epsAlpha - 1 (variableStiffness)";
  parameter Real sharpness = 30 "Steepness of the smoothed single/double transitions (variableStiffness)";
  parameter Real chi = 0 "Proportionality factor of the mesh damping (eq. 23)";
  parameter SI.Inertia IA = 1e-3 "Polar inertia of wheel a (mesh damping, eq. 23)";
  parameter SI.Inertia IB = 1e-3 "Polar inertia of wheel b (mesh damping, eq. 23)";
  parameter Real mu = 0 "Tooth friction coefficient (eq. 26)";
  parameter SI.Velocity vReg = 1e-3 "Regularisation of the friction direction at zero sliding";
  parameter SI.Time tauBeta = 0.01 "Relaxation time of the unwrapped centre-line angle onto its wrapped value";
  input SI.Length hWear = 0 "Wear depth of the flank at the current contact point (adds to the backlash on the drive flank; 0: unworn)";
  Stiffness stiffness(final k_single = k_m, final k_double = k_double, final epsAlpha = epsAlpha, final sharpness = sharpness,
    meshPhase = meshPhase) "Periodic mesh stiffness law (used if variableStiffness)";
  WearCosim.Gears.Hub hubA "Hub of wheel a";
  WearCosim.Gears.Hub hubB "Hub of wheel b";
  // ---------------------------------------------------------------- kinematics
  SI.Position rA[3] "Centre of wheel a";
  SI.Position rB[3] "Centre of wheel b";
  Real qA[3] "{tilt1, tilt2, psi} of wheel a";
  Real qB[3] "{tilt1, tilt2, psi} of wheel b";
  Real TA[3, 3] "Tilted, non-spinning frame of wheel a (columns)";
  Real TB[3, 3] "Tilted, non-spinning frame of wheel b (columns)";
  SI.Length cA "Centre line rB - rA along the tilted e1 of a";
  SI.Length sA "Centre line rB - rA along the tilted e2 of a";
  SI.Angle betaHat(start = betaA0, fixed = true) "Unwrapped angle of the centre line in the tilted frame of a (state)";
  SI.Angle dBeta "Wrapped correction of betaHat";
  SI.Angle betaA "Unwrapped angle of e1ref_a in the tilted frame of a";
  output SI.Angle gammaA "Rotation angle gamma_a of eq. 6, unwrapped (from e1 of a to e1ref_a)";
  output SI.Angle gammaB "Rotation angle gamma_b of eq. 7";
  Real e1refA[3] "Reference contact direction of a (eq. 5)";
  Real e2refA[3] "e3_a x e1ref_a";
  Real e3a[3] "Current axis of a";
  Real e1refB[3] "Reference contact direction of b (eq. 8)";
  Real n[3] "Tooth normal (eq. 12)";
  SI.Length du[3] "Elastic mismatch of the reference points (eq. 9)";
  SI.Velocity vrefA[3] "Velocity of the reference point of a (eq. 19)";
  SI.Velocity vrefB[3] "Velocity of the reference point of b (eq. 19)";
  SI.Velocity vs[3] "Relative (sliding) velocity vrefB - vrefA (eq. 20)";
  SI.Velocity vt[3] "Sliding velocity in the tooth plane";
  output SI.Length dxError "Manufacturing error dx_error (eq. 15)";
  output SI.Length ds "Transmission error / mesh compression (eq. 14; > b/2: drive flank in contact, < -b/2: back flank)";
  output SI.Length te "Loaded transmission error of the wheel bodies along the normal, -n.du (= ds - dxError + hWear)";
  output SI.Velocity dsDot "Approach velocity along the normal (eq. 21)";
  output SI.Angle meshPhase "Mesh phase zA*(gammaA0 - gammaA) (2*pi per tooth)";
  output SI.TranslationalSpringConstant k "Current mesh stiffness";
  output Boolean contactDrive "Drive flank in contact (ds > b/2)";
  output Boolean contactBack "Back flank in contact (ds < -b/2)";
  output SI.Force Fn "Normal mesh force on wheel b along n (signed: > 0 drive flank, < 0 back flank; eq. 18 + 22)";
  output SI.Force Ftan "Transmitted tangential component Fn*(n.e2ref) at the pitch circle";
  output SI.Force Ffr[3] "Friction force on wheel b (eq. 26)";
  SI.Force Fb[3] "Total mesh force on wheel b (on a: -Fb)";
protected
  final parameter Real e2A[3] = cross(e3A, e1A) "Nominal e2 of a";
  final parameter Real e2B[3] = cross(e3B, e1B) "Nominal e2 of b";
  final parameter Real EA[3, 3] = transpose({e1A, e2A, e3A}) "Nominal frame of a";
  final parameter Real EB[3, 3] = transpose({e1B, e2B, e3B}) "Nominal frame of b";
  final parameter SI.Angle betaA0 = atan2(e2A*(rB0 - rA0), e1A*(rB0 - rA0)) "Initial angle of the centre line in a";
  final parameter SI.Angle gammaA0 = betaA0 "gamma_a at the start (unrotated wheels)";
  final parameter SI.Position P0[3] = rA0 + rhoA*(cos(betaA0)*e1A + sin(betaA0)*e2A) "Initial pitch point";
  final parameter SI.Angle gammaB0 = atan2(e2B*(P0 - rB0), e1B*(P0 - rB0)) "Angle of the initial pitch point in b";
  final parameter Real ratio = if internal then rhoA/rhoB else -rhoA/rhoB "gamma_b/gamma_a (eq. 7a/7b)";
  final parameter SI.Angle alphaEff = if internal then -alpha else alpha "Pressure angle with the sign of the radial force (internal: towards the ring)";
  final parameter Real f1 = cos(gammaCone)*sin(alphaEff) - cos(alphaEff)*sin(beta)*sin(gammaCone) "eq. 13";
  final parameter Real f2 = cos(alphaEff)*cos(beta) "eq. 13";
  final parameter Real f3 = cos(alphaEff)*cos(gammaCone)*sin(beta) + sin(alphaEff)*sin(gammaCone) "eq. 13";
  final parameter SI.TranslationalSpringConstant kMean = if variableStiffness then stiffness.kMean else k_m "Mean mesh stiffness over a mesh cycle";
  final parameter SI.TranslationalDampingConstant bm = 2*chi*sqrt(kMean*IA*IB/(IA*rhoB^2 + IB*rhoA^2)) "Mesh damping coefficient (eq. 23)";
equation
  rA = rA0 + hubA.u;
  rB = rB0 + hubB.u;
  qA = transpose(EA)*hubA.phi;
  qB = transpose(EB)*hubB.phi;
  TA = EA*{{1, 0, 0}, {0, cos(qA[1]), -sin(qA[1])}, {0, sin(qA[1]), cos(qA[1])}}*{{cos(qA[2]), 0, sin(qA[2])}, {0, 1, 0}, {-sin(qA[2]), 0, cos(qA[2])}};
  TB = EB*{{1, 0, 0}, {0, cos(qB[1]), -sin(qB[1])}, {0, sin(qB[1]), cos(qB[1])}}*{{cos(qB[2]), 0, sin(qB[2])}, {0, 1, 0}, {-sin(qB[2]), 0, cos(qB[2])}};
  e3a = TA[:, 3];
  // eq. 5: centre line projected on the plane of a; its angle unwrapped with the state betaHat
  cA = TA[:, 1]*(rB - rA);
  sA = TA[:, 2]*(rB - rA);
  dBeta = atan2(sA*cos(betaHat) - cA*sin(betaHat), cA*cos(betaHat) + sA*sin(betaHat));
  betaA = betaHat + dBeta;
  der(betaHat) = (cA*(TA[:, 2]*(hubB.v - hubA.v)) - sA*(TA[:, 1]*(hubB.v - hubA.v)))/(cA^2 + sA^2) + dBeta/tauBeta;
  e1refA = (cA*TA[:, 1] + sA*TA[:, 2])/sqrt(cA^2 + sA^2);
  e2refA = cross(e3a, e1refA);
  // eq. 6-8: gamma_a = beta_a - psi_a (exact for the Rx*Ry*Rz parametrisation), gamma_b from eq. 7
  gammaA = betaA - qA[3];
  gammaB = gammaB0 + ratio*(gammaA - gammaA0);
  e1refB = TB*{cos(qB[3] + gammaB), sin(qB[3] + gammaB), 0};
  // eq. 9-15
  du = (rB + rhoB*e1refB) - (rA + rhoA*e1refA);
  n = f1*e1refA + f2*e2refA + f3*e3a;
  meshPhase = zA*(gammaA0 - gammaA);
  dxError = X*(1 - cos(meshPhase));
  te = -(n*du);
  ds = te + dxError - hWear;
  // eq. 19-21
  vrefA = hubA.v + rhoA*cross(hubA.w, e1refA);
  vrefB = hubB.v + rhoB*cross(hubB.w, e1refB);
  vs = vrefB - vrefA;
  dsDot = -(n*vs);
  vt = vs - (n*vs)*n;
  // stiffness: constant, or the periodic law (default: smoothed single/double tooth-pair alternation)
  k = if variableStiffness then stiffness.k else k_m;
  // eq. 16-18 (dead zone) and 22 (damping only in contact); the two relations are the events of the mesh
  contactDrive = ds > b/2;
  contactBack = ds < -b/2;
  Fn = if contactDrive then k*(ds - b/2) + bm*dsDot else if contactBack then k*(ds + b/2) + bm*dsDot else 0;
  Ftan = f2*Fn;
  // eq. 26: friction opposite to the sliding velocity in the tooth plane (regularised at zero slip)
  Ffr = -mu*abs(Fn)*vt/sqrt(vt*vt + vReg^2);
  Fb = Fn*n + Ffr;
  // loads: +Fb on b at its reference point, -Fb on a at its reference point (flows = minus the loads)
  hubB.f = -Fb;
  hubA.f = Fb;
  hubB.t = -cross(rhoB*e1refB, Fb);
  hubA.t = cross(rhoA*e1refA, Fb);
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-90, 60}, {10, -40}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{10, 40}, {80, -30}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-30, -40}, {50, 40}}, color = {255, 0, 0}, thickness = 0.5),
      Ellipse(extent = {{5, 15}, {15, 5}}, lineColor = {255, 0, 0}, fillColor = {255, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Mesh force element of the spatial gear pair (seed 003 (docs/physics/gears.md); Popov, Sorokin, Ivannikov,
Degtyar&euml;v 2020 after Cardona 1995). Massless: the 12 DOF belong to the two
<a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>s whose hubs it connects
(<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> assembles the three). Wheel a is the larger
wheel (the ring of an internal mesh).</p>
<h4>Equations</h4>
<ul>
<li>eq. 5: e1ref<sub>a</sub> = E<sub>0</sub>(r<sub>b</sub>-r<sub>a</sub>)/|E<sub>0</sub>(r<sub>b</sub>-r<sub>a</sub>)|, projection on the (tilted) plane of a.</li>
<li>eq. 6: cos&gamma;<sub>a</sub> = e1ref<sub>a</sub>&middot;e1<sub>a</sub>, sin&gamma;<sub>a</sub> = e1ref<sub>a</sub>&middot;e2<sub>a</sub>. With the wheel rotation
R<sub>x</sub>R<sub>y</sub>R<sub>z</sub>(&psi;) this is exactly &gamma;<sub>a</sub> = &beta;<sub>a</sub> - &psi;<sub>a</sub>, &beta;<sub>a</sub> the angle of the centre line in the tilted,
non-spinning frame of a. &psi;<sub>a</sub> is unbounded (wheel state); &beta;<sub>a</sub> is unwrapped by the state
<code>betaHat</code>: d&beta;&#770;/dt = d&beta;/dt (from the centre velocities) + &Delta;&beta;/&tau;, &beta; = &beta;&#770; + &Delta;&beta;,
&Delta;&beta; = atan2 of the centre line in the frame rotated by &beta;&#770; (a small angle, never wrapped). This makes
&gamma;<sub>a</sub> continuous also when the centre line orbits (sun and ring of a planetary stage).</li>
<li>eq. 7: &gamma;<sub>b</sub> = &gamma;<sub>b0</sub> &#8723; (&rho;<sub>a</sub>/&rho;<sub>b</sub>)(&gamma;<sub>a</sub> - &gamma;<sub>a0</sub>) (- external, + internal);
&gamma;<sub>a0</sub>, &gamma;<sub>b0</sub> are the angles of the initial pitch point in the nominal frames of a and b, so that a wheel's
own e1 need not point at the pitch point (a planet meshes with sun and ring).
eq. 8: e1ref<sub>b</sub> = e1<sub>b</sub>cos&gamma;<sub>b</sub> + e2<sub>b</sub>sin&gamma;<sub>b</sub>.</li>
<li>eq. 9: &Delta;u = (r<sub>b</sub>+&rho;<sub>b</sub>e1ref<sub>b</sub>) - (r<sub>a</sub>+&rho;<sub>a</sub>e1ref<sub>a</sub>).
eq. 12-13: n = f<sub>1</sub>e1ref<sub>a</sub> + f<sub>2</sub>e2ref<sub>a</sub> + f<sub>3</sub>e3<sub>a</sub>,
f<sub>1</sub> = cos&gamma; sin&alpha; - cos&alpha; sin&beta; sin&gamma;, f<sub>2</sub> = cos&alpha; cos&beta;,
f<sub>3</sub> = cos&alpha; cos&gamma; sin&beta; + sin&alpha; sin&gamma;.</li>
<li>eq. 14-15: &Delta;s = -n&middot;&Delta;u + X(1 - cos(z<sub>a</sub>(&gamma;<sub>a0</sub>-&gamma;<sub>a</sub>))) - h<sub>wear</sub>; the input
<code>hWear</code> (default 0) is the wear depth of the drive flank at the contact point (material removed: the
compression drops by h, i.e. the backlash of the drive flank grows by h; see
<a href=\"modelica://WearCosim.Examples.Gears.GearWear\">Examples.Gears.GearWear</a>). <code>te</code> = -n&middot;&Delta;u is the
loaded transmission error of the wheel bodies.</li>
<li>eq. 16-18: F<sub>el</sub> = k(&Delta;s - b/2) for &Delta;s &gt; b/2, 0 in the dead zone, k(&Delta;s + b/2) for &Delta;s &lt; -b/2.</li>
<li>eq. 19-23: damping b<sub>m</sub>&middot;d&Delta;s/dt only in contact, d&Delta;s/dt = -n&middot;(v<sub>ref,b</sub> - v<sub>ref,a</sub>),
b<sub>m</sub> = 2&chi;(k<sub>mean</sub>I<sub>a</sub>I<sub>b</sub>/(I<sub>a</sub>&rho;<sub>b</sub><sup>2</sup> + I<sub>b</sub>&rho;<sub>a</sub><sup>2</sup>))<sup>1/2</sup> (eq. 23 as in docs/physics/gears.md).</li>
<li>eq. 26: F<sub>fr</sub> = -&mu;|F<sub>n</sub>|v<sub>t</sub>/(|v<sub>t</sub>|<sup>2</sup>+v<sub>reg</sub><sup>2</sup>)<sup>1/2</sup>, v<sub>t</sub> = (E - nn)&middot;v<sub>s</sub>.</li>
<li>Loads: <b>F</b><sub>b</sub> = F<sub>n</sub>n + F<sub>fr</sub> on b at r<sub>b</sub>+&rho;<sub>b</sub>e1ref<sub>b</sub>, -<b>F</b><sub>b</sub> on a at
r<sub>a</sub>+&rho;<sub>a</sub>e1ref<sub>a</sub> (the virtual work of the elastic force is -F<sub>el</sub>&delta;&Delta;s to first order, i.e.
the forces of eq. 24 at the reference configuration; the paper differentiates U numerically).</li>
</ul>
<h4>Conventions and simplifications</h4>
<ul>
<li>Sign: &Delta;s &gt; 0 (F<sub>n</sub> &gt; 0) is the drive flank, i.e. wheel a turning positively about e3<sub>a</sub> pushes b;
the paper's n is only defined up to sign, we write &Delta;s = -n&middot;&Delta;u so that F<sub>n</sub> and eq. 27 have the same sign.</li>
<li>Axes: spur/helical (external or internal) wheels have e3<sub>a</sub> = e3<sub>b</sub>; bevel wheels have both axes pointing
towards the common cone apex (this makes eq. 7a hold for every external mesh).</li>
<li>Internal mesh: the radial component of the tooth force points towards the ring (outwards on the planet's
centre line): &alpha; enters eq. 13 with the opposite sign.</li>
<li>Variable stiffness (<code>variableStiffness</code>, a run-time parameter): k from the replaceable law <code>Stiffness</code>
(<a href=\"modelica://WearCosim.Gears.StiffnessLaws\">StiffnessLaws</a>), by default
<a href=\"modelica://WearCosim.Gears.StiffnessLaws.SmoothedRectangle\">SmoothedRectangle</a>: k = k<sub>single</sub> + (k<sub>double</sub>-k<sub>single</sub>)w(&phi;<sub>m</sub>),
w = &frac12;[1 + tanh(&sigma;(cos(&phi;<sub>m</sub> - &pi;(&epsilon;<sub>&alpha;</sub>-1)) - cos(&pi;(&epsilon;<sub>&alpha;</sub>-1))))]: a rectangle wave
(double pair on a fraction &epsilon;<sub>&alpha;</sub>-1 of each mesh period, starting when a pair enters) smoothed by
&sigma; = <code>sharpness</code> (continuous for the solver, periodic without any wrap). k<sub>mean</sub> = k<sub>single</sub> +
(k<sub>double</sub>-k<sub>single</sub>)(&epsilon;<sub>&alpha;</sub>-1) (sharp limit) enters eq. 23.</li>
<li>The error and stiffness phase is &phi;<sub>m</sub> = z<sub>a</sub>(&gamma;<sub>a0</sub>-&gamma;<sub>a</sub>) (= z<sub>a</sub>&psi;<sub>a</sub> for fixed centres).</li>
<li>Events: only the two contact relations &Delta;s &gt; b/2 and &Delta;s &lt; -b/2 (kinks of eq. 18 and the switch of the damping).</li>
<li><code>tauBeta</code> (0.01 s) only pulls the unwrapping state onto the wrapped angle against integration drift;
it does not change &beta;, which is exact as long as the drift stays below &pi;.</li>
</ul>
</html>"));
end GearMesh;
