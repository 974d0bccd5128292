within WearCosim.Rotor.RubLaws;
model HuntCrossley "Hunt-Crossley law with linear stiffness: Fn = max(0, k_c*delta*(1 + 3/2*alpha*deltaDot)), damping grows with the penetration"
  extends WearCosim.Rotor.RubLaws.PartialNormalForce;
  parameter Real alpha(min = 0) = 0.2 "Hunt-Crossley damping factor [s/m] (restitution about 1 - alpha*v for an impact at speed v)";
equation
  Fn = max(0, k_c*max(delta, 0)*(1 + 1.5*alpha*deltaDot));
  annotation (Documentation(info = "<html>
<p>Hunt, Crossley (1975), J. Appl. Mech. 42:440, with the exponent of the penalty law (n = 1):
F<sub>n</sub> = k<sub>c</sub>&delta;(1 + 3/2&middot;&alpha;&delta;'), clipped at 0. The damping force is proportional to the
penetration, so the force is continuous at the onset (no jump c<sub>c</sub>&delta;' as in
<a href=\"modelica://WearCosim.Rotor.RubLaws.KelvinVoigt\">KelvinVoigt</a>) and vanishes at separation.
The restitution of an impact at speed v is e &asymp; 1 - &alpha;v for small &alpha;v; <code>alpha</code> = 0.2 s/m gives
e &asymp; 0.98 at 0.1 m/s. <code>c_c</code> is not used. Set <code>alpha</code> by a class of one's own
(<code>model MyRub = WearCosim.Rotor.RubLaws.HuntCrossley(alpha = 0.5)</code>) that is then redeclared.</p>
</html>"));
end HuntCrossley;
