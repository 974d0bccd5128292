within WearCosim.Icons;
partial package Package "Icon for packages"
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, -100}, {80, 50}}, lineColor = {0, 0, 0}, fillColor = {245, 245, 245}, fillPattern = FillPattern.Solid),
      Polygon(points = {{-100, 50}, {-80, 70}, {100, 70}, {80, 50}, {-100, 50}}, lineColor = {0, 0, 0}, fillColor = {235, 235, 235}, fillPattern = FillPattern.Solid),
      Polygon(points = {{100, 70}, {100, -80}, {80, -100}, {80, 50}, {100, 70}}, lineColor = {0, 0, 0}, fillColor = {215, 215, 215}, fillPattern = FillPattern.Solid)}),
    Documentation(info = "<html><p>Icon for a package.</p></html>"));
end Package;
