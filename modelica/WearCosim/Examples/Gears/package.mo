within WearCosim.Examples;
package Gears "Gear-pair examples: Cardona's test, bevel-planetary kinematics, Kubo's dynamic factor"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Seed 003's verification cases with the spatial gear pair of
<a href=\"modelica://WearCosim.Gears\">WearCosim.Gears</a>: CardonaCase1/2 (spatial) against CardonaTorsional (eq. 27),
StaticMesh (deflection F/k<sub>m</sub>), BevelPlanetary (Table 1 kinematics), KuboDynamicFactor (Table 2; sweep:
<code>python -m wearcosim.studies.gears kubo</code>), GearWear (profile wear interface, <code>cosim/gear_wear.toml</code>).
Tests: <code>tests/gears</code>.</p></html>"));
end Gears;
