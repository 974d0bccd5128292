within WearCosim.Joints.ContactLaws;
model LankaraniNikravesh "Lankarani-Nikravesh (1990) dissipative Hertz law: Fn = K*delta^n*(1 + 3*(1 - cr^2)/4*deltaDot/vImpact)"
  extends WearCosim.Joints.ContactLaws.PartialNormalForce;
equation
  Fn = max(0, K*max(delta, 0)^n_exp*(1 + 3*(1 - cr^2)/4*deltaDot/vImpact));
  annotation (Documentation(info = "<html>
<p>Lankarani, Nikravesh (1990), J. Mech. Des. 112:369: hysteresis damping derived from the energy lost in a
central impact, F<sub>n</sub> = K&delta;<sup>n</sup>[1 + 3(1-c<sub>r</sub><sup>2</sup>)/4&middot;&delta;'/&delta;'<sup>(-)</sup>],
clipped at 0 (no adhesion). Accurate for restitution close to 1 (c<sub>r</sub> &gt; 0.8 say); it dissipates less than
<a href=\"modelica://WearCosim.Joints.ContactLaws.Flores\">Flores</a> at equal c<sub>r</sub>.</p>
</html>"));
end LankaraniNikravesh;
