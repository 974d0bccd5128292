within WearCosim.Components;
package Rotor "Finite-element rotor and rub contact / stator as separate components"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>The rotor-stator rub system of <a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">Rotor.RotorStatorRub</a> split at
the rub node:</p>
<ul>
<li>Body: <a href=\"modelica://WearCosim.Components.Rotor.TwoDiskRotor\">TwoDiskRotor</a>, the finite-element rotor of
<a href=\"modelica://WearCosim.Examples.Rotor.TwoDiskRub\">Examples.Rotor.TwoDiskRub</a>: rub force <code>Fext</code> in,
rub-node motion <code>rNode, vNode</code> and spin speed <code>Omega</code> out (no direct feedthrough).</li>
<li>Force element: <a href=\"modelica://WearCosim.Components.Rotor.RubStator\">RubStator</a>, the rub contact with a rigid
or elastic stator: <code>rR, vR, Omega</code> in, contact force <code>F</code> on the rotor out, stator wear interface
(<code>wearDepth</code> in, <code>Fn, Ft, delta, theta, vSlip, halfWidth, inContact</code> out) at the top level.</li>
</ul>
<p>Composition rR = rNode, vR = vNode, Omega = Omega, Fext = F with the default parameters reproduces TwoDiskRub
(docs/components/gears_rotor.md, verified in tests/system/test_components_gears_rotor.py).</p>
</html>"));
end Rotor;
