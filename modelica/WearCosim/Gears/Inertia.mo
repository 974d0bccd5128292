within WearCosim.Gears;
model Inertia "Rotating inertia in rigid bearings (spin about a fixed axis only)"
  extends WearCosim.Gears.Wheel(final fixedTranslation = true, final fixedTilt = true, m = 0, Id = 0);
  annotation (Documentation(info = "<html><p>A <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a> whose centre and tilt
are held by rigid bearings: the inertias I<sub>1</sub>, I<sub>2</sub> of eq. 27, shaft inertias, loads.</p></html>"));
end Inertia;
