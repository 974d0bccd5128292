within WearCosim.Components.Rotor;
model TwoDiskRotor "Two-disk finite-element rotor of Examples.Rotor.TwoDiskRub as a body: rub-node force in, rub-node displacement, velocity and spin speed out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Rotor.FiniteElementRotor(nElements = 6, Le = fill(0.1, 6), dOut = fill(0.02, 6), dIn = zeros(6),
    rho = 7810, E = 211e9, G = 81.2e9,
    nDisks = 2, diskNode = {3, 5}, mDisk = fill(mD, 2), IpDisk = fill(IpD, 2), IdDisk = fill(IdD, 2),
    unbalance = {1e-4, 0}, unbalancePhase = {0, 0},
    nBearings = 2, bearingNode = {1, 7}, kxx = fill(2e6, 2), kyy = fill(2.5e6, 2), cxx = fill(2000, 2), cyy = fill(2000, 2),
    alphaR = 50, betaR = 0, Omega0 = 250, forceNode = 3);
  parameter SI.Length diskDiameter = 0.15 "Outer diameter of the disks" annotation (Evaluate = true);
  parameter SI.Length diskBore = 0.02 "Bore of the disks (= shaft diameter)" annotation (Evaluate = true);
  parameter SI.Length diskWidth = 0.02 "Axial width of the disks" annotation (Evaluate = true);
  final parameter SI.Mass mD = rho*3.141592653589793/4*(diskDiameter^2 - diskBore^2)*diskWidth "Disk mass";
  final parameter SI.Inertia IpD = mD/8*(diskDiameter^2 + diskBore^2) "Polar moment of inertia of a disk";
  final parameter SI.Inertia IdD = IpD/2 + mD*diskWidth^2/12 "Diametral moment of inertia of a disk";
  annotation (experiment(StopTime = 1.5, Interval = 2e-4, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>The <a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a> exactly as configured in
<a href=\"modelica://WearCosim.Examples.Rotor.TwoDiskRub\">Examples.Rotor.TwoDiskRub</a> (steel shaft d = 20 mm, 6
Timoshenko elements of 0.1 m, disks of 150 mm at nodes 3 and 5, anisotropic bearings at nodes 1 and 7, Rayleigh damping
&alpha;<sub>R</sub> = 50 s<sup>-1</sup>, unbalance 10<sup>-4</sup> kg m on disk 1, spin 250 rad/s), without the rub
contact: the rub force at node <code>forceNode</code> = 3 (disk 1) is an input, the motion of that node an output.
Composed with <a href=\"modelica://WearCosim.Components.Rotor.RubStator\">RubStator</a> (default parameters:
rigid stator 0.12 mm below the bearing axis) it is TwoDiskRub. Geometry, material, bearings and disks are evaluated
at build time (annotation Evaluate, as in the example); unbalance, spin speed and gravity stay tunable.</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>Fext[2]</td><td>input</td><td>N</td><td>external (rub) force (x, y) on the rub node</td></tr>
<tr><td>rNode[2]</td><td>output</td><td>m</td><td>displacement (x, y) of the rub node from the bearing axis</td></tr>
<tr><td>vNode[2]</td><td>output</td><td>m/s</td><td>velocity (x, y) of the rub node</td></tr>
<tr><td>Omega</td><td>output</td><td>rad/s</td><td>spin speed (prescribed: constant or ramp)</td></tr>
<tr><td>energy</td><td>output</td><td>J</td><td>kinetic + strain + bearing + gravity energy (0 unless computeEnergy)</td></tr>
</table>
<p>The outputs are states or functions of time (no direct feedthrough).</p></html>"));
end TwoDiskRotor;
