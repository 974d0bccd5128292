within WearCosim.Gears;
model TorqueSource "Constant torque about an axis applied to a hub (optionally switched on at tStart)"
  import SI = WearCosim.Units.SI;
  parameter SI.Torque T = 1 "Torque about e";
  parameter Real e[3] = {0, 0, 1} "Axis of the torque (unit vector), global frame";
  WearCosim.Gears.Hub hub "Hub the torque acts on";
equation
  hub.t = -T*e;
  hub.f = zeros(3);
  annotation (
    Icon(graphics = {
      Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0}, fillColor = {255, 255, 255}, fillPattern = FillPattern.Solid),
      Line(points = {{-60, -50}, {-75, 0}, {-55, 50}, {0, 70}, {55, 50}}, color = {0, 0, 0}, thickness = 0.5, arrow = {Arrow.None, Arrow.Filled}),
      Ellipse(extent = {{-15, 15}, {15, -15}}, lineColor = {0, 0, 0}, fillColor = {192, 192, 192}, fillPattern = FillPattern.Solid),
      Text(extent = {{-150, 145}, {150, 105}}, textString = "%name", textColor = {0, 0, 255})}),
    Documentation(info = "<html><p>Applies the torque T&middot;e to the body owning <code>hub</code>
(flow convention: <code>hub.t = -T e</code>). A step at t = 0 as in Cardona's test and the spin-up of Kubo's test.</p></html>"));
end TorqueSource;
