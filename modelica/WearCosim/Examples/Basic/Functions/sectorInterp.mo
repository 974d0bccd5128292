within WearCosim.Examples.Basic.Functions;
function sectorInterp "Periodic linear interpolation of sector values at an angle"
  input Real h[:] "Values at the sector centres, sector i centred at (i - 1/2)*2*pi/n";
  input Real theta "Angle [rad], any value (wrapped periodically)";
  output Real y "Interpolated value, continuous and 2*pi-periodic in theta";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real s "Angle in units of sectors, shifted to sector centres";
  Real f "Fractional position between two centres";
  Integer i0 "Lower centre (0-based)";
algorithm
  s := theta/(2*3.141592653589793)*n - 0.5;
  s := s - n*floor(s/n);
  i0 := integer(floor(s));
  f := s - i0;
  y := 0;
  for k in 1:n loop
    if k - 1 == i0 then
      y := y + (1 - f)*h[k];
    end if;
    if k - 1 == mod(i0 + 1, n) then
      y := y + f*h[k];
    end if;
  end for;
  annotation (Documentation(info = "<html><p>Periodic linear interpolation of the sector values <code>h[n]</code> (sector i
centred at (i - 1/2)&middot;2&pi;/n) at the angle <code>theta</code>; used by
<a href=\"modelica://WearCosim.Examples.Basic.JournalBearing\">JournalBearing</a>.</p></html>"));
end sectorInterp;
