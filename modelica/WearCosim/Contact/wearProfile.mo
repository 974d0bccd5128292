within WearCosim.Contact;
function wearProfile "Periodic, continuous piecewise-linear interpolation of sector wear depths at an angle"
  import SI = WearCosim.Units.SI;
  input SI.Length h[:] "Wear depth per sector, sector i centred at (i - 1/2)*2*pi/n";
  input SI.Angle theta "Angle in the worn body's frame (any value, wrapped periodically)";
  output SI.Length y "Interpolated wear depth, continuous and 2*pi-periodic in theta";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real u "Angle in sector widths from the centre of sector 1, wrapped to [0, n)";
  Integer k "Sector k + 1 has the nearest centre at or below u";
  Real f "Fraction of the way from that centre to the next one, in [0, 1)";
algorithm
  if n == 1 then
    y := h[1];
  else
    u := theta*(n/(2*3.141592653589793)) - 0.5;
    u := u - n*floor(u*(1/n));
    // rounding (of 1/n, of the product) can leave u one period off [0, n)
    if u >= n then
      u := u - n;
    elseif u < 0 then
      u := u + n;
    end if;
    k := integer(u);
    f := u - k;
    // linear between the centres of sectors k + 1 and k + 2, the last one's neighbour is the first
    y := (1 - f)*h[k + 1] + f*h[if k < n - 1 then k + 2 else 1];
  end if;
  annotation (Documentation(info = "<html>
<p>y(&theta;) = (1 - f) h<sub>k+1</sub> + f h<sub>k+2</sub> with u = wrap(&theta;/&Delta;&phi; - 1/2) &isin; [0, n),
k = floor(u), f = u - k, &Delta;&phi; = 2&pi;/n, and h<sub>n+1</sub> = h<sub>1</sub>: linear interpolation between the two
sector centres around &theta;, periodic. This equals the sum of the sectors' hat functions
&Sigma;<sub>k</sub> h<sub>k</sub> &Lambda;(dist(&theta;/&Delta;&phi;, k - 1/2)) (&Lambda;(x) = max(0, 1 - |x|), dist the periodic
distance on a circle of n sector widths): the hats form a partition of unity, so a uniform profile
is reproduced exactly. n = 1 returns the single value.</p>
<p>Cost: the function is evaluated in every right-hand side and event-indicator call of a worn
joint, so its cost does not grow with the number of sectors: one wrap, one floor and two
subscripts with an Integer index, which the exporter turns into one indexed load each (the sum
of n hats it replaced was half the operations of the slider-crank's right-hand side at 36
sectors). Relations inside a function generate no events. Rounding may leave the wrapped angle
one period off [0, n) (multiplications by the constants n/(2&pi;) and 1/n instead of
divisions: the divisions were on the critical path of the right-hand side): it is moved back. Continuity: y is continuous and 2&pi;-periodic.</p></html>"));
end wearProfile;
