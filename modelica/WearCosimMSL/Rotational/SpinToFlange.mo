within WearCosimMSL.Rotational;
model SpinToFlange "Adapter: the prescribed spin of a WearCosim rotor moves a Rotational flange (ideal speed source); the torque the drive must supply is an output"
  import SI = Modelica.Units.SI;
  input SI.Angle phi "Spin angle of the rotor (bind it: spin(phi = rotor.phi))";
  Modelica.Mechanics.Rotational.Interfaces.Flange_b flange "Rotational flange turning with the rotor"
    annotation (Placement(transformation(extent = {{90, -10}, {110, 10}})));
  output SI.Torque tauDrive "Torque the rotor's drive delivers to the MSL side through the flange (= -flange.tau)";
equation
  flange.phi = phi;
  tauDrive = -flange.tau;
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-90, 0}, {-10, 0}}, color = {0, 0, 0}, thickness = 1),
      Rectangle(extent = {{-60, 50}, {-50, -50}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, 70}, {-40, 80}, {-20, 60}}, color = {0, 0, 0}, arrow = {Arrow.None, Arrow.Filled}),
      Rectangle(extent = {{-10, 10}, {90, -10}}, lineColor = {64, 64, 64}, fillColor = {192, 192, 192}, fillPattern = FillPattern.HorizontalCylinder),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>The rotors of <a href=\"modelica://WearCosim.Rotor\">WearCosim.Rotor</a>
(<a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a>,
<a href=\"modelica://WearCosim.Rotor.JeffcottRub\">JeffcottRub</a>, <a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">RotorStatorRub</a>) have
no torsional degree of freedom: their spin &Omega;(t) is prescribed (constant or a ramp) and integrated to the spin angle
<code>phi</code>; the lateral dynamics (unbalance, rub, gyroscopic moments) do not act back on it. For a drive train the rotor is therefore an
ideal speed source, as <code>Modelica.Mechanics.Rotational.Sources.Position</code>: this adapter gives its spin to an MSL flange and returns
the torque the drive must supply to the MSL side (couplings, driven machines) to keep the prescribed spin.</p>
<h4>Equations</h4>
<pre>
flange.phi = phi          (bound to the rotor's spin angle: SpinToFlange spin(phi = rotor.phi))
tauDrive   = -flange.tau
</pre>
<h4>Sign conventions</h4>
<p>The flange angle is the rotor's spin angle, positive in the rotor's sense of rotation (from x to y). <code>flange.tau</code> flows into the
adapter (MSL); the MSL side receives <code>-flange.tau</code> = <code>tauDrive</code>: positive when the drive accelerates the MSL side in the
sense of rotation. The power the rotor's drive supplies is <code>tauDrive&middot;&Omega;</code>.</p>
<p>The torque does not change the rotor's spin (prescribed). A body rigidly on the flange (an MSL <code>Inertia</code> connected directly)
makes its angle a prescribed function of time, which the index reduction handles by differentiating the rotor's spin twice; a compliant
coupling (<code>Rotational.Components.SpringDamper</code>) between the flange and the driven inertia needs none.</p>
</html>"));
end SpinToFlange;
