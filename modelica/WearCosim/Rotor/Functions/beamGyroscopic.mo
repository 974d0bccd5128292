within WearCosim.Rotor.Functions;
function beamGyroscopic "Gyroscopic matrix (per unit spin speed) of a uniform Timoshenko shaft element"
  import SI = WearCosim.Units.SI;
  input SI.Length L "Element length";
  input SI.Length dOut "Outer diameter";
  input SI.Length dIn "Inner diameter";
  input SI.Density rho "Density";
  input Real phi "Shear factor (shearFactor)";
  output Real Ge[8, 8] "Skew-symmetric element gyroscopic matrix [kg, kg.m, kg.m2]";
protected
  Real I = 3.141592653589793*(dOut^4 - dIn^4)/64 "Second moment of area [m4]";
  Real f = 2*rho*I/(210*L*(1 + phi)^2) "Common factor";
  Real g1 = 252;
  Real g2 = (21 - 105*phi)*L;
  Real g4 = (28 + 35*phi + 70*phi^2)*L^2;
  Real g5 = (7 + 35*phi - 35*phi^2)*L^2;
algorithm
  Ge := f*[0, g1, -g2, 0, 0, -g1, -g2, 0;
           -g1, 0, 0, -g2, g1, 0, 0, -g2;
           g2, 0, 0, g4, -g2, 0, 0, -g5;
           0, g2, -g4, 0, 0, -g2, g5, 0;
           0, -g1, g2, 0, 0, g1, g2, 0;
           g1, 0, 0, g2, -g1, 0, 0, g2;
           g2, 0, 0, -g5, -g2, 0, 0, g4;
           0, g2, g5, 0, 0, -g2, -g4, 0];
  annotation (Documentation(info = "<html>
<p>ROSS 2.3.0 <code>ShaftElement.G()</code> for a cylindrical element (g3 = g2, g6 = g4),
lateral degrees of freedom only. The equations of motion are
M q'' + (C + &Omega;G) q' + K q = f (ROSS's convention, &Omega; the spin speed).</p>
</html>"));
end beamGyroscopic;
