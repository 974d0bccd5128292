within WearCosim.Interfaces;
partial model WearSurface "Wear interface: wear-depth inputs, contact outputs and the geometry the wear master needs"
  import SI = WearCosim.Units.SI;
  parameter Integer nSectors(min = 1) = 36 "Number of angular wear sectors of the worn body (bearing)";
  parameter SI.Radius R_journal = 0.01 "Journal radius";
  parameter SI.Length c(min = 0) = 0.5e-3 "Unworn radial clearance";
  final parameter SI.Radius R_bearing = R_journal + c "Unworn bearing radius (R_journal + c)";
  parameter SI.Length L = 0.04 "Axial contact length (journal/bearing length)";
  input SI.Length wearDepth[nSectors](each start = 0) "Wear depth of the bearing per sector (sector i centred at (i - 1/2)*2*pi/nSectors, bearing frame)";
  output SI.Force Fn "Normal force of the solid contact (>= 0; excludes the fluid-film force)";
  output SI.Force Ft "Tangential (friction) force of the solid contact on the journal, along t";
  output SI.Length delta "Penetration e - c_local(theta) (> 0 in contact, < 0: gap)";
  output SI.Angle theta "Contact angle of the line of centres in the bearing frame, in (-pi, pi]";
  output SI.Velocity vSlip "Tangential slip velocity, journal relative to bearing, along t";
  output SI.Length halfWidth "Hertz line-contact half-width of the solid contact (0 out of contact)";
  output Boolean inContact "True while delta > 0";
  annotation (Documentation(info = "<html>
<p>Partial model declaring the wear interface of
<a href=\"modelica://WearCosim.Interfaces\">WearCosim.Interfaces</a> (names, units, sector
convention). Extended by <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>
and by the mechanisms, which bind the joint's inputs and outputs to their own so that the
exported FMU carries the interface at its top level.</p>
<p>Geometry: <code>R_bearing = R_journal + c</code> is the unworn bearing radius; the worn
local bearing radius is <code>R_bearing + h(theta)</code>. Defaults (R_journal = 10 mm,
c = 0.5 mm, L = 40 mm, 36 sectors) are those of the slider-crank benchmark; each component
overrides them.</p>
</html>"));
end WearSurface;
