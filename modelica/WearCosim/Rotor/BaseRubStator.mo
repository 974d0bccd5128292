within WearCosim.Rotor;
partial model BaseRubStator "Rub contact and rigid or elastic stator with the wear interface at the top level; the rotor's rub-node motion is a plain variable set by the extending model"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Interfaces.WearSurface(R_journal = 0.075, c = 0.2e-3, L = 0.02, nSectors = 36);
  // ---------------------------------------------------------------- contact
  parameter SI.TranslationalSpringConstant k_c(min = 0) = 2e7 "Contact (penalty) stiffness";
  parameter SI.TranslationalDampingConstant c_c(min = 0) = 200 "Contact damping";
  parameter Real mu(min = 0) = 0.1 "Friction coefficient rotor/stator";
  parameter SI.Velocity vEps(min = 1e-9) = 1e-3 "Friction regularisation velocity";
  parameter SI.ModulusOfElasticity E_rotor = 211e9 "Young's modulus of the disk";
  parameter SI.PoissonNumber nu_rotor = 0.3 "Poisson's ratio of the disk";
  parameter SI.ModulusOfElasticity E_stator = 211e9 "Young's modulus of the stator";
  parameter SI.PoissonNumber nu_stator = 0.3 "Poisson's ratio of the stator";
  // ---------------------------------------------------------------- stator
  parameter SI.Position statorOffset[2] = {0, 0} "Position of the stator centre relative to the bearing axis (misalignment)";
  parameter Boolean elasticStator = false "true: stator is a mass-spring-damper; false: rigid, fixed at statorOffset; a run-time switch of the FMU" annotation (Evaluate = false);
  parameter SI.Mass mStator = 5 "Stator mass (elastic stator)";
  parameter SI.TranslationalSpringConstant kStator = 5e7 "Stator support stiffness (elastic stator)";
  parameter SI.TranslationalDampingConstant cStator = 1000 "Stator support damping (elastic stator)";
  // ---------------------------------------------------------------- components
  replaceable model NormalForce = WearCosim.Rotor.RubLaws.KelvinVoigt constrainedby WearCosim.Rotor.RubLaws.PartialNormalForce
    "Normal force law of the rub (default: Kelvin-Voigt penalty)" annotation (choicesAllMatching = true);
  WearCosim.Rotor.RubContact contact(redeclare final model NormalForce = NormalForce, final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L,
    final k_c = k_c, final c_c = c_c, final mu = mu, final vEps = vEps, final E_rotor = E_rotor, final nu_rotor = nu_rotor,
    final E_stator = E_stator, final nu_stator = nu_stator,
    wearDepth = wearDepth, rR = rRub, vR = vRub, rS = rS, vS = vS, Omega = OmegaRub) "Rub contact at the rub node";
  // ---------------------------------------------------------------- outputs
  output SI.Position x "Rub-node displacement x relative to the stator centre (orbit)";
  output SI.Position y "Rub-node displacement y relative to the stator centre (orbit)";
  output SI.Length whirlRadius "Distance of the rub node from the stator centre";
  output SI.AngularVelocity whirlRate "Whirl angular velocity of the rub node about the stator centre (> 0 forward, < 0 backward)";
  SI.Position rS[2](start = statorOffset, each fixed = true) "Stator centre";
  SI.Velocity vS[2](each start = 0, each fixed = true) "Stator centre velocity";
  SI.Position rRub[2] "Displacement (x, y) of the rotor's rub node from the bearing axis (set by the extending model)";
  SI.Velocity vRub[2] "Velocity (x, y) of the rotor's rub node (set by the extending model)";
  SI.AngularVelocity OmegaRub "Spin speed of the rotor (set by the extending model)";
equation
  der(rS) = vS;
  if elasticStator then
    mStator*der(vS) = -kStator*(rS - statorOffset) - cStator*vS - contact.F;
  else
    der(vS) = zeros(2);
  end if;
  x = rRub[1] - rS[1];
  y = rRub[2] - rS[2];
  whirlRadius = sqrt(x^2 + y^2 + contact.eReg^2);
  whirlRate = (x*(vRub[2] - vS[2]) - y*(vRub[1] - vS[1]))/whirlRadius^2;
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
      Ellipse(extent = {{-40, 60}, {60, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{22, 52}, {34, 40}}, lineColor = {255, 0, 0}, fillColor = {255, 0, 0}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-10, 10}, {10, -10}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>The stator side of the rub system of seed 004 (docs/physics/rotor.md), shared by the monolithic
<a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">RotorStatorRub</a> (which binds the rub-node variables
<code>rRub, vRub, OmegaRub</code> to its finite-element rotor) and the force-element component
<a href=\"modelica://WearCosim.Components.Rotor.RubStator\">Components.Rotor.RubStator</a> (which binds them to its
inputs): a <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a> between the rub node and the stator, which is
rigid and fixed at <code>statorOffset</code>, or, with <code>elasticStator = true</code> (a run-time parameter of the FMU), a mass-spring-damper
(m<sub>s</sub>, k<sub>s</sub>, c<sub>s</sub>) in both lateral directions that receives the reaction -F (<code>contact.F</code> is
the force on the rotor).</p>
<p>The wear interface (<code>wearDepth[nSectors]</code> inputs, <code>Fn, Ft, delta, theta, vSlip, halfWidth,
inContact</code> outputs, <code>R_bearing</code> = stator radius, <code>L</code> = axial rub length) is at the top level.
The stator does not rotate: sector i is centred at (i - 1/2)&middot;2&pi;/n from the global x axis. Orbit outputs:
the rub-node position relative to the stator centre (x, y), its whirl radius and whirl rate (forward &gt; 0).</p>
</html>"));
end BaseRubStator;
