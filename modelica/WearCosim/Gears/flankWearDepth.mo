within WearCosim.Gears;
function flankWearDepth "Wear depth of a tooth flank at a profile position: linear interpolation between sector centres, constant beyond the end centres"
  import SI = WearCosim.Units.SI;
  input SI.Length h[:] "Wear depth per sector, sector i centred at (i - 1/2)*profileLength/n";
  input SI.Length s "Position along the profile (from the start of the active profile)";
  input SI.Length profileLength "Length of the active profile";
  output SI.Length y "Interpolated wear depth";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real ds = profileLength/n "Sector length [m]";
  Real x "Position clamped to the span of the sector centres [m]";
algorithm
  if n == 1 then
    y := sum(h);
  else
    x := min(max(s, ds/2), profileLength - ds/2);
    y := 0;
    for k in 1:n loop
      y := y + max(0, 1 - abs(x - (k - 0.5)*ds)/ds)*h[k];
    end for;
  end if;
  annotation (Documentation(info = "<html><p>y(s) = &Sigma;<sub>k</sub> h<sub>k</sub>&Lambda;((x - s<sub>k</sub>)/&Delta;s), s<sub>k</sub> = (k-1/2)&Delta;s,
&Delta;s = L<sub>p</sub>/n, &Lambda; the hat function, x = s clamped to [s<sub>1</sub>, s<sub>n</sub>]: linear interpolation between the sector
centres, the end values held over the half sectors at both ends of the (non-periodic) profile. Continuous in s;
no events (relations inside a function).</p></html>"));
end flankWearDepth;
