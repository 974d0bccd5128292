within WearCosim.Rotor.Functions;
function shearFactor "Timoshenko shear factor phi = 12*E*I/(G*kappa*A*L^2) of a tubular element (Cowper's kappa)"
  import SI = WearCosim.Units.SI;
  input SI.Length L "Element length";
  input SI.Length dOut "Outer diameter";
  input SI.Length dIn "Inner diameter (0: solid shaft)";
  input SI.ModulusOfElasticity E "Young's modulus";
  input SI.ModulusOfElasticity G "Shear modulus";
  input Boolean shearEffects = true "false: Euler-Bernoulli element (phi = 0)";
  output Real phi "Shear factor (-)";
protected
  Real nu = E/(2*G) - 1 "Poisson's ratio implied by E and G";
  Real r2 = (dIn/dOut)^2 "Squared diameter ratio";
  Real r12 = (1 + r2)^2 "(1 + r^2)^2";
  Real kappa = 6*r12*(1 + nu)/(r12*(7 + 6*nu) + r2*(20 + 12*nu)) "Cowper's shear coefficient";
  Real A = 3.141592653589793*(dOut^2 - dIn^2)/4 "Cross-section area";
  Real I = 3.141592653589793*(dOut^4 - dIn^4)/64 "Second moment of area";
algorithm
  phi := if shearEffects then 12*E*I/(G*kappa*A*L^2) else 0;
  annotation (Documentation(info = "<html>
<p>Cowper (1966) shear coefficient of a hollow circular section,
&kappa; = 6(1+r<sup>2</sup>)<sup>2</sup>(1+&nu;)/((1+r<sup>2</sup>)<sup>2</sup>(7+6&nu;)+r<sup>2</sup>(20+12&nu;)),
r = d<sub>in</sub>/d<sub>out</sub>, &nu; = E/(2G) - 1 (ROSS's <code>shear_method_calc=\"cowper\"</code>).</p>
</html>"));
end shearFactor;
