within WearCosim.Contact;
function sommerfeldRadial "Squeeze-film force of the infinitely long journal bearing, Sommerfeld conditions (docs/physics/clearance-joint.md, seed eq. 6)"
  import SI = WearCosim.Units.SI;
  input SI.DynamicViscosity mu "Oil dynamic viscosity";
  input SI.Length L "Bearing length";
  input SI.Radius R_j "Journal radius";
  input SI.Length c "Radial clearance (local, worn)";
  input SI.Length e "Eccentricity";
  input SI.Velocity eDot "Radial velocity de/dt of the journal centre";
  input Real epsMax(min = 0, max = 1) "Cap of the eccentricity ratio (< 1)";
  output SI.Force Fr "Film force on the journal along n (negative: pushes the journal back)";
protected
  Real eps = min(e/c, epsMax) "Capped eccentricity ratio";
algorithm
  Fr := -12*3.141592653589793*mu*L*R_j^3*(eDot/c)/(c^2*(1 - eps^2)^1.5);
  annotation (Documentation(info = "<html>
<p>F<sub>r</sub> = -12&pi;&mu;LR<sub>j</sub><sup>3</sup>&epsilon;'/(c<sup>2</sup>(1-&epsilon;<sup>2</sup>)<sup>3/2</sup>), &epsilon; = e/c, &epsilon;' = e'/c
(Pinkus &amp; Sternlicht 1961; Flores et al. 2006). F<sub>r</sub> diverges as &epsilon; &rarr; 1: the
ratio is capped at <code>epsMax</code> (&lt; 1) when the force is evaluated; beyond the cap the film
acts as a linear radial damper. The cap is continuous (min), so no event.</p></html>"));
end sommerfeldRadial;
