within WearCosim.Rotor;
model RotorStatorRub "Finite-element rotor rubbing on a (worn, optionally elastic) stator at one node; wear interface at the top level"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Rotor.BaseRubStator;
  WearCosim.Rotor.FiniteElementRotor rotor(Fext = contact.F) "Finite-element rotor; the rub force acts on node rotor.forceNode";
  output SI.AngularVelocity Omega "Spin speed";
equation
  rRub = rotor.rNode;
  vRub = rotor.vNode;
  OmegaRub = rotor.Omega;
  Omega = rotor.Omega;
  annotation (Documentation(info = "<html>
<p>The rotor-stator rub system of seed 004 (docs/physics/rotor.md): a
<a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a> whose node
<code>rotor.forceNode</code> (a disk or a seal node) meets the stator through a
<a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>. The stator is rigid and fixed at
<code>statorOffset</code> (a misaligned seal: partial rub on one side), or, with
<code>elasticStator = true</code>, a mass-spring-damper (m<sub>s</sub>, k<sub>s</sub>, c<sub>s</sub>) in both lateral directions
that receives the reaction -F. Contact, stator and outputs are those of
<a href=\"modelica://WearCosim.Rotor.BaseRubStator\">BaseRubStator</a> (shared with the force-element component
<a href=\"modelica://WearCosim.Components.Rotor.RubStator\">Components.Rotor.RubStator</a>); this model adds the rotor.</p>
<p>The wear interface (<code>wearDepth[nSectors]</code> inputs, <code>Fn, Ft, delta, theta, vSlip, halfWidth,
inContact</code> outputs, <code>R_bearing</code> = stator radius, <code>L</code> = axial rub length) is at the top level,
so the wear master drives the stator wear like a bearing's. The stator does not rotate: sector i is centred at
(i - 1/2)&middot;2&pi;/n from the global x axis.</p>
<p>Outputs for orbit plots and studies: the rub-node position relative to the stator centre (x, y), its
whirl radius and whirl rate (forward &gt; 0, backward &lt; 0), the spin speed.</p>
</html>"));
end RotorStatorRub;
