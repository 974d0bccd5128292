within WearCosim.Mechanisms;
model SliderCrankIdeal "Ideal-joint twin of the slider-crank benchmark: closed-form kinematics and joint reaction"
  import SI = WearCosim.Units.SI;
  parameter SI.Length r = 0.05 "Crank length";
  parameter SI.Length l = 0.12 "Connecting-rod length";
  parameter SI.Mass m2 = 0.21 "Connecting-rod mass (centre of mass at l/2)";
  parameter SI.Mass m3 = 0.14 "Slider mass";
  parameter SI.Inertia J2 = 2.5e-4 "Connecting-rod moment of inertia about its centre of mass";
  parameter SI.AngularVelocity omega = 5000*2*3.141592653589793/60 "Constant crank speed (5000 rpm)";
  parameter SI.Angle phi0 = 0 "Crank angle at t = 0";
  parameter SI.Acceleration g = 9.81 "Gravity along -y";
  SI.Angle phi1(start = phi0, fixed = true) "Crank angle (state of the constant-speed drive)";
  SI.Angle phi2 "Connecting-rod angle";
  SI.AngularVelocity w2 "Connecting-rod angular velocity";
  SI.AngularAcceleration a2 "Connecting-rod angular acceleration";
  output SI.Position x3 "Slider position";
  output SI.Velocity v3 "Slider velocity";
  output SI.Acceleration aSlider "Slider acceleration";
  output SI.Force F[2] "Joint reaction on the connecting rod at the rod-slider revolute";
  output SI.Force Fjoint "Magnitude of the joint reaction";
protected
  SI.Acceleration aCrankPin[2] "Acceleration of the crank pin";
equation
  der(phi1) = omega;
  phi2 = asin(-r/l*sin(phi1));
  w2 = -r/l*omega*cos(phi1)/cos(phi2);
  a2 = (r/l*omega^2*sin(phi1) + w2^2*sin(phi2))/cos(phi2);
  x3 = r*cos(phi1) + l*cos(phi2);
  v3 = -r*omega*sin(phi1) - l*sin(phi2)*w2;
  aSlider = -r*omega^2*cos(phi1) - l*cos(phi2)*w2^2 - l*sin(phi2)*a2;
  aCrankPin = -r*omega^2*{cos(phi1), sin(phi1)};
  // slider: m3*aSlider = -F_x; rod (about the crank pin): (J2 + m2 l^2/4) a2 = -m2 l/2 u'.aB - m2 g l/2 cos(phi2) + l u'.F
  F[1] = -m3*aSlider;
  F[2] = ((J2 + m2*l^2/4)*a2 + m2*l/2*({-sin(phi2), cos(phi2)}*aCrankPin) + m2*g*l/2*cos(phi2) + l*sin(phi2)*F[1])/(l*cos(phi2));
  Fjoint = sqrt(F[1]^2 + F[2]^2);
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
<p>Ideal twin of <a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">SliderCrankClearance</a>
(same data and sign conventions). Closed-form kinematics of the in-line slider-crank:
sin&phi;<sub>2</sub> = -(r/l)sin&phi;<sub>1</sub>,
&phi;<sub>2</sub>' = -(r/l)&omega;cos&phi;<sub>1</sub>/cos&phi;<sub>2</sub>,
&phi;<sub>2</sub>'' = [(r/l)&omega;<sup>2</sup>sin&phi;<sub>1</sub> + &phi;<sub>2</sub>'<sup>2</sup>sin&phi;<sub>2</sub>]/cos&phi;<sub>2</sub>,
x<sub>3</sub> = r cos&phi;<sub>1</sub> + l cos&phi;<sub>2</sub> and its derivatives. At top dead centre (&phi;<sub>1</sub> = 0)
x<sub>3</sub>'' = -r&omega;<sup>2</sup>(1 + r/l) = -1.942&middot;10<sup>4</sup> m/s<sup>2</sup> at 5000 rpm.</p>
<p>Joint reaction F on the rod at the rod-slider revolute from the slider's Newton equation
(F<sub>x</sub> = -m<sub>3</sub>x<sub>3</sub>'') and the rod's Lagrange equation about the crank pin (the same equation as in the
clearance model with the contact force replaced by the reaction). The only state is the crank angle
(der(&phi;<sub>1</sub>) = &omega;), kept so that the model is an ordinary ODE for every tool.</p></html>"));
end SliderCrankIdeal;
