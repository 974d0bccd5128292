within WearCosim.Rotor;
model FiniteElementRotor "Finite-element rotor: Timoshenko shaft elements, rigid disks, linear bearings, unbalance, gyroscopic effects, constant or ramped spin"
  import SI = WearCosim.Units.SI;
  // ---------------------------------------------------------------- shaft
  parameter Integer nElements(min = 1) = 6 "Number of shaft elements (nodes 1 .. nElements + 1)";
  final parameter Integer nNodes = nElements + 1 "Number of nodes";
  final parameter Integer nDof = 4*nNodes "Number of degrees of freedom (x, y, alpha, beta per node)";
  parameter SI.Length Le[nElements] = fill(0.1, nElements) "Element lengths" annotation (Evaluate = true);
  parameter SI.Length dOut[nElements] = fill(0.02, nElements) "Outer diameters of the elements" annotation (Evaluate = true);
  parameter SI.Length dIn[nElements] = zeros(nElements) "Inner diameters of the elements (0: solid)" annotation (Evaluate = true);
  parameter SI.Density rho = 7810 "Density of the shaft" annotation (Evaluate = true);
  parameter SI.ModulusOfElasticity E = 211e9 "Young's modulus of the shaft" annotation (Evaluate = true);
  parameter SI.ModulusOfElasticity G = 81.2e9 "Shear modulus of the shaft" annotation (Evaluate = true);
  parameter Boolean shearEffects = true "Timoshenko elements (false: Euler-Bernoulli)";
  parameter Boolean rotaryInertia = true "Rotary inertia of the shaft cross sections";
  parameter Boolean gyroscopic = true "Gyroscopic moments of shaft and disks";
  parameter Real alphaR(unit = "1/s", min = 0) = 0 "Rayleigh damping of the shaft elements: alphaR*M_shaft" annotation (Evaluate = true);
  parameter Real betaR(unit = "s", min = 0) = 0 "Rayleigh damping of the shaft elements: betaR*K_shaft" annotation (Evaluate = true);
  // ---------------------------------------------------------------- disks
  parameter Integer nDisks(min = 1) = 2 "Number of rigid disks";
  parameter Integer diskNode[nDisks] = {3, 5} "Node of each disk";
  parameter SI.Mass mDisk[nDisks] = fill(2.7, nDisks) "Disk masses" annotation (Evaluate = true);
  parameter SI.Inertia IpDisk[nDisks] = fill(7.6e-3, nDisks) "Polar moments of inertia of the disks" annotation (Evaluate = true);
  parameter SI.Inertia IdDisk[nDisks] = fill(3.9e-3, nDisks) "Diametral moments of inertia of the disks" annotation (Evaluate = true);
  parameter Real unbalance[nDisks](each unit = "kg.m") = zeros(nDisks) "Unbalance (mass times eccentricity) of each disk";
  parameter SI.Angle unbalancePhase[nDisks] = zeros(nDisks) "Angular position of each unbalance at spin angle 0";
  // ---------------------------------------------------------------- bearings
  parameter Integer nBearings(min = 1) = 2 "Number of bearings";
  parameter Integer bearingNode[nBearings] = {1, nNodes} "Node of each bearing";
  parameter SI.TranslationalSpringConstant kxx[nBearings] = fill(1e7, nBearings) "Bearing stiffness xx" annotation (Evaluate = true);
  parameter SI.TranslationalSpringConstant kyy[nBearings] = kxx "Bearing stiffness yy" annotation (Evaluate = true);
  parameter SI.TranslationalSpringConstant kxy[nBearings] = zeros(nBearings) "Bearing cross stiffness xy" annotation (Evaluate = true);
  parameter SI.TranslationalSpringConstant kyx[nBearings] = zeros(nBearings) "Bearing cross stiffness yx" annotation (Evaluate = true);
  parameter SI.TranslationalDampingConstant cxx[nBearings] = fill(100, nBearings) "Bearing damping xx" annotation (Evaluate = true);
  parameter SI.TranslationalDampingConstant cyy[nBearings] = cxx "Bearing damping yy" annotation (Evaluate = true);
  parameter SI.TranslationalDampingConstant cxy[nBearings] = zeros(nBearings) "Bearing cross damping xy" annotation (Evaluate = true);
  parameter SI.TranslationalDampingConstant cyx[nBearings] = zeros(nBearings) "Bearing cross damping yx" annotation (Evaluate = true);
  // ---------------------------------------------------------------- operation
  parameter SI.AngularVelocity Omega0 = 100 "Spin speed (before and at the start of the ramp)";
  parameter SI.AngularVelocity Omega1 = Omega0 "Spin speed at the end of the ramp (= Omega0: constant speed)";
  parameter SI.Time tRampStart = 0 "Start of the linear speed ramp";
  parameter SI.Time tRamp(min = 1e-6) = 1 "Duration of the speed ramp";
  parameter SI.Acceleration g = 0 "Gravity, acting along -y";
  parameter Integer forceNode = diskNode[1] "Node where the external force Fext acts (rub node)";
  // ---------------------------------------------------------------- interface
  input SI.Force Fext[2] "External lateral force (x, y) on node forceNode (e.g. the rub force)";
  output SI.Position rNode[2] "Displacement (x, y) of node forceNode";
  output SI.Velocity vNode[2] "Velocity (x, y) of node forceNode";
  output SI.AngularVelocity Omega "Spin speed";
  output SI.Energy energy "Kinetic + bending strain + bearing spring + gravity potential energy";
  // ---------------------------------------------------------------- states
  SI.Angle phi(start = 0, fixed = true) "Spin angle";
  Real q[nDof](each start = 0, each fixed = true, each nominal = 1e-4) "Nodal displacements {x [m], y [m], alpha [rad], beta [rad]} per node";
  Real v[nDof](each start = 0, each fixed = true, each nominal = 1e-2) "Nodal velocities";
  SI.AngularAcceleration dOmega "Spin acceleration";
  SI.Force fUnb[nDof] "Unbalance forces (global vector)";
  SI.Force fExt[nDof] "External force Fext (global vector)";
  parameter Boolean computeEnergy = false "Compute the output energy (adds two quadratic forms to every model evaluation)";
  final parameter Real M[nDof, nDof] = Functions.assembleShaft(1, Le, dOut, dIn, rho, E, G, shearEffects, rotaryInertia) + Functions.diskMatrix(1, nDof, diskNode, mDisk, IpDisk, IdDisk) "Global mass matrix (shaft + disks)";
  final parameter Real K[nDof, nDof] = Functions.assembleShaft(2, Le, dOut, dIn, rho, E, G, shearEffects, rotaryInertia) + Functions.bearingMatrix(nDof, bearingNode, kxx, kxy, kyx, kyy) "Global stiffness matrix (shaft + bearings)";
