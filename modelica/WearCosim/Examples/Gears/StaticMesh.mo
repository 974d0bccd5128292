within WearCosim.Examples.Gears;
model StaticMesh "Zero-backlash helical pair under a static torque: wheel b held, wheel a on elastic bearings; mesh deflection = F/k_m"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  parameter SI.Torque T = 50 "Static torque on wheel a";
  parameter SI.TranslationalSpringConstant k_m = 5e8 "Mesh stiffness";
  WearCosim.Gears.GearPair pair(module = 3e-3, zA = 31, zB = 23, beta = 15*pi/180, width = 0.02, k_m = k_m, chi = 0.5,
    fixedTranslationA = false, fixedRotationB = true) "Helical pair: a on elastic bearings, b held";
  WearCosim.Gears.ElasticSupport bearingA(k = 2e9, c = 2e4, e3 = {0, 0, 1}) "Elastic bearing of wheel a";
  WearCosim.Gears.TorqueSource torque(T = T) "Static torque on a";
  output SI.Force F "Normal mesh force";
  output SI.Length ds "Mesh deflection (transmission error)";
  output SI.Force FbyK "F/k_m";
  output SI.Force Fexpected "T/(rho_a*cos(alpha)*cos(beta)): torque balance of wheel a";
equation
  connect(torque.hub, pair.hubA);
  connect(bearingA.hub, pair.hubA);
  F = pair.mesh.Fn;
  ds = pair.mesh.ds;
  FbyK = F/k_m;
  Fexpected = T/(pair.rhoA*cos(pair.alpha)*cos(pair.beta));
  annotation (experiment(StopTime = 0.01, Interval = 1e-5, Tolerance = 1e-8),
    Documentation(info = "<html><p>Acceptance case &quot;zero-backlash pair under static torque&quot;: a helical pair
(&beta; = 15&deg;, z = 31/23, m = 3 mm), wheel b held in rotation, wheel a pushed by T on elastic bearings (the
radial and axial tooth-force components move its centre). After the damped transient the mesh deflection
&Delta;s equals F/k<sub>m</sub> and F = T/(&rho;<sub>a</sub> cos&alpha; cos&beta;) (the tangential component of the
normal force balances T).</p></html>"));
end StaticMesh;
