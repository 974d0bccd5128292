within WearCosimMSL.Examples;
model MotorGearLoad "MSL motor (Torque + Inertia) drives a WearCosim spur gear pair with backlash whose output drives an MSL load (Inertia + Damper)"
  extends WearCosim.Icons.Example;
  import SI = Modelica.Units.SI;
  parameter SI.Torque T0 = 2 "Mean motor torque";
  parameter SI.Torque T1 = 6 "Amplitude of the motor torque ripple";
  parameter SI.Frequency fT = 10 "Frequency of the torque ripple";
  parameter SI.Inertia Jm = 0.01 "Motor inertia (MSL)";
  parameter SI.Inertia JL = 0.02 "Load inertia (MSL)";
  parameter SI.RotationalDampingConstant dL = 0.5 "Load damping to the ground (MSL)";
  parameter SI.Length b = 5e-5 "Backlash of the gear pair";
  parameter SI.TranslationalSpringConstant k_m = 1e7 "Mesh stiffness";
  parameter Real chi = 0.05 "Mesh damping factor (eq. 23 of the gear pair)";
  Modelica.Blocks.Sources.Sine torqueSignal(amplitude = T1, f = fT, offset = T0) "Motor torque T0 + T1 sin(2 pi fT t)";
  Modelica.Mechanics.Rotational.Sources.Torque motorTorque "Motor torque (MSL)";
  Modelica.Mechanics.Rotational.Components.Inertia motor(J = Jm) "Motor inertia (MSL; rigidly on pinion b, whose angle and speed start at 0)";
  WearCosimMSL.Rotational.HubToFlange inputShaft(e = {0, 0, 1}) "Pinion b of the pair to the motor flange";
  WearCosim.Gears.GearPair pair(module = 3e-3, zA = 40, zB = 20, b = b, k_m = k_m, chi = chi) "Spur gear pair (WearCosim): wheel a (40 teeth, load side), pinion b (20 teeth, motor side), backlash b, rigid bearings";
  WearCosimMSL.Rotational.HubToFlange outputShaft(e = {0, 0, -1}) "Wheel a of the pair to the load flange, counted about -z: in the sense of rotation of the motor";
  Modelica.Mechanics.Rotational.Components.Inertia load(J = JL) "Load inertia (MSL)";
  Modelica.Mechanics.Rotational.Components.Damper loadDamper(d = dL) "Load damping to the ground (MSL)";
  Modelica.Mechanics.Rotational.Components.Fixed ground "Ground (MSL)";
  output SI.AngularVelocity wMotor = motor.w "Motor speed";
  output SI.AngularVelocity wLoad = load.w "Load speed, in the sense of rotation of the motor (= -spin of wheel a about +z)";
  output SI.Force Fn = pair.mesh.Fn "Normal mesh force (> 0: drive flank, < 0: back flank)";
  output SI.Length ds = pair.mesh.ds "Mesh compression (|ds| < b/2: teeth apart)";
  output SI.Torque tauIn = inputShaft.tau "Torque of the motor side on pinion b, about +z";
  output SI.Torque tauOut = -outputShaft.tau "Torque of wheel a on the load, about the load's axis -z";
equation
  connect(torqueSignal.y, motorTorque.tau);
  connect(motorTorque.flange, motor.flange_a);
  connect(motor.flange_b, inputShaft.flange);
  connect(inputShaft.hub, pair.hubB);
  connect(pair.hubA, outputShaft.hub);
  connect(outputShaft.flange, load.flange_a);
  connect(load.flange_b, loadDamper.flange_a);
  connect(loadDamper.flange_b, ground.flange);
  annotation (experiment(StopTime = 0.1, Interval = 2e-4, Tolerance = 1e-10),
    Documentation(info = "<html>
<p>An MSL drive (<code>Rotational.Sources.Torque</code> fed by <code>Blocks.Sources.Sine</code>: T(t) = T<sub>0</sub> + T<sub>1</sub>sin(2&pi;f<sub>T</sub>t),
motor <code>Inertia</code> J<sub>m</sub>) turns the pinion b of a WearCosim <a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>
(spur, 40/20 teeth, module 3 mm, backlash b, mesh stiffness k<sub>m</sub>, damping factor &chi;, rigid bearings; the wheels are GearPair's
default steel discs); wheel a turns an MSL load <code>Inertia</code> J<sub>L</sub> with a <code>Damper</code> d<sub>L</sub> to the ground. Both
shafts are <a href=\"modelica://WearCosimMSL.Rotational.HubToFlange\">HubToFlange</a> adapters: MSL drives WearCosim at the input, WearCosim
drives MSL at the output. The motor inertia sits rigidly on the pinion and the load inertia on the wheel: two bodies on one shaft, which the
exporter's index reduction turns into one angle per shaft. The output adapter's axis is -z, so the load turns in the motor's sense. The ripple
(T<sub>1</sub> &gt; T<sub>0</sub>) reverses the torque: the teeth separate, cross the backlash and hit the back flank.</p>
<p>The same train in the shafts' angles &psi;<sub>a</sub>, &psi;<sub>b</sub> about +z (a at the origin, b on +x; exact for fixed centres and no tilt):</p>
<pre>
(JL + IA) psi_a'' = -rho_a cos(alpha) Fn - dL psi_a'
(Jm + IB) psi_b'' = T(t) - rho_b cos(alpha + theta) Fn,            theta = psi_b + (rho_a/rho_b) psi_a
ds  = rho_b (cos(alpha) sin(theta) - sin(alpha) (1 - cos(theta)))  (= r_ba psi_a + r_bb psi_b to first order)
ds' = rho_b cos(alpha + theta) psi_b' + rho_a cos(alpha) psi_a'
Fn  = k_m (ds - b/2) + b_m ds' (ds &gt; b/2),  k_m (ds + b/2) + b_m ds' (ds &lt; -b/2),  0 otherwise
</pre>
<p>tests/library/test_interop_msl.py integrates them with SciPy (exact switching at the contact events) and compares <code>wMotor</code>,
<code>wLoad</code>, <code>Fn</code> and the adapter torques <code>tauIn</code>, <code>tauOut</code>; with k<sub>m</sub> = 10<sup>11</sup> and b = 0 it
compares the speeds with the rigid gear's closed form (ratio 2). <a href=\"modelica://WearCosimMSL.Examples.InertiasThroughMesh\">InertiasThroughMesh</a>
is the same train with the other adapter. Figures: docs/library.md.</p>
</html>"));
end MotorGearLoad;
