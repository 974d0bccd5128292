within WearCosim.Rotor.Functions;
function invertMatrix "Inverse of a symmetric positive-definite matrix by Gauss-Jordan elimination without pivoting"
  input Real A[:, size(A, 1)] "Symmetric positive-definite matrix";
  output Real Ainv[size(A, 1), size(A, 1)] "Inverse of A";
protected
  Integer n = size(A, 1) "Order";
  Real B[size(A, 1), size(A, 1)] "Working copy of A, reduced to the identity";
  Real p "Pivot";
  Real f "Elimination factor";
algorithm
  B := A;
  Ainv := identity(n);
  for k in 1:n loop
    p := B[k, k];
    for j in 1:n loop
      B[k, j] := B[k, j]/p;
      Ainv[k, j] := Ainv[k, j]/p;
    end for;
    for i in 1:n loop
      if i <> k then
        f := B[i, k];
        for j in 1:n loop
          B[i, j] := B[i, j] - f*B[k, j];
          Ainv[i, j] := Ainv[i, j] - f*Ainv[k, j];
        end for;
      end if;
    end for;
  end for;
  annotation (Documentation(info = "<html>
<p>Used once, in a parameter binding, to turn the mass matrix into M<sup>-1</sup> so that the
equations of motion are explicit (der(v) = M<sup>-1</sup>(f - Kq - (C+&Omega;G)v)) instead of a
linear system solved at every right-hand-side call. No pivoting is needed for a symmetric
positive-definite matrix (every pivot is a positive Schur complement); the rotor's mass matrix is
positive definite (consistent beam mass plus disks).</p>
</html>"));
end invertMatrix;
