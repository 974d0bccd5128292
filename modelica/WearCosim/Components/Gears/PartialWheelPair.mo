within WearCosim.Components.Gears;
partial model PartialWheelPair "Body side of a gear mesh: wheels a and b with their bearings; mesh loads in, hub kinematics out (no direct feedthrough)"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Gears.BaseWheelPair(final fixedTranslationA = not elasticSupports,
    final fixedTranslationB = not elasticSupports);
  // ---------------------------------------------------------------- bearings
  parameter Boolean elasticSupports = false "false: rigid bearings (centres held); true: centres on elastic bearings kSupport, cSupport";
  parameter SI.TranslationalSpringConstant kSupport = 1e9 "Stiffness of the elastic bearings (elasticSupports)";
  parameter SI.TranslationalDampingConstant cSupport = 0 "Damping of the elastic bearings (elasticSupports)";
  parameter SI.RotationalSpringConstant kTiltSupport = 0 "Tilting stiffness of the bearings (only with fixedTiltA/B = false)";
  parameter SI.RotationalDampingConstant cTiltSupport = 0 "Tilting damping of the bearings (only with fixedTiltA/B = false)";
  // ---------------------------------------------------------------- mesh loads (inputs)
  input SI.Force fA[3] "Mesh force on wheel a, global frame";
  input SI.Torque tA[3] "Mesh torque on wheel a about its centre, global frame";
  input SI.Force fB[3] "Mesh force on wheel b, global frame";
  input SI.Torque tB[3] "Mesh torque on wheel b about its centre, global frame";
  // ---------------------------------------------------------------- hub kinematics (outputs)
  output SI.Position uA[3] "Displacement of the centre of wheel a from its nominal position, global frame";
  output SI.Velocity vA[3] "Velocity of the centre of wheel a, global frame";
  output SI.Angle phiA[3] "Rotation of wheel a, E0a*{tilt1, tilt2, psi} (psi: unbounded spin about e3A), global frame";
  output SI.AngularVelocity wA[3] "Angular velocity of wheel a, global frame";
  output SI.Position uB[3] "Displacement of the centre of wheel b from its nominal position, global frame";
  output SI.Velocity vB[3] "Velocity of the centre of wheel b, global frame";
  output SI.Angle phiB[3] "Rotation of wheel b, E0b*{tilt1, tilt2, psi} (psi: unbounded spin about e3B), global frame";
  output SI.AngularVelocity wB[3] "Angular velocity of wheel b, global frame";
  WearCosim.Gears.ElasticSupport supportA(k = kSupport, c = cSupport, kTilt = kTiltSupport, cTilt = cTiltSupport, e3 = e3A) "Bearing of wheel a (no load while centre and tilt are held)";
  WearCosim.Gears.ElasticSupport supportB(k = kSupport, c = cSupport, kTilt = kTiltSupport, cTilt = cTiltSupport, e3 = e3B) "Bearing of wheel b (no load while centre and tilt are held)";
  WearCosim.Gears.HubLoad meshLoadA(f = fA, t = tA) "Mesh load on wheel a";
  WearCosim.Gears.HubLoad meshLoadB(f = fB, t = tB) "Mesh load on wheel b";
equation
  connect(meshLoadA.hub, wheelA.hub);
  connect(meshLoadB.hub, wheelB.hub);
  connect(supportA.hub, wheelA.hub);
  connect(supportB.hub, wheelB.hub);
  uA = wheelA.hub.u;
  vA = wheelA.hub.v;
  phiA = wheelA.hub.phi;
  wA = wheelA.hub.w;
  uB = wheelB.hub.u;
  vB = wheelB.hub.v;
  phiB = wheelB.hub.phi;
  wB = wheelB.hub.w;
  annotation (Documentation(info = "<html>
<p>Base class of the gear body models (<a href=\"modelica://WearCosim.Components.Gears.CardonaDrive\">CardonaDrive</a>,
<a href=\"modelica://WearCosim.Components.Gears.PairDrive\">PairDrive</a>, <a href=\"modelica://WearCosim.Components.Gears.KuboDrive\">KuboDrive</a>):
the two wheels of a <a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a> without their mesh
(<a href=\"modelica://WearCosim.Gears.BaseWheelPair\">Gears.BaseWheelPair</a>, the class GearPair extends: same parameters
and defaults), on rigid or, with <code>elasticSupports</code>, elastic bearings
(<a href=\"modelica://WearCosim.Gears.ElasticSupport\">ElasticSupport</a>; they carry no load while the wheel is held). The mesh loads enter through
<a href=\"modelica://WearCosim.Gears.HubLoad\">HubLoad</a>s; the hub kinematics are the wheels' states, so the outputs do
not depend on the inputs. Extensions connect shafts, inertias and torques to <code>wheelA.hub</code>,
<code>wheelB.hub</code>. Ports: see the extending models.</p></html>"));
end PartialWheelPair;
