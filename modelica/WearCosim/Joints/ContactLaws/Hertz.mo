within WearCosim.Joints.ContactLaws;
model Hertz "Elastic Hertz law without dissipation: Fn = K*delta^n"
  extends WearCosim.Joints.ContactLaws.PartialNormalForce;
equation
  Fn = K*max(delta, 0)^n_exp;
  annotation (Documentation(info = "<html>
<p>Purely elastic Hertz contact F<sub>n</sub> = K&delta;<sup>n</sup> (the restitution <code>cr</code> is not used):
every impact is perfectly elastic. A reference for the energy lost by the dissipative laws, and the law of a
static (quasi-static) contact, where all laws coincide.</p>
</html>"));
end Hertz;
