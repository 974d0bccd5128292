within WearCosim.Rotor.Functions;
function beamPattern "Symmetric 8x8 pattern of a beam element's mass or stiffness matrix from its 10 distinct entries"
  input Real p[10] "Distinct entries p1..p10 (see Documentation)";
  output Real P[8, 8] "Element matrix, DOF order {x1, y1, alpha1, beta1, x2, y2, alpha2, beta2}";
algorithm
  P := [p[1], 0, 0, p[2], p[3], 0, 0, -p[4];
        0, p[1], -p[2], 0, 0, p[3], p[4], 0;
        0, -p[2], p[5], 0, 0, -p[6], -p[7], 0;
        p[2], 0, 0, p[5], p[6], 0, 0, -p[7];
        p[3], 0, 0, p[6], p[8], 0, 0, -p[9];
        0, p[3], -p[6], 0, 0, p[8], p[9], 0;
        0, p[4], -p[7], 0, 0, p[9], p[10], 0;
        -p[4], 0, 0, -p[7], -p[9], 0, 0, p[10]];
  annotation (Documentation(info = "<html>
<p>The translational mass matrix of ROSS's shaft element (entries m1..m10, lateral rows and
columns) has this layout; the rotary-inertia mass matrix and the stiffness matrix have the same
layout with p = (m11, m12, -m11, -m13, m14, -m12, m15, m11, m13, m16) and
p = (k1, k2, -k1, -k3, k4, -k2, -k5, k1, k3, k6) respectively. The signs are ROSS's (&alpha; rotation about x, &beta; rotation about y,
lateral degrees of freedom x, y; Nelson 1980).</p>
</html>"));
end beamPattern;
