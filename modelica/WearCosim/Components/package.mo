within WearCosim;
package Components "Component models with causal ports, one FMU each, to be composed into systems (SSP)"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Each model of this package is exported as an FMU of its own and connected to others through
its top-level inputs and outputs (an SSP system, <code>cosim/systems/</code>). The split follows the
physics of the monolithic examples: a force element (clearance joint, gear mesh, rub contact) takes the
kinematics of the bodies it joins as inputs and returns forces; the bodies (the rest of the mechanism,
the wheels and shafts, the rotor) take those forces as inputs and return their kinematics. Force
elements have direct feedthrough (forces from kinematics), bodies have none (kinematics are states),
so a system of bodies and force elements has no algebraic loop.</p>
<p>Composed with the matching body models, each force element reproduces the monolithic example of
<a href=\"modelica://WearCosim.Examples\">Examples</a> (verified in tests/system).</p>
</html>"));
end Components;
