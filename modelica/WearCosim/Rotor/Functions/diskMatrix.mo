within WearCosim.Rotor.Functions;
function diskMatrix "Global mass or gyroscopic matrix of rigid disks at given nodes"
  import SI = WearCosim.Units.SI;
  input Integer kind "1: mass (m, m, Id, Id), 3: gyroscopic per unit spin (Ip, skew)";
  input Integer nDof "Number of global degrees of freedom";
  input Integer node[:] "Node of each disk";
  input SI.Mass m[size(node, 1)] "Disk masses";
  input SI.Inertia Ip[size(node, 1)] "Polar moments of inertia";
  input SI.Inertia Id[size(node, 1)] "Diametral moments of inertia";
  output Real A[nDof, nDof] "Global matrix";
protected
  Integer k "First DOF of the disk's node";
algorithm
  A := zeros(nDof, nDof);
  for d in 1:size(node, 1) loop
    k := 4*(node[d] - 1);
    if kind == 1 then
      A[k + 1, k + 1] := A[k + 1, k + 1] + m[d];
      A[k + 2, k + 2] := A[k + 2, k + 2] + m[d];
      A[k + 3, k + 3] := A[k + 3, k + 3] + Id[d];
      A[k + 4, k + 4] := A[k + 4, k + 4] + Id[d];
    else
      A[k + 3, k + 4] := A[k + 3, k + 4] + Ip[d];
      A[k + 4, k + 3] := A[k + 4, k + 3] - Ip[d];
    end if;
  end for;
  annotation (Documentation(info = "<html>
<p>ROSS 2.3.0 <code>DiskElement.M()</code> and <code>.G()</code>, lateral DOF: a rigid disk adds
diag(m, m, I<sub>d</sub>, I<sub>d</sub>) to the mass matrix and the skew block
[0, I<sub>p</sub>; -I<sub>p</sub>, 0] on (&alpha;, &beta;) to the gyroscopic matrix.</p>
</html>"));
end diskMatrix;
