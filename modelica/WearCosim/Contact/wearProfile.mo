within WearCosim.Contact;
function wearProfile "Periodic, continuous piecewise-linear interpolation of sector wear depths at an angle"
  import SI = WearCosim.Units.SI;
  input SI.Length h[:] "Wear depth per sector, sector i centred at (i - 1/2)*2*pi/n";
  input SI.Angle theta "Angle in the worn body's frame (any value, wrapped periodically)";
  output SI.Length y "Interpolated wear depth, continuous and 2*pi-periodic in theta";
protected
  Integer n = size(h, 1) "Number of sectors";
  Real dphi = 2*3.141592653589793/n "Sector width [rad]";
  Real d "Angle from a sector centre, wrapped to [-pi, pi) [rad]";
algorithm
  if n == 1 then
    y := sum(h);
  else
    y := 0;
    for k in 1:n loop
      d := theta - (k - 0.5)*dphi;
      d := d - 2*3.141592653589793*floor(d/(2*3.141592653589793) + 0.5);
      y := y + max(0, 1 - abs(d)/dphi)*h[k];
    end for;
  end if;
  annotation (Documentation(info = "<html>
<p>y(&theta;) = &Sigma;<sub>k</sub> h<sub>k</sub> &Lambda;(wrap(&theta; - &theta;<sub>k</sub>)/&Delta;&phi;), &theta;<sub>k</sub> = (k-1/2)&Delta;&phi;,
&Delta;&phi; = 2&pi;/n, &Lambda;(x) = max(0, 1-|x|) the hat function, wrap to [-&pi;, &pi;). Between two neighbouring
centres this is linear interpolation; the hats form a partition of unity, so a uniform profile is
reproduced exactly. Continuity: the wrap jumps at |d| = &pi; where every hat is 0 (n &ge; 2),
so y is continuous and 2&pi;-periodic; n = 1 returns the single value. Pure arithmetic (no
while loop, no integer indexing of a non-structural index), so it inlines into the FMU.</p></html>"));
end wearProfile;
