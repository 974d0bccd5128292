within WearCosim.Joints.ContactLaws;
model Flores "Flores et al. (2011) dissipative Hertz law: Fn = K*delta^n*(1 + 8*(1 - cr)/(5*cr)*deltaDot/vImpact) (default)"
  extends WearCosim.Joints.ContactLaws.PartialNormalForce;
equation
  Fn = WearCosim.Contact.floresForce(K, n_exp, cr, delta, deltaDot, vImpact);
  annotation (Documentation(info = "<html>
<p>Flores, Machado, Silva, Martins (2011), Nonlinear Dyn. 65:413, through
<a href=\"modelica://WearCosim.Contact.floresForce\">Contact.floresForce</a>:
F<sub>n</sub> = max(0, K&delta;<sup>n</sup>[1 + 8(1-c<sub>r</sub>)/(5c<sub>r</sub>)&middot;&delta;'/&delta;'<sup>(-)</sup>]).
Valid for any c<sub>r</sub> (also low restitution, unlike the Lankarani-Nikravesh law). The default law of
<a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a>.</p>
</html>"));
end Flores;
