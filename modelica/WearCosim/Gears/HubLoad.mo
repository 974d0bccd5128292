within WearCosim.Gears;
model HubLoad "Prescribed force and torque (inputs) applied to the body owning a hub"
  import SI = WearCosim.Units.SI;
  input SI.Force f[3] "Force on the body owning the hub, global frame";
  input SI.Torque t[3] "Torque about the hub centre on the body owning the hub, global frame";
  WearCosim.Gears.Hub hub "Hub the load acts on";
equation
  hub.f = -f;
  hub.t = -t;
  annotation (Documentation(info = "<html><p>Applies the load <code>f</code>, <code>t</code> (inputs) to the body that
owns <code>hub</code> (flow convention of <a href=\"modelica://WearCosim.Gears.Hub\">Hub</a>: <code>hub.f = -f</code>,
as in <a href=\"modelica://WearCosim.Gears.TorqueSource\">TorqueSource</a>). The body-side counterpart of
<a href=\"modelica://WearCosim.Gears.HubMotion\">HubMotion</a>: a load computed by another FMU (e.g. the mesh forces of
<a href=\"modelica://WearCosim.Components.Gears.GearMeshElement\">Components.Gears.GearMeshElement</a>) enters a wheel
through it.</p></html>"));
end HubLoad;
