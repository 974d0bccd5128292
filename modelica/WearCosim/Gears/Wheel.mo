within WearCosim.Gears;
model Wheel "Rigid gear wheel or shaft body: 3 translations, unbounded spin and 2 small tilts (6 DOF), each group optionally held by a rigid support"
  import SI = WearCosim.Units.SI;
  parameter SI.Mass m = 1 "Mass";
  parameter SI.Inertia Ip = 1e-3 "Polar moment of inertia (about the axis e3)";
  parameter SI.Inertia Id = Ip/2 "Diametral moment of inertia (about e1, e2)";
  parameter Real e1[3] = {1, 0, 0} "Nominal transverse axis e1 (unit vector normal to e3), global frame";
  parameter Real e3[3] = {0, 0, 1} "Nominal rotation axis e3 (unit vector), global frame";
  parameter Boolean fixedTranslation = false "true: rigid bearing, centre held at its nominal position";
  parameter Boolean fixedTilt = true "true: rigid bearing, no tilt";
  parameter Boolean fixedRotation = false "true: spin held (e.g. fixed ring gear)";
  parameter SI.AngularVelocity w0 = 0 "Initial spin rate d(psi)/dt";
  parameter SI.Angle psi0 = 0 "Initial spin angle";
  parameter SI.Velocity v0[3] = {0, 0, 0} "Initial velocity of the centre (if not fixed)";
  WearCosim.Gears.WheelHub hub "Hub of the wheel (owned: positions and velocities set here)";
  SI.Position u[3] "Displacement of the centre, global frame";
  SI.Velocity v[3] "Velocity of the centre, global frame";
  SI.Angle tilt1 "Small tilt about e1";
  SI.Angle tilt2 "Small tilt about e2";
  SI.Angle psi "Accumulated spin about e3 (unbounded)";
  SI.AngularVelocity wt1 "Tilt rate about e1";
  SI.AngularVelocity wt2 "Tilt rate about e2";
  SI.AngularVelocity w "Spin rate";
  SI.Torque M[3] "External torque on the wheel in the nominal frame {M1, M2, M3}";
protected
  final parameter Real e2[3] = cross(e3, e1) "Nominal e2 = e3 x e1";
  final parameter Real E0[3, 3] = transpose({e1, e2, e3}) "Nominal frame, columns e1, e2, e3";
initial equation
  if not fixedTranslation then
    u = zeros(3);
    v = v0;
  end if;
  if not fixedTilt then
    tilt1 = 0;
    tilt2 = 0;
    wt1 = 0;
    wt2 = 0;
  end if;
  if not fixedRotation then
    psi = psi0;
    w = w0;
  end if;
equation
  hub.u = u;
  hub.v = v;
  hub.phi = E0*{tilt1, tilt2, psi};
  hub.w = E0*{wt1, wt2, w};
  M = transpose(E0)*hub.t;
  if fixedTranslation then
    u = zeros(3);
    v = zeros(3);
  else
    der(u) = v;
    m*der(v) = hub.f;
  end if;
  if fixedTilt then
    tilt1 = 0;
    tilt2 = 0;
    wt1 = 0;
    wt2 = 0;
  else
    der(tilt1) = wt1;
    der(tilt2) = wt2;
    Id*der(wt1) + Ip*w*wt2 = M[1];
    Id*der(wt2) - Ip*w*wt1 = M[2];
  end if;
  if fixedRotation then
    psi = psi0;
    w = 0;
  else
    der(psi) = w;
    Ip*der(w) = M[3];
  end if;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-80, 80}, {80, -80}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-20, 20}, {20, -20}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Rigid body carrying a gear (or a shaft inertia). Generalised coordinates: the displacement
<b>u</b> of the centre (global frame), the spin &psi; about the nominal axis e3 and two small tilts about
the nominal axes e1, e2. The external loads arrive through <code>hub</code> (sum of the flows of all
connected elements = force/torque on the wheel).</p>
<h4>Equations</h4>
<ul>
<li>m&middot;d<b>v</b>/dt = <b>f</b> (exact, global frame: valid for large orbits, e.g. planets);</li>
<li>I<sub>p</sub>&middot;d&omega;/dt = M<sub>3</sub>;</li>
<li>I<sub>d</sub>&middot;d&omega;<sub>1</sub>/dt + I<sub>p</sub>&omega;&omega;<sub>2</sub> = M<sub>1</sub>,
I<sub>d</sub>&middot;d&omega;<sub>2</sub>/dt - I<sub>p</sub>&omega;&omega;<sub>1</sub> = M<sub>2</sub> (small-tilt rotor equations with the
gyroscopic coupling; M = E0<sup>T</sup><b>t</b>).</li>
</ul>
<h4>Rotations without singularity</h4>
<p>Following the paper's split of the rotation into a large accumulated part and a small
increment, the large rotation is the spin &psi; about the fixed nominal axis, integrated as an
unbounded angle (no wrapping, no Euler-vector singularity at 2&pi;), and the increment is the pair of
small tilts held by the bearings: R = E0&middot;R<sub>x</sub>(tilt1)R<sub>y</sub>(tilt2)R<sub>z</sub>(&psi;)&middot;E0<sup>T</sup>. The orientation
used by the mesh is exact for given angles; the tilt dynamics is linearised (first order in the
tilts, as for any rotor in bearings). The parametrisation is singular only for a 90&deg; tilt.</p>
<h4>Supports</h4>
<p><code>fixedTranslation</code>, <code>fixedTilt</code>, <code>fixedRotation</code> replace the corresponding
equations of motion by rigid constraints (the paper's &quot;absolutely rigid bearings&quot;); the
reaction is then whatever the connected elements apply. Elastic bearings:
<a href=\"modelica://WearCosim.Gears.ElasticSupport\">ElasticSupport</a> on a free wheel.</p>
</html>"));
end Wheel;
