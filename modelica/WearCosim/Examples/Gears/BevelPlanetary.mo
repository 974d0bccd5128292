within WearCosim.Examples.Gears;
model BevelPlanetary "Seed 003 first test (Table 1): bevel pair driving the carrier of a planetary stage with a fixed ring and helical planets"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  parameter SI.Length module = 1e-3 "Module of all gears";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Angle betaP = 5*pi/180 "Helix angle of the planetary stage (sun; planets and ring have the other hand)";
  parameter Integer z1 = 20 "Bevel pinion (driving)";
  parameter Integer z2 = 20 "Bevel wheel (drives the carrier)";
  parameter Integer zP = 20 "Planets";
  parameter Integer zR = 70 "Ring (fixed)";
  parameter Integer zS = 30 "Sun (free output)";
  parameter Integer nP = 3 "Number of planets";
  parameter SI.Length width = 5e-3 "Face width";
  parameter SI.Density density = 7800 "Density (7.8e-9 t/mm3)";
  parameter SI.TranslationalSpringConstant k_m = 1e10 "Mesh stiffness of every mesh (1e7 N/mm)";
  parameter Real chi = 0.05 "Mesh damping factor (0 in the paper; small damping removes the undamped tooth vibrations)";
  parameter SI.Torque T = 0.1 "Torque on the bevel pinion (100 N.mm)";
  parameter SI.Length zPlane = -0.02 "Axial position of the planetary stage (below the bevel wheel)";
  final parameter SI.Radius rhoS = module*zS/2 "Sun pitch radius";
  final parameter SI.Radius rhoP = module*zP/2 "Planet pitch radius";
  final parameter SI.Radius rhoR = module*zR/2 "Ring pitch radius";
  final parameter SI.Radius rc = rhoS + rhoP "Planet pin radius";
  final parameter SI.Mass mP = density*pi*rhoP^2*width "Planet mass";
  final parameter SI.Inertia IP = mP*rhoP^2/2 "Planet polar inertia";
  final parameter SI.Mass mS = density*pi*rhoS^2*width "Sun mass";
  final parameter SI.Inertia IS = mS*rhoS^2/2 "Sun polar inertia";
  final parameter SI.Inertia IR = density*pi*rhoR^2*width*rhoR^2/2 "Ring polar inertia (fixed: unused)";
  final parameter SI.Angle phiP[nP] = {2*pi*(i - 1)/nP for i in 1:nP} "Planet positions";
  final parameter SI.Position rP0[nP, 3] = {{rc*cos(phiP[i]), rc*sin(phiP[i]), zPlane} for i in 1:nP} "Planet centres";
  // ---------------------------------------------------------------- bevel pair: a = wheel 2 (axis z), b = pinion 1 (axis -x), cone 45 deg
  WearCosim.Gears.GearPair bevel(module = module, zA = z2, zB = z1, alpha = alpha, beta = 0, gammaCone = pi/4, width = width,
    rA0 = {0, 0, 0}, e1A = {1, 0, 0}, e3A = {0, 0, 1}, rB0 = {module*z2/2, 0, module*z2/2}, e1B = {0, 0, -1}, e3B = {-1, 0, 0},
    k_m = k_m, chi = chi) "Bevel pair; both axes point to the cone apex (0, 0, rho2)";
  WearCosim.Gears.TorqueSource torque(T = T, e = {-1, 0, 0}) "Torque on the pinion about its axis";
  WearCosim.Gears.Carrier carrier(nPlanets = nP, rc = rc, e = {0, 0, 1}, e1 = {1, 0, 0}, rC0 = {0, 0, 0},
    axialOffset = zPlane, kPin = 1e10, cPin = 2*0.3*sqrt(1e10*mP)) "Massless carrier turning with the bevel wheel";
  WearCosim.Gears.Wheel sun(m = mS, Ip = IS, e1 = {1, 0, 0}, e3 = {0, 0, 1}, fixedTranslation = true, fixedTilt = true) "Sun (rigid bearings, free output)";
  WearCosim.Gears.Wheel ring(m = 1, Ip = IR, e1 = {1, 0, 0}, e3 = {0, 0, 1}, fixedTranslation = true, fixedTilt = true, fixedRotation = true) "Fixed ring";
  WearCosim.Gears.Wheel planet[nP](each m = mP, each Ip = IP, e1 = {{cos(phiP[i]), sin(phiP[i]), 0} for i in 1:nP}, each e3 = {0, 0, 1},
    each fixedTranslation = false, each fixedTilt = true) "Planets (pinned to the carrier)";
  WearCosim.Gears.GearMesh meshSP[nP](each rhoA = rhoS, each rhoB = rhoP, each zA = zS, each alpha = alpha, each beta = betaP,
    each rA0 = {0, 0, zPlane}, each e1A = {1, 0, 0}, each e3A = {0, 0, 1}, rB0 = rP0, e1B = {{cos(phiP[i]), sin(phiP[i]), 0} for i in 1:nP},
    each e3B = {0, 0, 1}, each k_m = k_m, each chi = chi, each IA = IS, each IB = IP) "Sun-planet meshes (a = sun)";
  WearCosim.Gears.GearMesh meshRP[nP](each rhoA = rhoR, each rhoB = rhoP, each zA = zR, each internal = true, each alpha = alpha,
    each beta = -betaP, each rA0 = {0, 0, zPlane}, each e1A = {1, 0, 0}, each e3A = {0, 0, 1}, rB0 = rP0,
    e1B = {{cos(phiP[i]), sin(phiP[i]), 0} for i in 1:nP}, each e3B = {0, 0, 1}, each k_m = k_m, each chi = chi,
    each IA = IP*100, each IB = IP) "Ring-planet meshes (a = ring, internal; the fixed ring enters eq. 23 as a large inertia)";
  output SI.AngularVelocity w1 "Pinion speed about its axis";
  output SI.AngularVelocity w2 "Bevel wheel = carrier speed about z";
  output SI.AngularVelocity wS "Sun speed about z";
  output SI.AngularVelocity wP[nP] "Planet speeds about z (absolute)";
  output SI.Velocity vP[nP, 2] "Planet centre velocities (x, y)";
  output SI.Position rP[nP, 2] "Planet centre positions (x, y)";
  output SI.Angle psiC "Carrier angle";
  output SI.AngularVelocity w1Rigid "Rigid-gear pinion speed from w2: -z2/z1*w2 (about its axis -x)";
  output SI.AngularVelocity wSRigid "Rigid-gear sun speed (1 + zR/zS)*w2";
  output SI.AngularVelocity wPRigid "Rigid-gear planet speed (1 - zR/zP)*w2";
