within WearCosim.Components.Gears;
model KuboMesh "Gear mesh force element of Kubo's spur pair (seed 003 Table 2): variable mesh stiffness"
  extends WearCosim.Components.Gears.GearMeshElement(module = 4e-3, zA = 25, zB = 25, L = 0.01, X = 0,
    variableStiffness = true, k_m = 1.3e8, k_double = 2.3e8,
    epsAlpha = (2*sqrt((rhoA + module)^2 - (rhoA*cos(alpha))^2) - 2*rhoA*sin(alpha))/(pi*module*cos(alpha)),
    sharpness = 4, chi = 0.3);
  annotation (experiment(StopTime = 0.03, Interval = 1e-6, Tolerance = 1e-7),
    Documentation(info = "<html>
<p><a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">GearMeshElement</a> with the mesh of
<a href=\"modelica://WearCosim.Examples.Gears.KuboDynamicFactor\">Examples.Gears.KuboDynamicFactor</a>: z = 25/25,
m = 4 mm, &alpha; = 20&deg;, face width 10 mm, single/double tooth-pair stiffness 1.3&middot;10<sup>8</sup> /
2.3&middot;10<sup>8</sup> N/m alternating with the contact ratio of the standard pair (1.61), sharpness 4, &chi; = 0.3,
no error. The inertias of the mesh damping are those of the default discs, as in
<a href=\"modelica://WearCosim.Components.Gears.KuboDrive\">KuboDrive</a>, with which it reproduces KuboDynamicFactor.
Ports: those of GearMeshElement.</p></html>"));
end KuboMesh;
