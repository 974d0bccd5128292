within WearCosim.Components;
package Gears "Gear mesh force element and the wheels, shafts and supports around it"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>The spatial gear pair of <a href=\"modelica://WearCosim.Gears\">WearCosim.Gears</a> split at the tooth mesh.</p>
<ul>
<li>Force element: <a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">GearMeshElement</a> (the
<a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a> with the flank wear interface of wheel b): hub kinematics of
both wheels in (<code>uA, vA, phiA, wA, uB, vB, phiB, wB</code>, global frame), mesh forces and torques on both wheels
out (<code>fA, tA, fB, tB</code>). With the data of the examples:
<a href=\"modelica://WearCosim.Components.Gears.CardonaMesh\">CardonaMesh</a>,
<a href=\"modelica://WearCosim.Components.Gears.KuboMesh\">KuboMesh</a>.</li>
<li>Bodies (<a href=\"modelica://WearCosim.Components.Gears.PartialWheelPair\">PartialWheelPair</a>: the two wheels of a
GearPair without the mesh): <a href=\"modelica://WearCosim.Components.Gears.CardonaDrive\">CardonaDrive</a> (Cardona's
transmission, cases 1 and 2), <a href=\"modelica://WearCosim.Components.Gears.PairDrive\">PairDrive</a> (driving and
braking torque; the gear-wear rig), <a href=\"modelica://WearCosim.Components.Gears.KuboDrive\">KuboDrive</a> (Kubo's
pair). Mesh loads in, hub kinematics out, no direct feedthrough.</li>
</ul>
<p>Composition: connect equal names (body outputs to element inputs, element loads to body inputs).
CardonaDrive + CardonaMesh = <a href=\"modelica://WearCosim.Examples.Gears.CardonaCase1\">CardonaCase1</a> (data.b_in = 0)
and <a href=\"modelica://WearCosim.Examples.Gears.CardonaCase2\">CardonaCase2</a> (data.b_in = 0.001968);
KuboDrive + KuboMesh = <a href=\"modelica://WearCosim.Examples.Gears.KuboDynamicFactor\">KuboDynamicFactor</a>;
PairDrive + GearMeshElement with GearWear's parameters = <a href=\"modelica://WearCosim.Examples.Gears.GearWear\">GearWear</a>
(docs/components/gears_rotor.md, verified in tests/system/test_components_gears_rotor.py).</p>
</html>"));
end Gears;
