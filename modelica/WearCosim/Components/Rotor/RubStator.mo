within WearCosim.Components.Rotor;
model RubStator "Rotor-stator rub contact with a rigid or elastic stator: rub-node kinematics and spin in, contact force on the rotor out; stator wear interface at the top level"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Rotor.BaseRubStator(statorOffset = {0, -0.12e-3});
  input SI.Position rR[2] "Displacement (x, y) of the rotor's rub node from the bearing axis";
  input SI.Velocity vR[2] "Velocity (x, y) of the rotor's rub node";
  input SI.AngularVelocity Omega "Spin speed of the rotor";
  output SI.Force F[2] "Contact force (x, y) on the rotor at the rub node (the stator receives -F)";
equation
  rRub = rR;
  vRub = vR;
  OmegaRub = Omega;
  F = contact.F;
  annotation (experiment(StopTime = 1.5, Interval = 2e-4, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>The contact and stator of <a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">Rotor.RotorStatorRub</a> as a force
element (both extend <a href=\"modelica://WearCosim.Rotor.BaseRubStator\">Rotor.BaseRubStator</a>; here the rub-node
motion comes from the inputs): <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a> (penalty normal force with contact damping,
regularised Coulomb friction, worn stator bore) between the rotor's rub node (inputs) and the stator, which is rigid
and fixed at <code>statorOffset</code> or, with <code>elasticStator = true</code> (a run-time parameter of the FMU), a mass-spring-damper
(mStator, kStator, cStator) in x and y that receives -F. The rotor is a separate body model, e.g.
<a href=\"modelica://WearCosim.Components.Rotor.TwoDiskRotor\">TwoDiskRotor</a> (connect rR = rNode, vR = vNode,
Omega = Omega, Fext = F). The defaults are those of
<a href=\"modelica://WearCosim.Examples.Rotor.TwoDiskRub\">Examples.Rotor.TwoDiskRub</a> (disk rim R = 75 mm, clearance
0.2 mm, 20 mm rub length, 36 sectors, k<sub>c</sub> = 2&middot;10<sup>7</sup> N/m, c<sub>c</sub> = 200 N s/m, &mu; = 0.1,
stator 0.12 mm below the bearing axis).</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>rR[2]</td><td>input</td><td>m</td><td>displacement (x, y) of the rotor's rub node from the bearing axis</td></tr>
<tr><td>vR[2]</td><td>input</td><td>m/s</td><td>velocity of the rub node</td></tr>
<tr><td>Omega</td><td>input</td><td>rad/s</td><td>spin speed of the rotor</td></tr>
<tr><td>wearDepth[nSectors]</td><td>input (start 0)</td><td>m</td><td>wear depth of the stator bore, sector i centred at (i-&frac12;)&middot;2&pi;/nSectors from the global x axis</td></tr>
<tr><td>F[2]</td><td>output</td><td>N</td><td>contact force (x, y) on the rotor</td></tr>
<tr><td>Fn, Ft</td><td>output</td><td>N</td><td>wear interface: normal force (&ge; 0), friction force along t</td></tr>
<tr><td>delta</td><td>output</td><td>m</td><td>wear interface: penetration (&gt; 0 in contact)</td></tr>
<tr><td>theta</td><td>output</td><td>rad</td><td>wear interface: contact angle in the stator frame</td></tr>
<tr><td>vSlip</td><td>output</td><td>m/s</td><td>wear interface: slip velocity R&Omega; + t&middot;(v<sub>R</sub> - v<sub>S</sub>)</td></tr>
<tr><td>halfWidth</td><td>output</td><td>m</td><td>wear interface: Hertz half-width</td></tr>
<tr><td>inContact</td><td>output (Boolean)</td><td>-</td><td>wear interface: delta &gt; 0</td></tr>
<tr><td>x, y, whirlRadius</td><td>output</td><td>m</td><td>rub-node orbit relative to the stator centre, its radius</td></tr>
<tr><td>whirlRate</td><td>output</td><td>rad/s</td><td>whirl rate about the stator centre (&gt; 0 forward)</td></tr>
<tr><td>nSectors, R_journal, c, R_bearing, L</td><td>parameter (R_bearing final)</td><td>-, m</td><td>wear interface geometry</td></tr>
</table>
<p>The contact force depends directly on the inputs (direct feedthrough).</p></html>"));
end RubStator;
