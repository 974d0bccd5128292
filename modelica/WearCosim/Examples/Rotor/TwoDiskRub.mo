within WearCosim.Examples.Rotor;
model TwoDiskRub "Single-span flexible rotor with two disks (seed 004), disk 1 rubbing on a misaligned rigid stator; wear interface at the top level"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Rotor.RotorStatorRub(R_journal = diskDiameter/2, c = 0.2e-3, L = diskWidth, nSectors = 36,
    k_c = 2e7, c_c = 200, mu = 0.1, statorOffset = {0, -0.12e-3},
    rotor(nElements = 6, Le = fill(0.1, 6), dOut = fill(0.02, 6), dIn = zeros(6), rho = rho, E = 211e9, G = 81.2e9,
      nDisks = 2, diskNode = {3, 5}, mDisk = fill(mD, 2), IpDisk = fill(IpD, 2), IdDisk = fill(IdD, 2),
      unbalance = {1e-4, 0}, unbalancePhase = {0, 0},
      nBearings = 2, bearingNode = {1, 7}, kxx = fill(2e6, 2), kyy = fill(2.5e6, 2), cxx = fill(2000, 2), cyy = fill(2000, 2),
      alphaR = 50, betaR = 0, Omega0 = 250, forceNode = 3));
  parameter SI.Density rho = 7810 "Density of shaft and disks (steel)" annotation (Evaluate = true);
  parameter SI.Length diskDiameter = 0.15 "Outer diameter of the disks" annotation (Evaluate = true);
  parameter SI.Length diskBore = 0.02 "Bore of the disks (= shaft diameter)" annotation (Evaluate = true);
  parameter SI.Length diskWidth = 0.02 "Axial width of the disks" annotation (Evaluate = true);
  final parameter SI.Mass mD = rho*3.141592653589793/4*(diskDiameter^2 - diskBore^2)*diskWidth "Disk mass";
  final parameter SI.Inertia IpD = mD/8*(diskDiameter^2 + diskBore^2) "Polar moment of inertia of a disk";
  final parameter SI.Inertia IdD = IpD/2 + mD*diskWidth^2/12 "Diametral moment of inertia of a disk";
  annotation (experiment(StopTime = 1.5, Interval = 2e-4, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>The single-span two-disk flexible rotor of seed 004 (last abstract). The seed gives no dimensions; this
parameter set is ours, chosen as a laboratory rub rig whose first bending critical speed
(&asymp; 262 rad/s, 2500 rpm) lies in the studied speed range:</p>
<ul>
<li>Shaft: steel (&rho; = 7810 kg/m<sup>3</sup>, E = 211 GPa, G = 81.2 GPa), solid, d = 20 mm, length 0.6 m,
6 Timoshenko elements of 0.1 m (7 nodes, 28 degrees of freedom, 56 + 1 states); Rayleigh damping
&alpha;<sub>R</sub> = 50 s<sup>-1</sup> on the shaft elements.</li>
<li>Disks at nodes 3 and 5 (0.2 m and 0.4 m): steel, outer diameter 150 mm, bore 20 mm, width 20 mm
(m = 2.711 kg, I<sub>p</sub> = 7.761&middot;10<sup>-3</sup> kg m<sup>2</sup>, I<sub>d</sub> = 3.971&middot;10<sup>-3</sup> kg m<sup>2</sup>).</li>
<li>Bearings at nodes 1 and 7 (the shaft ends): k<sub>xx</sub> = 2&middot;10<sup>6</sup> N/m, k<sub>yy</sub> = 2.5&middot;10<sup>6</sup> N/m
(anisotropic supports), c<sub>xx</sub> = c<sub>yy</sub> = 2000 N s/m.</li>
<li>Unbalance 10<sup>-4</sup> kg m (100 g mm) on disk 1; spin 250 rad/s.</li>
<li>Rub at disk 1 (its rim, R = 75 mm) on a rigid stator ring: radial clearance 0.2 mm, axial rub length
20 mm (the disk width), k<sub>c</sub> = 2&middot;10<sup>7</sup> N/m, c<sub>c</sub> = 200 N s/m, &mu; = 0.1, 36 wear sectors;
the stator centre sits 0.12 mm below the bearing axis (misaligned seal).</li>
</ul>
<p>Expected: the unbalance orbit (0.13 mm at 250 rad/s, just below the first critical speed) settles in ~1 s
and touches the stator once per revolution on its upper side (&theta; &asymp; 62..73&deg;, peak F<sub>n</sub> &asymp; 24 N,
contact 5 % of the time): a partial rub. With <code>statorOffset = {0, 0}</code> and
<code>rotor.unbalance = {3e-4, 0}</code> the disk whirls in synchronous full annular rub instead. For the solver,
<code>solver.method = 1</code> (Dormand-Prince) is about ten times faster than the implicit default on this
mildly stiff model.</p>
<p>Without contact the model is verified against ROSS 2.3.0 (whirl frequencies, unbalance response; tests/rotor).</p>
</html>"));
end TwoDiskRub;
