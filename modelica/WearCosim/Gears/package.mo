within WearCosim;
package Gears "Spatial gear pairs with backlash (12 DOF per pair) and the transmission parts around them"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Spatial gear-pair model of Popov, Sorokin, Ivannikov and Degtyar&euml;v (2020) after Cardona (1995), seed 003 (docs/physics/gears.md)
(seed 003): each pair has 12 DOF (3 translations + 3 rotations per wheel) and no Lagrange multipliers.</p>
<h4>Components</h4>
<ul>
<li><a href=\"modelica://WearCosim.Gears.Hub\">Hub</a>: connector (displacement, velocity, rotation, angular velocity as
potentials; force and torque as flows, global frame).</li>
<li><a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>: rigid wheel, 6 DOF, with rigid supports as options;
<a href=\"modelica://WearCosim.Gears.Inertia\">Inertia</a>: wheel in rigid bearings.</li>
<li><a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>: massless tooth mesh (eq. 5-26): reference contact direction,
unwrapped rotation, tooth normal from pressure/helix/cone angles, transmission error with manufacturing error, dead-zone
force with backlash, constant or single/double-pair stiffness, damping only in contact, friction; spur, helical, bevel,
internal. <a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> = two wheels + mesh.</li>
<li><a href=\"modelica://WearCosim.Gears.TorsionalShaft\">TorsionalShaft</a>, <a href=\"modelica://WearCosim.Gears.TorqueSource\">TorqueSource</a>,
<a href=\"modelica://WearCosim.Gears.ElasticSupport\">ElasticSupport</a>, <a href=\"modelica://WearCosim.Gears.Carrier\">Carrier</a>
(massless planet carrier with stiff hinges).</li>
<li><a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>, <a href=\"modelica://WearCosim.Gears.HubLoad\">HubLoad</a>:
a hub moved by inputs (returns the load on it) and a load given by inputs, to cut a gear train into FMUs at a hub
(<a href=\"modelica://WearCosim.Components.Gears\">Components.Gears</a>).</li>
<li><a href=\"modelica://WearCosim.Gears.CardonaData\">CardonaData</a>: Table 3 in inch-lbf-s, converted to SI in one place;
<a href=\"modelica://WearCosim.Gears.CardonaTransmission\">CardonaTransmission</a>: the test transmission;
<a href=\"modelica://WearCosim.Gears.flankWearDepth\">flankWearDepth</a>: wear profile along a flank.</li>
</ul>
<h4>Large rotations without singularity</h4>
<p>The paper stores the rotation as a large accumulated rotation tensor plus a small incremental Euler vector. Here the
same split is fixed by the bearings: the large rotation of a wheel is its spin &psi; about the nominal axis, integrated
as an unbounded angle (never wrapped), and the increment is two small tilts about the nominal transverse axes:
R = E0&middot;R<sub>x</sub>(tilt1)R<sub>y</sub>(tilt2)R<sub>z</sub>(&psi;)&middot;E0<sup>T</sup>. This is singular only at a 90&deg; tilt. The angle &gamma;<sub>a</sub> of
eq. 6 then is exactly &beta;<sub>a</sub> - &psi;<sub>a</sub> (&beta;<sub>a</sub> the direction of the centre line in the wheel's tilted plane), and
&beta;<sub>a</sub> is unwrapped by one auxiliary state of the mesh, so orbiting centre lines (planetary stages) are handled.</p>
<h4>Simplifications</h4>
<ul>
<li>Rigid wheel bodies; the tooth compliance is the mesh stiffness along the tooth normal at the pitch point (the
paper's reference point), tilt dynamics linearised (gyroscopic coupling kept).</li>
<li>Mesh forces from the virtual work of the elastic energy at the reference configuration (the paper differentiates U
numerically: identical to first order).</li>
<li>Wheel a of a mesh is the larger one (the ring of an internal mesh); bevel axes point to the cone apex.</li>
</ul>
</html>"));
end Gears;
