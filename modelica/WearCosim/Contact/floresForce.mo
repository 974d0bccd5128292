within WearCosim.Contact;
function floresForce "Flores dissipative normal contact force (docs/physics/clearance-joint.md, seed eq. 1), clipped at 0"
  import SI = WearCosim.Units.SI;
  input SI.HertzStiffness K "Generalised stiffness (for n = 1.5; unit N/m^n in general)";
  input Real n = 1.5 "Exponent of the penetration (1.5 for metals)";
  input Real cr(min = 0.01, max = 1) "Coefficient of restitution";
  input SI.Length delta "Penetration (<= 0: no contact)";
  input SI.Velocity deltaDot "Penetration velocity";
  input SI.Velocity deltaDotImpact "Penetration velocity at contact onset (> 0, floored by the caller)";
  output SI.Force Fn "Normal force (>= 0, no adhesion)";
algorithm
  Fn := max(0, K*max(delta, 0)^n*(1 + 8*(1 - cr)/(5*cr)*deltaDot/deltaDotImpact));
  annotation (Documentation(info = "<html>
<p>F<sub>n</sub> = K&delta;<sup>n</sup>[1 + 8(1-c<sub>r</sub>)/(5c<sub>r</sub>) &middot; &delta;'/&delta;'<sup>(-)</sup>]
(Flores et al. 2011, Nonlinear Dyn. 65:413; seed eq. 1). Guards: <code>max(delta, 0)^n</code> (no
NaN for a gap) and the result is clipped at 0 because the damping term can exceed the elastic
term at the end of restitution (no adhesive force). The impact velocity
&delta;'<sup>(-)</sup> is captured by the caller at contact onset and must be &gt; 0.</p></html>"));
end floresForce;
