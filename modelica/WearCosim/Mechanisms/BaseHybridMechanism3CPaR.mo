within WearCosim.Mechanisms;
partial model BaseHybridMechanism3CPaR "Common part of the 3-CPaR&R1R2 models: parameters, prescribed drives, platform kinematics, mass matrix of chain 3"
  import SI = WearCosim.Units.SI;
  parameter WearCosim.Mechanisms.HybridMechanismData data "Geometry, masses, materials and driving laws";
  parameter SI.AngularVelocity omega = 8*3.141592653589793 "Angular frequency w of the driving laws";
  SI.Angle phase(start = 0, fixed = true) "Drive phase w*t (state of the prescribed drive)";
  output SI.Length q1 "Drive q1 = 0.354 - 0.005 sin(wt): cylindrical joint 1 (platform x)";
  output SI.Length q2 "Drive q2 = 0.409 - 0.005 cos(wt): cylindrical joint 2 (platform y)";
  output SI.Length q3 "Drive q3 = 0.415 - 0.005 cos(wt): cylindrical joint 3 (platform z + const)";
  output SI.Angle q4 "Drive q4 = 0.1 sin(wt): serial revolute about X";
  output SI.Angle q5 "Drive q5 = 0.2 sin(wt): serial revolute about Y";
  SI.Position rD3[2] "Bearing centre D3 on the platform, XY";
  SI.Velocity vD3[2] "Velocity of D3 on the platform";
  SI.Acceleration aD3[2] "Acceleration of D3 on the platform";
protected
  final parameter SI.Length a3 = data.l31 + data.l33 "Lever of the journal about A3 along the A3B3 direction";
  final parameter SI.Inertia M11 = data.m31*data.l31^2/4 + data.J31 + data.m32*data.l31^2 + data.m33*(data.l31 + data.s33)^2 + data.J33 "Mass-matrix entry (alpha, alpha)";
  final parameter SI.Inertia M22 = data.m32*data.l32^2/4 + data.J32 + data.m33*data.l32^2 "Mass-matrix entry (beta, beta)";
  final parameter SI.Inertia hM = data.m32*data.l31*data.l32/2 + data.m33*(data.l31 + data.s33)*data.l32 "Amplitude of the coupling entry hM*cos(alpha - beta)";
  final parameter Real G1(unit = "kg.m") = data.m31*data.l31/2 + data.m32*data.l31 + data.m33*(data.l31 + data.s33) "First moment of chain 3's masses about A3 along A3B3 (gravity term of alpha)";
  final parameter Real G2(unit = "kg.m") = data.m32*data.l32/2 + data.m33*data.l32 "First moment of chain 3's masses along the parallelogram bars (gravity term of beta)";
equation
  der(phase) = omega;
  q1 = data.q10 - data.qAmp*sin(phase);
  q2 = data.q20 - data.qAmp*cos(phase);
  q3 = data.q30 - data.qAmp*cos(phase);
  q4 = data.q4Amp*sin(phase);
  q5 = data.q5Amp*sin(phase);
  rD3 = {q1 + data.xD3, q2 + data.yD3};
  vD3 = data.qAmp*omega*{-cos(phase), sin(phase)};
  aD3 = data.qAmp*omega^2*{sin(phase), cos(phase)};
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Polygon(points = {{-60, 30}, {60, 30}, {0, 70}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, -80}, {-60, 30}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{80, -80}, {60, 30}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{0, -80}, {0, 70}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{-95, -80}, {95, -80}}, color = {0, 0, 0}),
      Ellipse(extent = {{-8, 78}, {8, 62}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Shared by <a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a> and its ideal twin.
Prescribed drives (seed 002 section 3) as explicit functions of the phase w&middot;t (one trivial state,
der(phase) = w, so that each model is an ODE in every tool). The platform only translates
(chains 1 and 2 with orthogonal axes constrain all its rotations), so D3 moves with
(q<sub>1</sub> + x<sub>D3</sub>, q<sub>2</sub> + y<sub>D3</sub>) in XY, a circle of radius 5 mm.</p>
<p>Chain 3 in its plane (parallel to XY), generalised coordinates &alpha; (angle of A3B3 and,
through the parallelogram, of C3D3) and &beta; (angle of the parallelogram bars B3C3):</p>
<pre>
  D3 = A3 + (l31 + l33) u(alpha) + l32 u(beta),     u(x) = (cos x, sin x)
  T  = 1/2 [M11 alpha'^2 + 2 hM cos(alpha - beta) alpha' beta' + M22 beta'^2]
  M11 = m31 l31^2/4 + J31 + m32 l31^2 + m33 (l31 + s33)^2 + J33
  M22 = m32 l32^2/4 + J32 + m33 l32^2,   hM = m32 l31 l32/2 + m33 (l31 + s33) l32
</pre>
<p>Lagrange: M(q) q'' + [hM sin(&alpha;-&beta;) &beta;'<sup>2</sup>, -hM sin(&alpha;-&beta;) &alpha;'<sup>2</sup>] = Q,
Q = J<sup>T</sup> F + [&tau;, 0] + Q<sub>g</sub>, J = [(l<sub>31</sub>+l<sub>33</sub>)u'(&alpha;), l<sub>32</sub>u'(&beta;)], F the force on the journal at D3,
Q<sub>g</sub> = -g<sub>plane</sub>[G<sub>1</sub> cos &alpha;, G<sub>2</sub> cos &beta;] the generalised gravity forces of the chain's links
(G<sub>1</sub> = m<sub>31</sub>l<sub>31</sub>/2 + m<sub>32</sub>l<sub>31</sub> + m<sub>33</sub>(l<sub>31</sub>+s<sub>33</sub>), G<sub>2</sub> = m<sub>32</sub>l<sub>32</sub>/2 + m<sub>33</sub>l<sub>32</sub>).</p>
<p><b>Gravity in the chain's plane.</b> The seed fixes the clearance at D3 but its figure and tables (which
axis each chain drives) are not in the text. By default chain 3's joint axes are vertical (the Z chain):
gravity acts along the axes and the D3 joint carries only the chain's inertial loads, which scale with
&omega;<sup>2</sup> and give geometrically similar orbits at every speed. <code>data.gPlane</code> = 9.81 m/s<sup>2</sup>
mounts chain 3 with horizontal axes, so gravity (along -y of the plane) loads D3 radially: a
speed-independent load against the inertial loads, which is what makes the contact pattern change with
speed. The seed itself hangs chain 3 with its axes parallel to gravity (Z), so the seed studies in
<code>cosim/seed</code> keep the default <code>data.gPlane</code> = 0; <code>cosim/seed/tilted</code> repeats them with
3.0 m/s<sup>2</sup> (chain 3's plane inclined 17.8&deg; from the horizontal, 3.0 = 9.81 sin 17.8&deg;) as a
sensitivity case: there the gravity load is overtaken by the inertial loads between 4&pi; and 8&pi;.</p>
<p><b>Friction in the passive joints.</b> <code>data.tauFricA3</code> and <code>data.tauFricPa</code> (default 0) add
Coulomb friction torques, regularised as tanh(w/<code>data.wFric</code>), to the rotation of A3 (&alpha;) and to the
parallelogram's pins (relative rotation &beta; - &alpha;): a load that does not scale with &omega;<sup>2</sup>. Where it exceeds
what the inertial loads can supply, the parallelogram sticks and the D3 joint is driven into impacts
(<code>cosim/seed/impact_4pi.toml</code>; docs/physics/mechanisms.md).</p>
</html>"));
end BaseHybridMechanism3CPaR;
