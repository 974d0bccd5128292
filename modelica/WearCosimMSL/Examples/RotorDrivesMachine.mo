within WearCosimMSL.Examples;
model RotorDrivesMachine "A WearCosim finite-element rotor running up drives an MSL machine (Inertia + Damper) through an MSL elastic coupling"
  extends WearCosim.Icons.Example;
  import SI = Modelica.Units.SI;
  parameter SI.AngularAcceleration alpha = 200 "Run-up acceleration of the rotor (linear speed ramp from rest, beyond StopTime)";
  parameter SI.RotationalSpringConstant c = 400 "Torsional stiffness of the coupling";
  parameter SI.RotationalDampingConstant d = 2 "Torsional damping of the coupling";
  parameter SI.Inertia J = 0.05 "Inertia of the driven machine";
  parameter SI.RotationalDampingConstant dM = 0.02 "Viscous loss of the driven machine to the ground";
  WearCosim.Rotor.FiniteElementRotor rotor(nElements = 2, Le = {0.2, 0.2}, dOut = {0.02, 0.02}, dIn = {0, 0},
    nDisks = 1, diskNode = {2}, mDisk = {2.7}, IpDisk = {7.6e-3}, IdDisk = {3.9e-3}, unbalance = {1e-4}, unbalancePhase = {0},
    nBearings = 2, bearingNode = {1, 3}, Omega0 = 0, Omega1 = 2*alpha, tRampStart = 0, tRamp = 2, Fext = {0, 0})
    "Two-element rotor, one disk with unbalance, run up from rest at alpha (WearCosim; spin prescribed; the ramp ends at 2 s, after StopTime)";
  WearCosimMSL.Rotational.SpinToFlange spin(phi = rotor.phi) "Rotor spin to an MSL flange";
  Modelica.Mechanics.Rotational.Components.SpringDamper coupling(c = c, d = d) "Elastic coupling (MSL)";
  Modelica.Mechanics.Rotational.Components.Inertia machine(J = J, phi(start = 0, fixed = true), w(start = 0, fixed = true)) "Driven machine (MSL)";
  Modelica.Mechanics.Rotational.Components.Damper loss(d = dM) "Viscous loss of the machine (MSL)";
  Modelica.Mechanics.Rotational.Components.Fixed ground "Ground (MSL)";
  output SI.AngularVelocity wRotor = rotor.Omega "Rotor speed (prescribed)";
  output SI.AngularVelocity wMachine = machine.w "Speed of the driven machine";
  output SI.Torque tauDrive = spin.tauDrive "Torque the rotor's drive delivers to the coupling";
  output SI.Position xDisk = rotor.rNode[1] "Lateral displacement x of the disk (unbalance response)";
equation
  connect(spin.flange, coupling.flange_a);
  connect(coupling.flange_b, machine.flange_a);
  connect(machine.flange_b, loss.flange_a);
  connect(loss.flange_b, ground.flange);
  annotation (experiment(StopTime = 1, Interval = 1e-3, Tolerance = 1e-10),
    Documentation(info = "<html>
<p>The <a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a> (two Timoshenko elements, one disk with unbalance,
bearings at both ends) runs up from rest at the constant acceleration &alpha;; its prescribed spin angle drives, through
<a href=\"modelica://WearCosimMSL.Rotational.SpinToFlange\">SpinToFlange</a>, an MSL <code>SpringDamper</code> coupling (c, d) and a machine
<code>Inertia</code> J with a <code>Damper</code> d<sub>M</sub> to the ground. The rotor is an ideal speed source (its lateral unbalance response,
<code>xDisk</code>, does not act on the spin), so the machine obeys</p>
<pre>
J phi'' = c (phi_r - phi) + d (Omega_r - phi') - dM phi',   Omega_r = alpha t,  phi_r = alpha t^2/2
tauDrive = c (phi_r - phi) + d (Omega_r - phi')   (the torque the rotor's drive delivers to the coupling)
</pre>
<p>Once the coupling's transient has decayed (rate (d + d<sub>M</sub>)/(2J) = 20 s<sup>-1</sup>), the closed form holds:
the coupling lags by x = (J&alpha; - (d + d<sub>M</sub>)d<sub>M</sub>&alpha;/c)/c + d<sub>M</sub>&alpha;t/c and
<code>tauDrive</code> = &alpha;(J + d<sub>M</sub>t) - d<sub>M</sub><sup>2</sup>&alpha;/c (accelerating the machine and feeding its loss at the
speed &alpha;t - d<sub>M</sub>&alpha;/c). tests/library/test_interop_msl.py checks <code>wMachine</code> and <code>tauDrive</code> against SciPy over the
run and against the closed form after 0.6 s.</p>
<p>The rotor's speed ramp ends at t = 2 s, after StopTime: the end of a ramp is a jump of the unbalance force (the rotor computes the angular
acceleration under <code>noEvent</code>), which a variable-step solver passes only at a moderate tolerance (at 1e-10 the runtime's Adams
method stops there with a step-size underflow).</p>
</html>"));
end RotorDrivesMachine;
