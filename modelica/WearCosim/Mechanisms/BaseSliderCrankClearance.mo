within WearCosim.Mechanisms;
partial model BaseSliderCrankClearance "Slider-crank (Flores-Ambrosio benchmark) around its rod/slider clearance joint: parameters, states, kinematics and equations of motion under the joint loads"
  import SI = WearCosim.Units.SI;
  // ---------------------------------------------------------------- benchmark data (Flores & Ambrosio 2004)
  parameter SI.Length r = 0.05 "Crank length";
  parameter SI.Length l = 0.12 "Connecting-rod length (crank pin to journal centre)";
  parameter SI.Mass m1 = 0.30 "Crank mass (prescribed motion: not used by the dynamics)";
  parameter SI.Mass m2 = 0.21 "Connecting-rod mass (centre of mass at l/2)";
  parameter SI.Mass m3 = 0.14 "Slider mass";
  parameter SI.Inertia J1 = 1e-5 "Crank moment of inertia (prescribed motion: not used)";
  parameter SI.Inertia J2 = 2.5e-4 "Connecting-rod moment of inertia about its centre of mass";
  parameter SI.Inertia J3 = 1e-4 "Slider moment of inertia (the slider does not rotate: not used)";
  parameter SI.AngularVelocity omega = 5000*2*3.141592653589793/60 "Constant crank speed (5000 rpm)";
  parameter SI.Angle phi0 = 0 "Crank angle at t = 0 (0: top dead centre, slider farthest out)";
  parameter SI.Acceleration g = 9.81 "Gravity along -y (in the mechanism plane)";
  // ---------------------------------------------------------------- states
  SI.Angle phi2(start = phi2Start, fixed = true) "Connecting-rod angle (from the x axis)";
  SI.AngularVelocity w2(start = w2Start, fixed = true) "Connecting-rod angular velocity";
  SI.Position x3(start = x3Start, fixed = true) "Slider position (bearing centre on the x axis)";
  SI.Velocity v3(start = 0, fixed = true) "Slider velocity (0 at the start, crank at phi0 = 0)";
  // ---------------------------------------------------------------- kinematics and outputs
  SI.Angle phi1 "Crank angle (prescribed)";
  SI.Position rCrankPin[2] "Crank pin (rod end B)";
  SI.Velocity vCrankPin[2] "Velocity of the crank pin";
  SI.Acceleration aCrankPin[2] "Acceleration of the crank pin";
  SI.Position rJournal[2] "Journal centre (rod end C)";
  SI.Velocity vJournal[2] "Velocity of the journal centre";
  output SI.Acceleration aSlider "Slider acceleration";
  output SI.Position ex "Journal centre relative to the bearing centre, x (orbit)";
  output SI.Position ey "Journal centre relative to the bearing centre, y (orbit)";
  // ---------------------------------------------------------------- loads of the clearance joint (bound by the extending model)
  SI.Force FJournal[2] "Force of the clearance joint on the journal (connecting rod), global frame";
  SI.Torque tauJournal "Torque of the clearance joint on the connecting rod about the journal centre";
protected
  final parameter SI.Angle phi2Start = asin(-r/l*sin(phi0)) "Ideal rod angle at t = 0";
  final parameter SI.AngularVelocity w2Start = -r/l*omega*cos(phi0)/cos(phi2Start) "Ideal rod angular velocity at t = 0";
  final parameter SI.Position x3Start = r*cos(phi0) + l*cos(phi2Start) "Ideal slider position at t = 0 (journal centred)";
  final parameter SI.Inertia JB = J2 + m2*l^2/4 "Rod inertia about the crank pin";
equation
  phi1 = phi0 + omega*time;
  rCrankPin = r*{cos(phi1), sin(phi1)};
  vCrankPin = r*omega*{-sin(phi1), cos(phi1)};
  aCrankPin = -r*omega^2*{cos(phi1), sin(phi1)};
  rJournal = rCrankPin + l*{cos(phi2), sin(phi2)};
  vJournal = vCrankPin + l*w2*{-sin(phi2), cos(phi2)};
  // Lagrange equation of the rod (coordinate phi2, crank pin prescribed)
  der(phi2) = w2;
  JB*der(w2) = -m2*l/2*({-sin(phi2), cos(phi2)}*aCrankPin) - m2*g*l/2*cos(phi2) + l*({-sin(phi2), cos(phi2)}*FJournal) + tauJournal;
  // slider on a frictionless horizontal guide: reaction of the journal force
  der(x3) = v3;
  der(v3) = aSlider;
  m3*aSlider = -FJournal[1];
  ex = rJournal[1] - x3;
  ey = rJournal[2];
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-90, -40}, {90, -40}}, color = {0, 0, 0}),
      Ellipse(extent = {{-76, 4}, {-64, -8}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Line(points = {{-70, -2}, {-40, 45}}, color = {0, 0, 0}, thickness = 1),
      Line(points = {{-40, 45}, {40, 0}}, color = {0, 0, 0}, thickness = 1),
      Rectangle(extent = {{20, 18}, {70, -30}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{32, 8}, {48, -8}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>The rigid bodies of the slider-crank benchmark (docs/physics/mechanisms.md) with the revolute joint between connecting rod
(journal, rod end C) and slider (bearing) removed: the joint acts only through the variables
<code>FJournal</code> (force on the journal) and <code>tauJournal</code> (torque on the rod), which an extending
model binds, either to a <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a> of its own
(<a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">SliderCrankClearance</a>) or to inputs
(<a href=\"modelica://WearCosim.Components.Mechanisms.SliderCrankBody\">Components.Mechanisms.SliderCrankBody</a>).
One set of equations serves both, so the monolithic examples and a composition of components integrate the same
equations.</p>
<h4>Equations</h4>
<p>Crank at constant speed, &phi;<sub>1</sub> = &phi;<sub>0</sub> + &omega;t (prescribed, no state).
Crank pin B = r(cos&phi;<sub>1</sub>, sin&phi;<sub>1</sub>), ideal revolute at B. Free coordinates: rod angle
&phi;<sub>2</sub> and slider position x<sub>3</sub> (4 states). Journal centre C = B + l(cos&phi;<sub>2</sub>, sin&phi;<sub>2</sub>),
bearing centre (x<sub>3</sub>, 0). Lagrange:</p>
<pre>
  (J2 + m2 l^2/4) phi2'' = -m2 l/2 u'(phi2).a_B - m2 g l/2 cos(phi2) + l u'(phi2).F + tauJ
  m3 x3'' = -F_x          (frictionless guide; F = joint force on the journal)
</pre>
<p>with u'(&phi;) = (-sin&phi;, cos&phi;). The slider does not rotate: the joint's torque on the bearing is taken
by the guide and does not enter. Initial state: the ideal mechanism's position and velocity at
&phi;<sub>0</sub>, journal centred in the bearing (as in Flores &amp; Ambr&oacute;sio). Parameters and their
provenance: see <a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">SliderCrankClearance</a>.</p>
</html>"));
end BaseSliderCrankClearance;
