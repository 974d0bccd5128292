within WearCosimMSL.Examples;
model InertiasThroughMesh "MSL inertias as the wheels of a WearCosim tooth mesh with backlash: the drive train of MotorGearLoad with the other adapter"
  extends WearCosim.Icons.Example;
  import SI = Modelica.Units.SI;
  constant Real pi = Modelica.Constants.pi;
  parameter SI.Torque T0 = 2 "Mean motor torque";
  parameter SI.Torque T1 = 6 "Amplitude of the motor torque ripple";
  parameter SI.Frequency fT = 10 "Frequency of the torque ripple";
  parameter SI.Inertia Jm = 0.01 "Motor inertia";
  parameter SI.Inertia JL = 0.02 "Load inertia";
  parameter SI.RotationalDampingConstant dL = 0.5 "Load damping to the ground";
  parameter SI.Length module = 3e-3 "Module";
  parameter Integer zA = 40 "Teeth of wheel a (load side)";
  parameter Integer zB = 20 "Teeth of pinion b (motor side)";
  parameter SI.Length width = 0.02 "Face width (inertias of the wheels: steel discs of the pitch radius, as GearPair's default)";
  parameter SI.Length b = 5e-5 "Backlash";
  parameter SI.TranslationalSpringConstant k_m = 1e7 "Mesh stiffness";
  parameter Real chi = 0.05 "Mesh damping factor (eq. 23 of the gear mesh)";
  final parameter SI.Radius rhoA = module*zA/2 "Pitch radius of a";
  final parameter SI.Radius rhoB = module*zB/2 "Pitch radius of b";
  final parameter SI.Inertia IA = 7800*pi*rhoA^4*width/2 "Polar inertia of wheel a (steel disc)";
  final parameter SI.Inertia IB = 7800*pi*rhoB^4*width/2 "Polar inertia of pinion b (steel disc)";
  Modelica.Blocks.Sources.Sine torqueSignal(amplitude = T1, f = fT, offset = T0) "Motor torque T0 + T1 sin(2 pi fT t)";
  Modelica.Mechanics.Rotational.Sources.Torque motorTorque "Motor torque (MSL)";
  Modelica.Mechanics.Rotational.Components.Inertia motor(J = Jm + IB, phi(start = 0, fixed = true), w(start = 0, fixed = true)) "Motor with pinion b (MSL)";
  WearCosimMSL.Rotational.FlangeToHub pinionShaft(e = {0, 0, 1}) "Motor flange to the hub of pinion b (axis +z)";
  WearCosim.Gears.GearMesh mesh(rhoA = rhoA, rhoB = rhoB, zA = zA, b = b, k_m = k_m, chi = chi, IA = IA, IB = IB) "Spur tooth mesh with backlash (WearCosim)";
  WearCosimMSL.Rotational.FlangeToHub wheelShaft(e = {0, 0, -1}) "Load flange to the hub of wheel a (axis -z: the load counted in the sense of the motor)";
  Modelica.Mechanics.Rotational.Components.Inertia load(J = JL + IA, phi(start = 0, fixed = true), w(start = 0, fixed = true)) "Load with wheel a (MSL)";
  Modelica.Mechanics.Rotational.Components.Damper loadDamper(d = dL) "Load damping to the ground (MSL)";
  Modelica.Mechanics.Rotational.Components.Fixed ground "Ground (MSL)";
  output SI.AngularVelocity wMotor = motor.w "Motor speed";
  output SI.AngularVelocity wLoad = load.w "Load speed, in the sense of rotation of the motor";
  output SI.Force Fn = mesh.Fn "Normal mesh force (> 0: drive flank, < 0: back flank)";
  output SI.Length ds = mesh.ds "Mesh compression (|ds| < b/2: teeth apart)";
  output SI.Torque tauPinion = pinionShaft.tau "Torque of the mesh on the motor, about +z";
  output SI.Torque tauWheel = wheelShaft.tau "Torque of the mesh on the load, in the load's sense";
equation
  connect(torqueSignal.y, motorTorque.tau);
  connect(motorTorque.flange, motor.flange_a);
  connect(motor.flange_b, pinionShaft.flange);
  connect(pinionShaft.hub, mesh.hubB);
  connect(mesh.hubA, wheelShaft.hub);
  connect(wheelShaft.flange, load.flange_a);
  connect(load.flange_b, loadDamper.flange_a);
  connect(loadDamper.flange_b, ground.flange);
  annotation (experiment(StopTime = 0.1, Interval = 2e-4, Tolerance = 1e-10),
    Documentation(info = "<html>
<p>The drive train of <a href=\"modelica://WearCosimMSL.Examples.MotorGearLoad\">MotorGearLoad</a> built the other way round: the bodies are
MSL <code>Inertia</code>s (motor + pinion J<sub>m</sub> + I<sub>B</sub>, load + wheel J<sub>L</sub> + I<sub>A</sub>), and the WearCosim part is
the massless spur <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a> with backlash between them, reached through two
<a href=\"modelica://WearCosimMSL.Rotational.FlangeToHub\">FlangeToHub</a> adapters (rigid bearings on the axes). Same parameters, same
equations: <code>wMotor</code>, <code>wLoad</code>, <code>Fn</code> equal MotorGearLoad's (tests/library/test_interop_msl.py checks both against
the same SciPy model). No index reduction is needed: every shaft has one body.</p>
</html>"));
end InertiasThroughMesh;