protected
  final parameter Real Minv[nDof, nDof] = Functions.invertMatrix(M) "Inverse of the mass matrix";
  final parameter Real MinvK[nDof, nDof] = Minv*K "M^-1 K";
  final parameter Real MinvC[nDof, nDof] = Minv*(alphaR*Functions.assembleShaft(1, Le, dOut, dIn, rho, E, G, shearEffects, rotaryInertia) + betaR*Functions.assembleShaft(2, Le, dOut, dIn, rho, E, G, shearEffects, rotaryInertia) + Functions.bearingMatrix(nDof, bearingNode, cxx, cxy, cyx, cyy)) "M^-1 C, C = Rayleigh damping of the shaft + bearing damping";
  final parameter Real MinvG[nDof, nDof] = if gyroscopic then Minv*(Functions.assembleShaft(3, Le, dOut, dIn, rho, E, G, shearEffects, rotaryInertia) + Functions.diskMatrix(3, nDof, diskNode, mDisk, IpDisk, IdDisk)) else zeros(nDof, nDof) "M^-1 G, G = gyroscopic matrix per unit spin speed (shaft + disks)";
  final parameter Real gVec[nDof] = {if mod(i, 4) == 2 then -g else 0 for i in 1:nDof} "Gravity acceleration of every DOF";
