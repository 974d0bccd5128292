within WearCosim.Mechanisms;
model SliderCrankClearance "Slider-crank (Flores-Ambrosio benchmark) with a revolute clearance joint between connecting rod and slider"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Interfaces.WearSurface(R_journal = 0.01, c = 0.5e-3, L = 0.04);
  // ---------------------------------------------------------------- benchmark data (Flores & Ambrosio 2004)
  parameter SI.Length r = 0.05 "Crank length";
  parameter SI.Length l = 0.12 "Connecting-rod length (crank pin to journal centre)";
  parameter SI.Mass m1 = 0.30 "Crank mass (prescribed motion: not used by the dynamics)";
  parameter SI.Mass m2 = 0.21 "Connecting-rod mass (centre of mass at l/2)";
  parameter SI.Mass m3 = 0.14 "Slider mass";
  parameter SI.Inertia J1 = 1e-5 "Crank moment of inertia (prescribed motion: not used)";
  parameter SI.Inertia J2 = 2.5e-4 "Connecting-rod moment of inertia about its centre of mass";
  parameter SI.Inertia J3 = 1e-4 "Slider moment of inertia (the slider does not rotate: not used)";
  parameter SI.AngularVelocity omega = 5000*2*3.141592653589793/60 "Constant crank speed (5000 rpm)";
  parameter SI.Angle phi0 = 0 "Crank angle at t = 0 (0: top dead centre, slider farthest out)";
  parameter SI.Acceleration g = 9.81 "Gravity along -y (in the mechanism plane)";
  // ---------------------------------------------------------------- joint materials and laws
  parameter SI.ModulusOfElasticity E = 207e9 "Young's modulus of journal and bearing (steel)";
  parameter SI.PoissonNumber nu = 0.3 "Poisson's ratio of journal and bearing";
  parameter Real cr = 0.9 "Coefficient of restitution";
  parameter Real mu_d = 0.01 "Dynamic friction coefficient";
  parameter SI.Velocity v0 = 1e-4 "Ambrosio friction: lower slip-speed bound";
  parameter SI.Velocity v1 = 1e-2 "Ambrosio friction: upper slip-speed bound";
  parameter Boolean lubricated = false "true: lubricated joint (Flores hybrid); false: dry";
  parameter SI.DynamicViscosity mu_oil = 0.4 "Oil dynamic viscosity";
  parameter Real epsMax = 0.99 "Cap of the eccentricity ratio in the film forces";
  parameter SI.Length e0 = 0.05*c "Width of the lubricated-to-dry transition band";
  // ---------------------------------------------------------------- states
  SI.Angle phi2(start = phi2Start, fixed = true) "Connecting-rod angle (from the x axis)";
  SI.AngularVelocity w2(start = w2Start, fixed = true) "Connecting-rod angular velocity";
  SI.Position x3(start = x3Start, fixed = true) "Slider position (bearing centre on the x axis)";
  SI.Velocity v3(start = 0, fixed = true) "Slider velocity (0 at the start, crank at phi0 = 0)";
  // ---------------------------------------------------------------- kinematics and outputs
  SI.Angle phi1 "Crank angle (prescribed)";
  SI.Position rCrankPin[2] "Crank pin (rod end B)";
  SI.Velocity vCrankPin[2] "Velocity of the crank pin";
  SI.Acceleration aCrankPin[2] "Acceleration of the crank pin";
  SI.Position rJournal[2] "Journal centre (rod end C)";
  SI.Velocity vJournal[2] "Velocity of the journal centre";
  output SI.Acceleration aSlider "Slider acceleration";
  output SI.Position ex "Journal centre relative to the bearing centre, x (orbit)";
  output SI.Position ey "Journal centre relative to the bearing centre, y (orbit)";
  output SI.Force Fjoint "Magnitude of the total joint force";
  WearCosim.Joints.RevoluteClearance joint(final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L,
    final E_bearing = E, final nu_bearing = nu, final E_journal = E, final nu_journal = nu, final cr = cr,
    final mu_d = mu_d, final v0 = v0, final v1 = v1, final lubricated = lubricated, final mu_oil = mu_oil,
    final epsMax = epsMax, final e0 = e0,
    wearDepth = wearDepth, rB = {x3, 0}, vB = {v3, 0}, phiB = 0, wB = 0, rJ = rJournal, vJ = vJournal, wJ = w2)
    "Clearance joint: journal on the connecting rod, bearing (worn) in the slider";
