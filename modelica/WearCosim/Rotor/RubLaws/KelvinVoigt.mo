within WearCosim.Rotor.RubLaws;
model KelvinVoigt "Linear spring-damper penalty law clipped at 0: Fn = max(0, k_c*delta + c_c*deltaDot) (default)"
  extends WearCosim.Rotor.RubLaws.PartialNormalForce;
equation
  Fn = max(0, k_c*delta + c_c*deltaDot);
  annotation (Documentation(info = "<html>
<p>F<sub>n</sub> = max(0, k<sub>c</sub>&delta; + c<sub>c</sub>&delta;') for &delta; &gt; 0: the penalty form of the seed's rub
(see <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>). The damping force jumps by c<sub>c</sub>&delta;'
at the onset; the clip at 0 removes the adhesive force the damping term would give at the end of an impact. The
default law of the rub.</p>
</html>"));
end KelvinVoigt;
