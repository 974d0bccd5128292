within WearCosim.Rotor.Functions;
function bearingMatrix "Global stiffness or damping matrix of linear bearings (to ground) at given nodes"
  input Integer nDof "Number of global degrees of freedom";
  input Integer node[:] "Node of each bearing";
  input Real kxx[size(node, 1)] "Direct coefficient xx (N/m or N.s/m)";
  input Real kxy[size(node, 1)] "Cross-coupled coefficient xy";
  input Real kyx[size(node, 1)] "Cross-coupled coefficient yx";
  input Real kyy[size(node, 1)] "Direct coefficient yy";
  output Real A[nDof, nDof] "Global matrix";
protected
  Integer k "First DOF of the bearing's node";
algorithm
  A := zeros(nDof, nDof);
  for b in 1:size(node, 1) loop
    k := 4*(node[b] - 1);
    A[k + 1, k + 1] := A[k + 1, k + 1] + kxx[b];
    A[k + 1, k + 2] := A[k + 1, k + 2] + kxy[b];
    A[k + 2, k + 1] := A[k + 2, k + 1] + kyx[b];
    A[k + 2, k + 2] := A[k + 2, k + 2] + kyy[b];
  end for;
  annotation (Documentation(info = "<html>
<p>ROSS 2.3.0 <code>BearingElement.K()</code>/<code>.C()</code> (lateral part): the block
[k<sub>xx</sub>, k<sub>xy</sub>; k<sub>yx</sub>, k<sub>yy</sub>] on the node's (x, y) degrees of freedom;
the bearing force on the shaft is -[k] (x, y)<sup>T</sup>. Anisotropic and cross-coupled
coefficients are allowed; speed-dependent coefficients are not.</p>
</html>"));
end bearingMatrix;