protected
  final parameter SI.Angle phi2Start = asin(-r/l*sin(phi0)) "Ideal rod angle at t = 0";
  final parameter SI.AngularVelocity w2Start = -r/l*omega*cos(phi0)/cos(phi2Start) "Ideal rod angular velocity at t = 0";
  final parameter SI.Position x3Start = r*cos(phi0) + l*cos(phi2Start) "Ideal slider position at t = 0 (journal centred)";
  final parameter SI.Inertia JB = J2 + m2*l^2/4 "Rod inertia about the crank pin";
equation
  phi1 = phi0 + omega*time;
  rCrankPin = r*{cos(phi1), sin(phi1)};
  vCrankPin = r*omega*{-sin(phi1), cos(phi1)};
  aCrankPin = -r*omega^2*{cos(phi1), sin(phi1)};
  rJournal = rCrankPin + l*{cos(phi2), sin(phi2)};
  vJournal = vCrankPin + l*w2*{-sin(phi2), cos(phi2)};
  // Lagrange equation of the rod (coordinate phi2, crank pin prescribed)
  der(phi2) = w2;
  JB*der(w2) = -m2*l/2*({-sin(phi2), cos(phi2)}*aCrankPin) - m2*g*l/2*cos(phi2) + l*({-sin(phi2), cos(phi2)}*joint.F) + joint.tauJ;
  // slider on a frictionless horizontal guide: reaction of the journal force
  der(x3) = v3;
  der(v3) = aSlider;
  m3*aSlider = -joint.F[1];
  ex = rJournal[1] - x3;
  ey = rJournal[2];
  Fjoint = sqrt(joint.F[1]^2 + joint.F[2]^2);
  // wear interface at the top level
  Fn = joint.Fn;
  Ft = joint.Ft;
  delta = joint.delta;
  theta = joint.theta;
  vSlip = joint.vSlip;
  halfWidth = joint.halfWidth;
  inContact = joint.inContact;
  annotation (Documentation(info = "<html>
<p>The classic slider-crank benchmark of the clearance-joint literature (SPEC 2.2) with the
clearance between connecting rod (journal) and slider (bearing, the worn body; it translates
without rotating, so the bearing frame is the global frame).</p>
<h4>Equations</h4>
<p>Crank at constant speed, &phi;<sub>1</sub> = &phi;<sub>0</sub> + &omega;t (prescribed, no state).
Crank pin B = r(cos&phi;<sub>1</sub>, sin&phi;<sub>1</sub>), ideal revolute at B. Free coordinates: rod angle
&phi;<sub>2</sub> and slider position x<sub>3</sub> (4 states). Journal centre C = B + l(cos&phi;<sub>2</sub>, sin&phi;<sub>2</sub>),
bearing centre (x<sub>3</sub>, 0). Lagrange:</p>
<pre>
  (J2 + m2 l^2/4) phi2'' = -m2 l/2 u'(phi2).a_B - m2 g l/2 cos(phi2) + l u'(phi2).F + tauJ
  m3 x3'' = -F_x          (frictionless guide; F = joint force on the journal)
</pre>
<p>with u'(&phi;) = (-sin&phi;, cos&phi;). Initial state: the ideal mechanism's position and velocity at
&phi;<sub>0</sub>, journal centred in the bearing (as in Flores &amp; Ambr&oacute;sio).</p>
<h4>Parameters and provenance</h4>
<p>Crank 0.05 m, rod 0.12 m; masses 0.30/0.21/0.14 kg; inertias 1e-5/2.5e-4/1e-4 kg&middot;m&sup2;;
journal radius 10 mm, clearance 0.5 mm (bearing 10.5 mm); E = 207 GPa, &nu; = 0.3, c<sub>r</sub> = 0.9,
crank 5000 rpm: P. Flores, J. Ambr&oacute;sio, <i>Revolute joints with clearance in multibody systems</i>,
Computers &amp; Structures 82 (2004) 1359-1369, and the book of Flores et al. (Springer 2008), as
reproduced in later papers (e.g. Zheng, Zhang, Wang, Appl. Math. Mech. 39 (2018) 1239). Some
reproductions quote bearing 10.0 mm / journal 9.5 mm for the same 0.5 mm clearance; this changes K by
about 2.5 %. Friction &mu;<sub>d</sub> = 0.01, v<sub>0</sub> = 0.1 mm/s, v<sub>1</sub> = 10 mm/s as in Flores &amp; Ambr&oacute;sio 2004
(not re-checked against the original here). Lubricated variant: oil 0.4 Pa&middot;s (seed 002) and bearing length
L = 40 mm (L/D = 2, the limit of the long-bearing approximation quoted by the seed; our choice).
Crank and slider inertias and the crank mass do not enter (prescribed crank, non-rotating slider);
they are kept for completeness. Gravity (-y) is included; at 5000 rpm it is negligible.</p>
</html>"));
end SliderCrankClearance;
