within WearCosim.Components;
package Mechanisms "Mechanisms without their clearance joint: joint forces in, joint kinematics out"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>The mechanisms of <a href=\"modelica://WearCosim.Mechanisms\">Mechanisms</a> without their clearance joint, as
component FMUs: the joint's force and torques (F, tauJ, tauB) in, the kinematics of the joint's journal and bearing
(rB, vB, phiB, wB, rJ, vJ, wJ) out, with no direct feedthrough from the inputs to these outputs.</p>
<ul>
<li><a href=\"modelica://WearCosim.Components.Mechanisms.SliderCrankBody\">SliderCrankBody</a>: the slider-crank
benchmark (rod/slider joint removed);</li>
<li><a href=\"modelica://WearCosim.Components.Mechanisms.HybridMechanismBody\">HybridMechanismBody</a>: the
3-CPaR&amp;R<sub>1</sub>R<sub>2</sub> hybrid mechanism (D3 joint removed).</li>
</ul>
<p>Each shares its equations with the monolithic mechanism (a common partial base class in
<a href=\"modelica://WearCosim.Mechanisms\">Mechanisms</a>), so body + joint component reproduce the monolithic
examples. Guide: docs/components/joints_mechanisms.md.</p>
</html>"));
end Mechanisms;
