within WearCosim.Examples.Basic;
model MassSpringMatrix "Two-mass chain in matrix form M*der(v) = -K*q (linear algebraic loop)"
  extends WearCosim.Icons.Example;
  parameter Real M[2, 2] = [2, 0.5; 0.5, 1] "Mass matrix [kg] (coupled, so der(v) needs a linear solve)";
  parameter Real K[2, 2] = [40, -10; -10, 20] "Stiffness matrix [N/m]";
  Real q[2](each start = 0, each fixed = true) "Displacements [m]";
  Real v[2](start = {1, 0}, each fixed = true) "Velocities [m/s]";
  output Real energy "Kinetic + potential energy [J] (conserved)";
equation
  der(q) = v;
  M*der(v) = -K*q;
  energy = 0.5*v*M*v + 0.5*q*K*q;
  annotation (experiment(StopTime = 5, Interval = 0.005, Tolerance = 1e-8),
    Documentation(info = "<html><p>Undamped two-degree-of-freedom system; the exporter
turns M*der(v) = -K*q into a linear solve.  Energy is conserved.</p></html>"));
end MassSpringMatrix;
