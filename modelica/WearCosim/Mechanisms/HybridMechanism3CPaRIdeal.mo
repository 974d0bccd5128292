within WearCosim.Mechanisms;
model HybridMechanism3CPaRIdeal "Ideal-joint twin of the 3-CPaR&R1R2 mechanism: closed-form chain-3 kinematics and D3 reaction"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseHybridMechanism3CPaR;
  SI.Angle q[2] "Passive angles of chain 3 (alpha, beta) from the inverse kinematics";
  SI.AngularVelocity qd[2] "Angular velocities of chain 3";
  SI.AngularAcceleration qdd[2] "Angular accelerations of chain 3";
  output SI.Force Fx "Reaction of the ideal revolute D3 on the journal (chain 3), x";
  output SI.Force Fy "Reaction of the ideal revolute D3 on the journal (chain 3), y";
  output SI.Force Fjoint "Magnitude of the D3 reaction";
protected
  SI.Position p[2] "D3 relative to A3";
  SI.Length d "|A3D3|";
  Real j[2, 2] "Jacobian dD3/dq [m]";
  Real detJ "Determinant of j [m2]";
  SI.Acceleration b[2] "Acceleration of D3 plus the centripetal terms, b = j*qdd";
  Real g[2] "Generalised inertia forces M*qdd + velocity terms [N.m]";
equation
  p = rD3 - {data.xA3, data.yA3};
  d = sqrt(p[1]^2 + p[2]^2);
  q[1] = atan2(p[2], p[1]) + data.elbow*acos((a3^2 + d^2 - data.l32^2)/(2*a3*d));
  q[2] = atan2(p[2] - a3*sin(q[1]), p[1] - a3*cos(q[1]));
  j = [-a3*sin(q[1]), -data.l32*sin(q[2]); a3*cos(q[1]), data.l32*cos(q[2])];
  detJ = j[1, 1]*j[2, 2] - j[1, 2]*j[2, 1];
  // j*qd = vD3 and j*qdd = aD3 + a3 u(alpha) alpha'^2 + l32 u(beta) beta'^2, solved by Cramer's rule
  qd = {j[2, 2]*vD3[1] - j[1, 2]*vD3[2], -j[2, 1]*vD3[1] + j[1, 1]*vD3[2]}/detJ;
  b = aD3 + a3*{cos(q[1]), sin(q[1])}*qd[1]^2 + data.l32*{cos(q[2]), sin(q[2])}*qd[2]^2;
  qdd = {j[2, 2]*b[1] - j[1, 2]*b[2], -j[2, 1]*b[1] + j[1, 1]*b[2]}/detJ;
  // Lagrange equations of chain 3 with the ideal D3: transpose(j)*F = M*qdd + velocity terms
  g = {M11*qdd[1] + hM*cos(q[1] - q[2])*qdd[2] + hM*sin(q[1] - q[2])*qd[2]^2 + data.gPlane*G1*cos(q[1]) + data.tauFricA3*tanh(qd[1]/data.wFric) - data.tauFricPa*tanh((qd[2] - qd[1])/data.wFric), hM*cos(q[1] - q[2])*qdd[1] + M22*qdd[2] - hM*sin(q[1] - q[2])*qd[1]^2 + data.gPlane*G2*cos(q[2]) + data.tauFricPa*tanh((qd[2] - qd[1])/data.wFric)};
  Fx = (j[2, 2]*g[1] - j[2, 1]*g[2])/detJ;
  Fy = (-j[1, 2]*g[1] + j[1, 1]*g[2])/detJ;
  Fjoint = sqrt(Fx^2 + Fy^2);
  annotation (Documentation(info = "<html>
<p>Ideal twin of <a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a>: the same
bodies with an ideal revolute at D3. The journal centre coincides with D3 on the platform, so chain 3's
angles follow from the closed-form inverse kinematics of its two-arm linkage (branch <code>data.elbow</code>),
the rates and accelerations from j&middot;q' = v<sub>D3</sub>, j&middot;q'' = a<sub>D3</sub> + (l<sub>31</sub>+l<sub>33</sub>)u(&alpha;)&alpha;'<sup>2</sup> + l<sub>32</sub>u(&beta;)&beta;'<sup>2</sup>
(Cramer's rule), and the D3 reaction on the journal from the same Lagrange equations,
j<sup>T</sup>F = M(q)q'' + velocity terms - Q<sub>g</sub> - Q<sub>f</sub> (gravity and the passive joints' friction, see the base class; an ideal revolute transmits no moment). Sign convention identical
to the clearance model's joint force (force on the journal).</p></html>"));
end HybridMechanism3CPaRIdeal;
