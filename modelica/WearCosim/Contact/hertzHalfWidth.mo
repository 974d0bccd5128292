within WearCosim.Contact;
function hertzHalfWidth "Half-width of the Hertz line contact of a journal in a bearing (docs/physics/clearance-joint.md)"
  import SI = WearCosim.Units.SI;
  input SI.Force Fn "Normal force (negative values are treated as 0)";
  input SI.Radius R_i "Bearing radius (local, worn)";
  input SI.Radius R_j "Journal radius";
  input SI.ModulusOfElasticity E_i "Young's modulus of the bearing";
  input SI.PoissonNumber nu_i "Poisson's ratio of the bearing";
  input SI.ModulusOfElasticity E_j "Young's modulus of the journal";
  input SI.PoissonNumber nu_j "Poisson's ratio of the journal";
  input SI.Length L "Contact length";
  input SI.Length dRmin = 1e-9 "Floor of R_i - R_j";
  output SI.Length b "Half-width of the contact strip";
protected
  Real Req = R_j*R_i/max(R_i - R_j, dRmin) "Equivalent radius of the conformal contact [m]";
  Real Eeq = 1/((1 - nu_i^2)/E_i + (1 - nu_j^2)/E_j) "Equivalent modulus [Pa]";
algorithm
  b := sqrt(4*max(Fn, 0)*Req/(3.141592653589793*L*Eeq));
  annotation (Documentation(info = "<html>
<p>b = (4F<sub>n</sub>R<sub>eq</sub>/(&pi;LE<sub>eq</sub>))<sup>1/2</sup>, R<sub>eq</sub> = R<sub>j</sub>R<sub>i</sub>/(R<sub>i</sub>-R<sub>j</sub>),
1/E<sub>eq</sub> = (1-&nu;<sub>i</sub><sup>2</sup>)/E<sub>i</sub> + (1-&nu;<sub>j</sub><sup>2</sup>)/E<sub>j</sub> (Johnson 1985, cylinder in a cylindrical
groove). Guarded by <code>max(Fn, 0)</code>. The semi-elliptic pressure p<sub>0</sub> = 2F<sub>n</sub>/(&pi;bL) over &plusmn;b is
applied by the wear master. Hertz theory assumes b &lt;&lt; R; for conformal contact at large
loads this is an approximation (documented, not corrected).</p></html>"));
end hertzHalfWidth;
