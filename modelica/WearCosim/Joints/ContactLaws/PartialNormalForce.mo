within WearCosim.Joints.ContactLaws;
partial model PartialNormalForce "Interface of a normal force law of the dry journal-bearing contact"
  import SI = WearCosim.Units.SI;
  parameter Real n_exp = 1.5 "Exponent of the penetration (1.5 for metals)";
  parameter Real cr(min = 0.01, max = 1) = 0.9 "Coefficient of restitution";
  input SI.HertzStiffness K "Generalised stiffness of the contact at the local (worn) bearing radius";
  input SI.Length delta "Penetration (> 0 in contact; a law must stay finite for delta <= 0)";
  input SI.Velocity deltaDot "Penetration velocity";
  input SI.Velocity vImpact "Penetration velocity captured at the contact onset (> 0, floored by the joint)";
  output SI.Force Fn "Normal contact force on the journal (>= 0, no adhesion)";
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, -80}, {-80, 80}}, color = {128, 128, 128}),
      Line(points = {{-80, -80}, {80, -80}}, color = {128, 128, 128}),
      Line(points = {{-80, -80}, {-20, -70}, {20, -40}, {50, 0}, {70, 60}}, color = {0, 0, 255}, thickness = 0.5),
      Text(extent = {{-150, 150}, {150, 110}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Partial interface of the normal force laws of <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a>
(see <a href=\"modelica://WearCosim.Joints.ContactLaws\">ContactLaws</a>). The joint binds the inputs and the two
parameters (<code>n_exp</code>, <code>cr</code>) and uses <code>Fn</code> only while &delta; &gt; 0; an extending law
adds the equation for <code>Fn</code> and, if needed, parameters of its own. The law must be finite for &delta; &le; 0
(guard <code>max(delta, 0)^n</code>): the unused branch of an if-expression is still evaluated.</p>
</html>"));
end PartialNormalForce;
