within WearCosim.Gears;
partial model BaseWheelPair "Wheels a and b of a gear pair (12 DOF) with their parameters, without the mesh"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  // ---------------------------------------------------------------- teeth
  parameter SI.Length module = 4e-3 "Module (transverse)";
  parameter Integer zA = 25 "Teeth of wheel a (the larger wheel; the ring if internal)";
  parameter Integer zB = 25 "Teeth of wheel b";
  parameter Boolean internal = false "Internal mesh (a is the ring)";
  final parameter SI.Radius rhoA = module*zA/2 "Pitch radius of a";
  final parameter SI.Radius rhoB = module*zB/2 "Pitch radius of b";
  // ---------------------------------------------------------------- wheels (default: steel discs of the pitch radius)
  parameter SI.Length width = 0.02 "Face width";
  parameter SI.Density density = 7800 "Density of the wheels";
  parameter SI.Mass mA = density*pi*rhoA^2*width "Mass of wheel a";
  parameter SI.Mass mB = density*pi*rhoB^2*width "Mass of wheel b";
  parameter SI.Inertia IA = mA*rhoA^2/2 "Polar inertia of wheel a";
  parameter SI.Inertia IB = mB*rhoB^2/2 "Polar inertia of wheel b";
  parameter SI.Inertia IdA = mA*(rhoA^2/4 + width^2/12) "Diametral inertia of wheel a";
  parameter SI.Inertia IdB = mB*(rhoB^2/4 + width^2/12) "Diametral inertia of wheel b";
  // ---------------------------------------------------------------- orientation
  parameter Real e1A[3] = {1, 0, 0} "Nominal e1 of a (towards the pitch point for the default rB0)";
  parameter Real e3A[3] = {0, 0, 1} "Axis of a";
  parameter Real e1B[3] = if internal then e1A else -e1A "Nominal e1 of b";
  parameter Real e3B[3] = e3A "Axis of b";
  // ---------------------------------------------------------------- supports
  parameter Boolean fixedTranslationA = true "Rigid radial/axial bearing of a";
  parameter Boolean fixedTranslationB = true "Rigid radial/axial bearing of b";
  parameter Boolean fixedTiltA = true "No tilt of a";
  parameter Boolean fixedTiltB = true "No tilt of b";
  parameter Boolean fixedRotationA = false "Spin of a held";
  parameter Boolean fixedRotationB = false "Spin of b held";
  parameter SI.AngularVelocity wA0 = 0 "Initial spin rate of a";
  parameter SI.AngularVelocity wB0 = (if internal then 1 else -1)*wA0*zA/zB "Initial spin rate of b (rigid ratio)";
  parameter SI.Angle psiB0 = 0 "Initial spin angle of b (mesh pre-load / backlash position)";
  WearCosim.Gears.Wheel wheelA(m = mA, Ip = IA, Id = IdA, e1 = e1A, e3 = e3A, fixedTranslation = fixedTranslationA,
    fixedTilt = fixedTiltA, fixedRotation = fixedRotationA, w0 = wA0) "Wheel a";
  WearCosim.Gears.Wheel wheelB(m = mB, Ip = IB, Id = IdB, e1 = e1B, e3 = e3B, fixedTranslation = fixedTranslationB,
    fixedTilt = fixedTiltB, fixedRotation = fixedRotationB, w0 = wB0, psi0 = psiB0) "Wheel b";
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-90, 60}, {10, -40}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{10, 40}, {80, -30}}, lineColor = {0, 0, 0}, fillColor = {160, 160, 164}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{-48, 18}, {-32, 2}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Ellipse(extent = {{38, 12}, {52, -2}}, lineColor = {0, 0, 0}, fillColor = {0, 0, 0}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>The two <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>s of a gear pair, 6 DOF each, with the parameters that
size, orient, support and start them (default wheels: solid steel discs of the pitch radius and face width
<code>width</code>; rigid bearings). Shared by <a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>, which adds the
<a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>, and by the body models of
<a href=\"modelica://WearCosim.Components.Gears\">Components.Gears</a>, which take the mesh loads as inputs.</p>
</html>"));
end BaseWheelPair;
