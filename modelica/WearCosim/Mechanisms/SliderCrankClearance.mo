within WearCosim.Mechanisms;
model SliderCrankClearance "Slider-crank (Flores-Ambrosio benchmark) with a revolute clearance joint between connecting rod and slider"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseSliderCrankClearance;
  extends WearCosim.Interfaces.WearSurface(R_journal = 0.01, c = 0.5e-3, L = 0.04);
  // ---------------------------------------------------------------- joint materials and laws
  parameter SI.ModulusOfElasticity E = 207e9 "Young's modulus of journal and bearing (steel)";
  parameter SI.PoissonNumber nu = 0.3 "Poisson's ratio of journal and bearing";
  parameter Real cr = 0.9 "Coefficient of restitution";
  parameter Real mu_d = 0.01 "Dynamic friction coefficient";
  parameter SI.Velocity v0 = 1e-4 "Ambrosio friction: lower slip-speed bound";
  parameter SI.Velocity v1 = 1e-2 "Ambrosio friction: upper slip-speed bound";
  parameter Boolean lubricated = false "true: lubricated joint (Flores hybrid); false: dry, a run-time switch of the FMU" annotation (Evaluate = false);
  parameter SI.DynamicViscosity mu_oil = 0.4 "Oil dynamic viscosity";
  parameter Real epsMax = 0.99 "Cap of the eccentricity ratio in the film forces";
  parameter SI.Length e0 = 0.05*c "Width of the lubricated-to-dry transition band";
  output SI.Force Fjoint "Magnitude of the total joint force";
  replaceable model NormalForce = WearCosim.Joints.ContactLaws.Flores constrainedby WearCosim.Joints.ContactLaws.PartialNormalForce
    "Normal force law of the joint's dry contact (default: Flores)" annotation (choicesAllMatching = true);
  WearCosim.Joints.RevoluteClearance joint(redeclare final model NormalForce = NormalForce, final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L,
    final E_bearing = E, final nu_bearing = nu, final E_journal = E, final nu_journal = nu, final cr = cr,
    final mu_d = mu_d, final v0 = v0, final v1 = v1, final lubricated = lubricated, final mu_oil = mu_oil,
    final epsMax = epsMax, final e0 = e0,
    wearDepth = wearDepth, rB = {x3, 0}, vB = {v3, 0}, phiB = 0, wB = 0, rJ = rJournal, vJ = vJournal, wJ = w2)
    "Clearance joint: journal on the connecting rod, bearing (worn) in the slider";
equation
  // loads of the joint on the bodies of the mechanism
  FJournal = joint.F;
  tauJournal = joint.tauJ;
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
<p>The classic slider-crank benchmark of the clearance-joint literature (docs/physics/mechanisms.md) with the
clearance between connecting rod (journal) and slider (bearing, the worn body; it translates
without rotating, so the bearing frame is the global frame).</p>
<p>The bodies and their equations of motion are those of
<a href=\"modelica://WearCosim.Mechanisms.BaseSliderCrankClearance\">BaseSliderCrankClearance</a>, shared with the
component <a href=\"modelica://WearCosim.Components.Mechanisms.SliderCrankBody\">Components.Mechanisms.SliderCrankBody</a>;
this model binds their joint loads to the <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a>
<code>joint</code> (F on the journal, tauJ on the rod) and the joint's kinematic inputs to the bodies.</p>
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
