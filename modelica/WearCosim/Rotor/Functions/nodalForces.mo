within WearCosim.Rotor.Functions;
function nodalForces "Global force vector from lateral forces (x, y) applied at given nodes"
  import SI = WearCosim.Units.SI;
  input Integer nDof "Number of global degrees of freedom";
  input Integer node[:] "Node of each force";
  input SI.Force Fx[size(node, 1)] "Force along x at each node";
  input SI.Force Fy[size(node, 1)] "Force along y at each node";
  output SI.Force f[nDof] "Global force vector (moments 0)";
algorithm
  f := zeros(nDof);
  for d in 1:size(node, 1) loop
    f[4*(node[d] - 1) + 1] := f[4*(node[d] - 1) + 1] + Fx[d];
    f[4*(node[d] - 1) + 2] := f[4*(node[d] - 1) + 2] + Fy[d];
  end for;
  annotation (Documentation(info = "<html><p>Scatters nodal lateral forces into the global
vector; the node indices are structural, so the result is a vector of sums of the inputs.</p></html>"));
end nodalForces;