equation
  connect(torque.hub, bevel.hubB);
  connect(carrier.hub, bevel.hubA);
  for i in 1:nP loop
    connect(carrier.pin[i], planet[i].hub);
    connect(sun.hub, meshSP[i].hubA);
    connect(planet[i].hub, meshSP[i].hubB);
    connect(ring.hub, meshRP[i].hubA);
    connect(planet[i].hub, meshRP[i].hubB);
    wP[i] = planet[i].w;
    vP[i, :] = planet[i].v[1:2];
    rP[i, :] = rP0[i, 1:2] + planet[i].u[1:2];
  end for;
  psiC = carrier.psiC;
  w1 = bevel.wheelB.w;
  w2 = bevel.wheelA.w;
  wS = sun.w;
  w1Rigid = -z2/z1*w2;
  wSRigid = (1 + zR/zS)*w2;
  wPRigid = (1 - zR/zP)*w2;
  annotation (experiment(StopTime = 0.05, Interval = 1e-4, Tolerance = 1e-7),
    Documentation(info = "<html>
<p>Seed 003, first test (Table 1): bevel pinion 1 (z = 20) drives bevel wheel 2 (z = 20, cone 45&deg;, straight
teeth), which turns the carrier of a planetary stage; three planets (z = 20) mesh with a fixed ring (z = 70,
internal) and a free sun (z = 30); helix 5&deg; in the stage, module 1 mm, &alpha; = 20&deg;, face width 5 mm,
steel wheels as discs of the pitch radius, k<sub>m</sub> = 10<sup>7</sup> N/mm in every mesh, no error, backlash or
friction, 100 N&middot;mm on the pinion from rest. Bevel wheels and sun in rigid bearings, planets pinned to the
massless <a href=\"modelica://WearCosim.Gears.Carrier\">Carrier</a> by stiff hinges.</p>
<p>Rigid-gear kinematics (reference): w<sub>1</sub> = -w<sub>2</sub> (pinion about its own axis, which points to the apex),
carrier = w<sub>2</sub>, sun (1 + z<sub>R</sub>/z<sub>S</sub>)w<sub>2</sub>, planets (1 - z<sub>R</sub>/z<sub>P</sub>)w<sub>2</sub>, planet centres
w<sub>2</sub> e<sub>z</sub> &times; r<sub>P</sub>.</p>
<p>Deviation from the paper: a small mesh damping (&chi; = 0.05) and hinge damping; the paper's undamped
meshes keep ringing at ~100 kHz, which only costs integration time and does not change the kinematics.
StopTime 0.05 s instead of 10 s (the ratios are reached after a few ms; the speeds grow linearly).</p></html>"));
end BevelPlanetary;
