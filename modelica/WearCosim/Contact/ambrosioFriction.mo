within WearCosim.Contact;
function ambrosioFriction "Ambrosio modified Coulomb friction force F_t = -mu*c_d*Fn*vt/|vt| (docs/physics/clearance-joint.md, seed eq. 4 corrected)"
  import SI = WearCosim.Units.SI;
  input Real mu "Dynamic friction coefficient";
  input SI.Force Fn "Normal force (>= 0)";
  input SI.Velocity vt "Tangential slip velocity (signed, along t)";
  input SI.Velocity v0 "Below |vt| = v0 no friction force";
  input SI.Velocity v1 "Above |vt| = v1 full Coulomb friction";
  output SI.Force Ft "Friction force on the journal along t (opposes vt)";
algorithm
  Ft := -mu*WearCosim.Contact.ambrosioFactor(vt, v0, v1)*Fn*vt/max(abs(vt), v0);
  annotation (Documentation(info = "<html>
<p>F<sub>t</sub> = -&mu;<sub>d</sub> c<sub>d</sub>(|v<sub>t</sub>|) F<sub>n</sub> v<sub>t</sub>/|v<sub>t</sub>| (Ambr&oacute;sio 2003).
The seed's eq. 4 multiplies by v<sub>t</sub> instead of its direction; the published form is used here. The direction v<sub>t</sub>/|v<sub>t</sub>| is evaluated as
v<sub>t</sub>/max(|v<sub>t</sub>|, v<sub>0</sub>): identical wherever c<sub>d</sub> &ne; 0 (|v<sub>t</sub>| &ge; v<sub>0</sub>) and free of a
division by zero at v<sub>t</sub> = 0. The force is continuous in v<sub>t</sub>, so no event is needed.</p></html>"));
end ambrosioFriction;
