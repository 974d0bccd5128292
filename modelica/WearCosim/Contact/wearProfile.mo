within WearCosim.Contact;
function wearProfile "Periodic, continuous piecewise-linear interpolation of sector wear depths at an angle"
  import SI = WearCosim.Units.SI;
  input SI.Length h[:] "Wear depth per sector, sector i centred at (i - 1/2)*2*pi/n";
  input SI.Angle theta "Angle in the worn body's frame (any value, wrapped periodically)";
  output SI.Length y "Interpolated wear depth, continuous and 2*pi-periodic in theta";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real u "Angle in sector widths, wrapped once to [0, n]";
algorithm
  if n == 1 then
    y := sum(h);
  else
    u := theta*n/(2*3.141592653589793);
    u := u - n*floor(u/n);
    // the first and the last sector's hats reach across u = 0 = n: periodic distance
    y := max(0, 1 - min(abs(u - 0.5), n - abs(u - 0.5)))*h[1]
       + max(0, 1 - min(abs(u - (n - 0.5)), n - abs(u - (n - 0.5))))*h[n];
    // the inner hats (centres 1.5 .. n - 1.5) never do: the plain distance is enough
    for k in 2:n - 1 loop
      y := y + max(0, 1 - abs(u - (k - 0.5)))*h[k];
    end for;
  end if;
  annotation (Documentation(info = "<html>
<p>y(&theta;) = &Sigma;<sub>k</sub> h<sub>k</sub> &Lambda;(dist(u, k - 1/2)), u = wrap(&theta;/&Delta;&phi;) &isin; [0, n],
&Delta;&phi; = 2&pi;/n, &Lambda;(x) = max(0, 1-|x|) the hat function, dist the periodic distance on a circle of
n sector widths. Between two neighbouring centres this is linear interpolation; the hats form a
partition of unity, so a uniform profile is reproduced exactly. n = 1 returns the single value.</p>
<p>Cost: the angle is wrapped once (one floor); the inner hats need only |u - c<sub>k</sub>| because
their support [c<sub>k</sub> - 1, c<sub>k</sub> + 1] lies inside [0, n]; only the first and the last sector,
whose hats reach across u = 0 = n, take the periodic distance min(d, n - d). The function is
evaluated in every right-hand side and event-indicator call of a worn joint, so this matters
(about half the operations of the earlier form, which wrapped every sector's distance).
Rounding may leave u = n instead of 0: both give the same y. Continuity: y is continuous and
2&pi;-periodic. Pure arithmetic (no while loop, no integer indexing of a non-structural index),
so it inlines into the FMU.</p></html>"));
end wearProfile;