equation
  // spin: constant or linear ramp (the kinks at the ramp ends create no event: noEvent)
  Omega = Omega0 + (Omega1 - Omega0)*min(1, max(0, (time - tRampStart)/tRamp));
  dOmega = noEvent(if time > tRampStart and time < tRampStart + tRamp then (Omega1 - Omega0)/tRamp else 0);
  der(phi) = Omega;
  // unbalance: force of a mass u/e at radius e, angle phi + phase, on the rotor
  fUnb = Functions.nodalForces(nDof, diskNode,
    {unbalance[d]*(Omega^2*cos(phi + unbalancePhase[d]) + dOmega*sin(phi + unbalancePhase[d])) for d in 1:nDisks},
    {unbalance[d]*(Omega^2*sin(phi + unbalancePhase[d]) - dOmega*cos(phi + unbalancePhase[d])) for d in 1:nDisks});
  fExt = Functions.nodalForces(nDof, {forceNode}, {Fext[1]}, {Fext[2]});
  // equations of motion M q'' + (C + Omega G) q' + K q = f (+ gravity), explicit through M^-1
  der(q) = v;
  der(v) = Minv*(fUnb + fExt) - MinvK*q - MinvC*v - Omega*(MinvG*v) + gVec;
  rNode = {q[4*forceNode - 3], q[4*forceNode - 2]};
  vNode = {v[4*forceNode - 3], v[4*forceNode - 2]};
  if computeEnergy then
    energy = 0.5*v*M*v + 0.5*q*K*q - q*M*gVec;
  else
    energy = 0;
  end if;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-95, 0}, {95, 0}}, color = {0, 0, 0}, thickness = 1),
      Rectangle(extent = {{-45, 50}, {-35, -50}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Rectangle(extent = {{35, 50}, {45, -50}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Polygon(points = {{-90, -5}, {-100, -30}, {-80, -30}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Polygon(points = {{90, -5}, {80, -30}, {100, -30}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Rotor of <code>nElements</code> Timoshenko shaft elements (nodes 1 .. nElements+1) with four
degrees of freedom per node q = {x, y, &alpha;, &beta;} (lateral displacements, rotations about x and
y; axial and torsional motion are not modelled), rigid disks, linear bearings to ground and
unbalance on the disks (docs/physics/rotor.md):</p>
<p>M q'' + (C + &Omega;(t) G) q' + K q = f<sub>unb</sub>(t) + f<sub>ext</sub> + M g<sub>vec</sub>.</p>
<ul>
<li>M, K, G: assembled at parameter time by
<a href=\"modelica://WearCosim.Rotor.Functions\">Rotor.Functions</a> from geometry and material;
element matrices identical to ROSS 2.3.0's for cylindrical elements (consistent mass, rotary
inertia, shear factor with Cowper's &kappa;, gyroscopic matrix), so the model can be verified
against ROSS (tests/rotor).</li>
<li>C = &alpha;<sub>R</sub>M<sub>shaft</sub> + &beta;<sub>R</sub>K<sub>shaft</sub> + C<sub>bearings</sub>: Rayleigh damping of
the shaft elements only (as ROSS's element <code>alpha</code>, <code>beta</code>), plus bearing damping.</li>
<li>Unbalance u<sub>d</sub> = m<sub>u</sub>e at disk d, angle &psi; = &phi; + &phi;<sub>d</sub>:
f = u<sub>d</sub>(&Omega;<sup>2</sup>cos&psi; + &Omega;'sin&psi;, &Omega;<sup>2</sup>sin&psi; - &Omega;'cos&psi;), forward
rotation from x to y (ROSS's <code>run_unbalance_response</code> convention).</li>
<li>Spin speed &Omega;(t): constant (<code>Omega1 = Omega0</code>) or a linear ramp from Omega0 to Omega1
over [tRampStart, tRampStart+tRamp]. The angular acceleration enters the unbalance force only;
the spin-acceleration stiffness (ROSS's K<sub>st</sub>, &Omega;'-proportional) is neglected, which is
consistent for slow ramps.</li>
<li>Gravity g along -y: the consistent gravity load M g<sub>vec</sub> contributes g<sub>vec</sub> to q''.</li>
<li>The mass matrix is inverted once (<code>Minv</code>), so the state equations are
explicit: q'' = M<sup>-1</sup>(f - Kq - (C+&Omega;G)q') + g<sub>vec</sub>.</li>
<li>Geometry, material, Rayleigh damping, disks and bearings carry <code>annotation(Evaluate = true)</code>:
the matrices and M<sup>-1</sup> are computed when the model is built and are constants of the FMU, so
their zero entries vanish from the generated code (build time of the two-disk rub rotor 34 s &rarr; 7 s,
a fraction of the model evaluations). To change them, modify the model (or a wrapper) and rebuild;
unbalance, spin speed, gravity and the external force stay tunable.</li>
<li><code>energy</code> = &frac12;q'<sup>T</sup>Mq' + &frac12;q<sup>T</sup>Kq - q<sup>T</sup>Mg<sub>vec</sub>: constant for C = 0,
no unbalance and no external force at constant speed (G is skew-symmetric and does no work).</li>
</ul>
<p>External force <code>Fext</code> (input, bound by the owner, e.g. the rub force of
<a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>) acts on node <code>forceNode</code>; its
displacement and velocity are outputs.</p>
</html>"));
end FiniteElementRotor;
