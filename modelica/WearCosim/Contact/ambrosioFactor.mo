within WearCosim.Contact;
function ambrosioFactor "Dynamic correction coefficient c_d(|v_t|) of Ambrosio's modified Coulomb friction (docs/physics/clearance-joint.md)"
  import SI = WearCosim.Units.SI;
  input SI.Velocity vt "Tangential slip velocity (signed)";
  input SI.Velocity v0 "Below |vt| = v0 no friction force (0 < v0 < v1)";
  input SI.Velocity v1 "Above |vt| = v1 full Coulomb friction";
  output Real cd "Correction coefficient in [0, 1], continuous in vt";
algorithm
  cd := min(1, max(0, (abs(vt) - v0)/(v1 - v0)));
  annotation (Documentation(info = "<html>
<p>c<sub>d</sub> = 0 for |v<sub>t</sub>| &lt; v<sub>0</sub>, (|v<sub>t</sub>|-v<sub>0</sub>)/(v<sub>1</sub>-v<sub>0</sub>) for
v<sub>0</sub> &le; |v<sub>t</sub>| &le; v<sub>1</sub>, 1 above v<sub>1</sub>: a continuous, piecewise-linear ramp.
Because c<sub>d</sub> is continuous, its regime switches need no events (they are inside a
function and create none).</p></html>"));
end ambrosioFactor;
