within WearCosim.Gears;
model TorqueSource "Constant torque about an axis applied to a hub (optionally switched on at tStart)"
  import SI = WearCosim.Units.SI;
  parameter SI.Torque T = 1 "Torque about e";
  parameter Real e[3] = {0, 0, 1} "Axis of the torque (unit vector), global frame";
  WearCosim.Gears.Hub hub "Hub the torque acts on";
equation
  hub.t = -T*e;
  hub.f = zeros(3);
  annotation (Documentation(info = "<html><p>Applies the torque T&middot;e to the body owning <code>hub</code>
(flow convention: <code>hub.t = -T e</code>). A step at t = 0 as in Cardona's test and the spin-up of Kubo's test.</p></html>"));
end TorqueSource;
