within WearCosim.Components.Gears;
model CardonaMesh "Gear mesh force element with the data of Cardona's test (seed 003 Table 3); data.b_in = 0: case 1, 0.001968: case 2"
  extends WearCosim.Components.Gears.GearMeshElement(final module = data.module, final zA = data.z1, final zB = data.z2,
    alpha = data.alpha, L = 0.02, IA = data.Ia, IB = data.Ib, b = data.b, X = data.X, k_m = data.k_m, chi = data.chi);
  parameter WearCosim.Gears.CardonaData data "Table 3 (inch-lbf-s, converted to SI inside); data.b_in: backlash [in], 0.001968 for case 2";
  annotation (experiment(StopTime = 0.02, Interval = 2e-6, Tolerance = 1e-8),
    Documentation(info = "<html>
<p><a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">GearMeshElement</a> with the mesh of
<a href=\"modelica://WearCosim.Gears.CardonaTransmission\">Gears.CardonaTransmission</a>: module, teeth, pressure angle,
mesh stiffness, error amplitude, damping factor and the wheel inertias of the mesh damping from
<a href=\"modelica://WearCosim.Gears.CardonaData\">CardonaData</a>, face width 20 mm, backlash data.b. Connected to
<a href=\"modelica://WearCosim.Components.Gears.CardonaDrive\">CardonaDrive</a> (same <code>data</code>) it reproduces
<a href=\"modelica://WearCosim.Examples.Gears.CardonaCase1\">CardonaCase1</a> (data.b_in = 0, default) and
<a href=\"modelica://WearCosim.Examples.Gears.CardonaCase2\">CardonaCase2</a> (data.b_in = 0.001968): the two cases differ
by the backlash only, both have rigid supports. data.b_in is a parameter of the exported FMU, so one FMU serves both
cases. Ports: those of GearMeshElement.</p></html>"));
end CardonaMesh;
