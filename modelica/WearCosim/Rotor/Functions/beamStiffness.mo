within WearCosim.Rotor.Functions;
function beamStiffness "Bending stiffness matrix of a uniform Timoshenko shaft element"
  import SI = WearCosim.Units.SI;
  input SI.Length L "Element length";
  input SI.Length dOut "Outer diameter";
  input SI.Length dIn "Inner diameter";
  input SI.ModulusOfElasticity E "Young's modulus";
  input Real phi "Shear factor (shearFactor)";
  output Real Ke[8, 8] "Element stiffness matrix [N/m, N, N.m]";
protected
  Real I = 3.141592653589793*(dOut^4 - dIn^4)/64 "Second moment of area [m4]";
  Real f = E*I/(L^3*(1 + phi)) "Common factor";
algorithm
  Ke := f*beamPattern({12, 6*L, -12, -6*L, (4 + phi)*L^2, -6*L, -(2 - phi)*L^2, 12, 6*L, (4 + phi)*L^2});
  annotation (Documentation(info = "<html>
<p>ROSS 2.3.0 <code>ShaftElement.K()</code> for a cylindrical element without axial force or
torque: E/(L<sup>3</sup>(1+&phi;)<sup>2</sup>)(K<sub>1</sub> + K<sub>2</sub>) with K<sub>1</sub> = I/105 P(k1..k6),
K<sub>2</sub> = I&phi; P(k7..k9); summed, the entries reduce to the classical Timoshenko element
EI/(L<sup>3</sup>(1+&phi;)) {12, 6L, (4+&phi;)L<sup>2</sup>, (2-&phi;)L<sup>2</sup>}.</p>
</html>"));
end beamStiffness;
