within WearCosim.Contact;
function floresStiffness "Generalised stiffness K of the Flores/Hertz law for a journal in a bearing (docs/physics/clearance-joint.md, seed eq. 2-3)"
  import SI = WearCosim.Units.SI;
  input SI.ModulusOfElasticity E_i "Young's modulus of the bearing (body i)";
  input SI.PoissonNumber nu_i "Poisson's ratio of the bearing";
  input SI.ModulusOfElasticity E_j "Young's modulus of the journal (body j)";
  input SI.PoissonNumber nu_j "Poisson's ratio of the journal";
  input SI.Radius R_i "Bearing radius (local, worn: R_bearing + h(theta))";
  input SI.Radius R_j "Journal radius";
  input SI.Length dRmin = 1e-9 "Floor of R_i - R_j (guards the division for a vanishing clearance)";
  output SI.HertzStiffness K "Stiffness of Fn = K*delta^1.5";
protected
  Real sigma_i = (1 - nu_i^2)/(3.141592653589793*E_i) "Material parameter of the bearing [1/Pa]";
  Real sigma_j = (1 - nu_j^2)/(3.141592653589793*E_j) "Material parameter of the journal [1/Pa]";
algorithm
  K := 4/(3*3.141592653589793*(sigma_i + sigma_j))*sqrt(R_i*R_j/max(R_i - R_j, dRmin));
  annotation (Documentation(info = "<html>
<p>K = 4/(3&pi;(&sigma;<sub>i</sub>+&sigma;<sub>j</sub>)) &middot; (R<sub>i</sub>R<sub>j</sub>/(R<sub>i</sub>-R<sub>j</sub>))<sup>1/2</sup>,
&sigma;<sub>k</sub> = (1-&nu;<sub>k</sub><sup>2</sup>)/(&pi;E<sub>k</sub>); i = bearing (concave), j = journal.
This is the sphere-in-spherical-cavity expression that Flores &amp; Ambr&oacute;sio (2004) use for
cylindrical joints; it is kept as the seed prescribes.</p>
<p>Regularisation: R<sub>i</sub>-R<sub>j</sub> is floored at <code>dRmin</code> (1 nm) so that a zero
clearance gives a large but finite stiffness.</p>
<p>Check: R<sub>i</sub> = 10.5 mm, R<sub>j</sub> = 10 mm, steel on steel (E = 207 GPa,
&nu; = 0.3) gives K = 6.95&middot;10<sup>10</sup> N/m<sup>1.5</sup>.</p></html>"));
end floresStiffness;
