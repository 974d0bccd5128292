within WearCosim.Gears;
function flankWearDepth "Wear depth of a tooth flank at a profile position: linear interpolation between sector centres, constant beyond the end centres"
  import SI = WearCosim.Units.SI;
  input SI.Length h[:] "Wear depth per sector, sector i centred at (i - 1/2)*profileLength/n";
  input SI.Length s "Position along the profile (from the start of the active profile)";
  input SI.Length profileLength "Length of the active profile";
  output SI.Length y "Interpolated wear depth";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real u "Position in sector lengths from the centre of sector 1, clamped to the span of the centres [0, n - 1]";
  Integer k "Sector k + 1 has the nearest centre at or below the position (at most n - 2: the last interval includes its end)";
algorithm
  if n == 1 then
    y := h[1];
  else
    u := min(max(s*(n/profileLength) - 0.5, 0), n - 1);
    k := min(integer(u), n - 2);
    y := (1 - (u - k))*h[k + 1] + (u - k)*h[k + 2];
  end if;
  annotation (Documentation(info = "<html><p>y(s) = (1 - f) h<sub>k+1</sub> + f h<sub>k+2</sub> with u = s/&Delta;s - 1/2 clamped to [0, n - 1], k = floor(u)
(at most n - 2), f = u - k, &Delta;s = L<sub>p</sub>/n: linear interpolation between the sector centres
s<sub>k</sub> = (k-1/2)&Delta;s, the end values held over the half sectors at both ends of the (non-periodic)
profile. The same as &Sigma;<sub>k</sub> h<sub>k</sub>&Lambda;((x - s<sub>k</sub>)/&Delta;s) with &Lambda; the hat function and x = s
clamped to [s<sub>1</sub>, s<sub>n</sub>], at a cost that does not grow with n (two subscripts with an Integer index:
one indexed load each in the generated code). Continuous in s; no events (relations inside a function).</p></html>"));
end flankWearDepth;
