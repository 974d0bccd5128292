within WearCosim.Icons;
partial model Example "Icon for runnable examples"
  annotation (
    Icon(graphics = {
      Ellipse(extent = {{-100, 100}, {100, -100}}, lineColor = {75, 138, 73}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Polygon(points = {{-36, 60}, {64, 0}, {-36, -60}}, lineColor = {0, 0, 255}, fillColor = {75, 138, 73}, pattern = LinePattern.None, fillPattern = FillPattern.Solid)}),
    Documentation(info = "<html><p>Icon for an example: a model that runs as it is (it has an
<code>experiment</code> annotation and is exported as an FMU by <code>wearcosim build</code>).</p></html>"));
end Example;
