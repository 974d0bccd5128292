within WearCosim.Contact;
function sommerfeldTangential "Wedge-film force of the infinitely long journal bearing, Sommerfeld conditions (docs/physics/clearance-joint.md, seed eq. 6)"
  import SI = WearCosim.Units.SI;
  input SI.DynamicViscosity mu "Oil dynamic viscosity";
  input SI.Length L "Bearing length";
  input SI.Radius R_j "Journal radius";
  input SI.Length c "Radial clearance (local, worn)";
  input SI.Length e "Eccentricity";
  input SI.AngularVelocity omega "Angular velocity of the journal relative to the bearing";
  input SI.AngularVelocity gammaDot "Whirl rate of the line of centres, in the bearing frame";
  input Real epsMax(min = 0, max = 1) "Cap of the eccentricity ratio (< 1)";
  output SI.Force Ft "Film force on the journal along t (n rotated by +90 deg)";
protected
  Real eps = min(e/c, epsMax) "Capped eccentricity ratio";
algorithm
  Ft := 12*3.141592653589793*mu*L*R_j^3*eps*(omega - 2*gammaDot)/(c^2*(2 + eps^2)*sqrt(1 - eps^2));
  annotation (Documentation(info = "<html>
<p>F<sub>t</sub> = 12&pi;&mu;LR<sub>j</sub><sup>3</sup>&epsilon;(&omega; - 2&gamma;')/(c<sup>2</sup>(2+&epsilon;<sup>2</sup>)(1-&epsilon;<sup>2</sup>)<sup>1/2</sup>),
with &omega; and &gamma;' measured in the bearing frame (then &omega; - 2&gamma;' equals the
inertial-frame expression &omega;<sub>j</sub> + &omega;<sub>b</sub> - 2&gamma;'<sub>inertial</sub> of Pinkus &amp; Sternlicht).
For a journal spinning at &omega; at constant &epsilon; this is the full-Sommerfeld load
W = 12&pi;&mu;&omega;R<sup>3</sup>L&epsilon;/[c<sup>2</sup>(2+&epsilon;<sup>2</sup>)&radic;(1-&epsilon;<sup>2</sup>)] at a 90&deg; attitude angle.
&epsilon; is capped at <code>epsMax</code> (see <a href=\"modelica://WearCosim.Contact.sommerfeldRadial\">sommerfeldRadial</a>).</p></html>"));
end sommerfeldTangential;
