within WearCosim.Rotor.Functions;
function beamMass "Consistent mass matrix (translational + rotary inertia) of a uniform Timoshenko shaft element"
  import SI = WearCosim.Units.SI;
  input SI.Length L "Element length";
  input SI.Length dOut "Outer diameter";
  input SI.Length dIn "Inner diameter";
  input SI.Density rho "Density";
  input Real phi "Shear factor (shearFactor)";
  input Boolean rotaryInertia = true "Include the rotary inertia of the cross sections";
  output Real Me[8, 8] "Element mass matrix [kg, kg.m, kg.m2]";
protected
  Real A = 3.141592653589793*(dOut^2 - dIn^2)/4 "Cross-section area [m2]";
  Real I = 3.141592653589793*(dOut^4 - dIn^4)/64 "Second moment of area [m4]";
  Real ft = rho*A*L/(1260*(1 + phi)^2) "Factor of the translational part";
  Real fr = rho*I/(210*L*(1 + phi)^2) "Factor of the rotary part";
  Real m1 = 468 + 882*phi + 420*phi^2;
  Real m2 = (66 + 115.5*phi + 52.5*phi^2)*L;
  Real m3 = 162 + 378*phi + 210*phi^2;
  Real m4 = (39 + 94.5*phi + 52.5*phi^2)*L;
  Real m5 = (12 + 21*phi + 10.5*phi^2)*L^2;
  Real m7 = (9 + 21*phi + 10.5*phi^2)*L^2;
  Real m11 = 252;
  Real m12 = (21 - 105*phi)*L;
  Real m14 = (28 + 35*phi + 70*phi^2)*L^2;
  Real m15 = (7 + 35*phi - 35*phi^2)*L^2;
algorithm
  Me := ft*beamPattern({m1, m2, m3, m4, m5, m4, m7, m1, m2, m5});
  if rotaryInertia then
    Me := Me + fr*beamPattern({m11, m12, -m11, -m12, m14, -m12, m15, m11, m12, m14});
  end if;
  annotation (Documentation(info = "<html>
<p>ROSS 2.3.0 <code>ShaftElement.M()</code> for a cylindrical element (taper coefficients
a<sub>1</sub> = b<sub>1</sub> = a<sub>2</sub> = b<sub>2</sub> = &gamma; = &delta; = 0, so m6 = m4, m8 = m1, m9 = m2,
m10 = m5, m13 = m12, m16 = m14), lateral degrees of freedom only:
M = &rho;AL/(1260(1+&phi;)<sup>2</sup>) P(m1..m10) + &rho;I/(210L(1+&phi;)<sup>2</sup>) P<sub>r</sub>(m11..m16).</p>
</html>"));
end beamMass;
