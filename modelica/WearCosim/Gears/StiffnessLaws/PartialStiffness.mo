within WearCosim.Gears.StiffnessLaws;
partial model PartialStiffness "Interface of a periodic mesh stiffness law"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  parameter SI.TranslationalSpringConstant k_single = 1e8 "Single tooth-pair mesh stiffness";
  parameter SI.TranslationalSpringConstant k_double = 2*k_single "Double tooth-pair mesh stiffness";
  parameter Real epsAlpha(min = 1, max = 2) = 1.6 "Transverse contact ratio: the double-pair fraction of a mesh period is epsAlpha - 1";
  parameter Real sharpness = 30 "Steepness of smoothed single/double transitions (laws with jumps; unused by smooth laws)";
  parameter SI.TranslationalSpringConstant kMean "Mean mesh stiffness over a mesh cycle (bound by the law)";
  input SI.Angle meshPhase "Mesh phase (2*pi per tooth; 0 when a pair enters)";
  output SI.TranslationalSpringConstant k "Current mesh stiffness";
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-80, -60}, {-40, -60}, {-40, 40}, {0, 40}, {0, -60}, {40, -60}, {40, 40}, {80, 40}}, color = {0, 0, 255}, thickness = 0.5),
      Text(extent = {{-150, 150}, {150, 110}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html>
<p>Partial interface of the periodic stiffness laws of <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>
(see <a href=\"modelica://WearCosim.Gears.StiffnessLaws\">StiffnessLaws</a>). The mesh binds the tooth-pair data and
<code>meshPhase</code>; an extending law binds <code>kMean</code> and adds the equation for <code>k</code>.</p>
</html>"));
end PartialStiffness;
