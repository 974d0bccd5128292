within WearCosim;
package Rotor "Finite-element rotors with rotor-stator rub"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Rotor-stator rub of seed 004 (docs/physics/rotor.md) (seed 004, last abstract):</p>
<ul>
<li><a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a>: Timoshenko shaft elements
(4 DOF per node), rigid disks, linear (anisotropic, cross-coupled) bearings, unbalance, gyroscopic effects,
constant or ramped spin, Rayleigh damping; element matrices identical to ROSS 2.3.0's
(<a href=\"modelica://WearCosim.Rotor.Functions\">Functions</a>), verified against ROSS in tests/rotor.</li>
<li><a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>: circular clearance with the stator's sector
wear profile (the wear interface), penalty normal force with contact damping, tanh-regularised Coulomb friction.</li>
<li><a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">RotorStatorRub</a>: rotor + contact + rigid or elastic
(mass-spring-damper) stator, wear interface at the top level; contact and stator in
<a href=\"modelica://WearCosim.Rotor.BaseRubStator\">BaseRubStator</a>, shared with the component
<a href=\"modelica://WearCosim.Components.Rotor.RubStator\">Components.Rotor.RubStator</a>.</li>
<li><a href=\"modelica://WearCosim.Rotor.JeffcottRub\">JeffcottRub</a>: single-disk Jeffcott rotor with the same
contact (closed-form and energy checks).</li>
</ul>
<p>Examples: <a href=\"modelica://WearCosim.Examples.Rotor\">Examples.Rotor</a>; stator wear through the master:
<code>wearcosim run cosim/rotor_stator_wear.toml</code>; sensitivity study:
<code>python -m wearcosim.studies.rotor</code>.</p>
</html>"));
end Rotor;
