within WearCosim.Contact;
function hybridWeight "Weight of the dry force in Flores' hybrid lubricated/dry model (docs/physics/clearance-joint.md, seed eq. 7)"
  import SI = WearCosim.Units.SI;
  input SI.Length e "Eccentricity";
  input SI.Length c "Local radial clearance c + h(theta)";
  input SI.Length e0 "Width of the transition band (> 0)";
  output Real w "0 for e <= c, (e - c)/e0 in between, 1 for e >= c + e0";
algorithm
  w := min(1, max(0, (e - c)/e0));
  annotation (Documentation(info = "<html>
<p>f = (1-w)F<sub>squeeze</sub> + wF<sub>dry</sub> with w = 0 (e &le; c), (e-c)/e<sub>0</sub> (c &le; e &le; c+e<sub>0</sub>),
1 (e &ge; c+e<sub>0</sub>): exactly eq. 7 of the seed (Flores et al. 2006). The weight is continuous,
and F<sub>dry</sub> = 0 at e = c, so the blended force is continuous at e = c and at e = c + e<sub>0</sub>.</p></html>"));
end hybridWeight;
