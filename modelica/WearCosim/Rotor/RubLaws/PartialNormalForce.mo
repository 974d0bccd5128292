within WearCosim.Rotor.RubLaws;
partial model PartialNormalForce "Interface of a normal force law of the rotor-stator rub"
  import SI = WearCosim.Units.SI;
  parameter SI.TranslationalSpringConstant k_c(min = 0) = 2e7 "Contact (penalty) stiffness";
  parameter SI.TranslationalDampingConstant c_c(min = 0) = 200 "Contact damping";
  input SI.Length delta "Penetration (> 0 in contact; a law must stay finite for delta <= 0)";
  input SI.Velocity deltaDot "Penetration rate";
  output SI.Force Fn "Normal contact force on the rotor (>= 0, no adhesion)";
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, -80}, {-80, 80}}, color = {128, 128, 128}),
      Line(points = {{-80, -80}, {80, -80}}, color = {128, 128, 128}),
      Line(points = {{-80, -80}, {70, 60}}, color = {0, 0, 255}, thickness = 0.5),
      Text(extent = {{-150, 150}, {150, 110}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Partial interface of the normal force laws of <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>
(see <a href=\"modelica://WearCosim.Rotor.RubLaws\">RubLaws</a>). The contact binds <code>k_c</code>, <code>c_c</code> and
the inputs and uses <code>Fn</code> only while &delta; &gt; 0; an extending law adds the equation for <code>Fn</code>
and, if needed, parameters of its own.</p>
</html>"));
end PartialNormalForce;
