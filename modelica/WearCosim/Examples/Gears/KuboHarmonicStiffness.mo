within WearCosim.Examples.Gears;
model KuboHarmonicStiffness "Kubo's spur pair with the harmonic mesh stiffness law (redeclared): dynamic factor at a steady speed nRpm"
  extends WearCosim.Examples.Gears.KuboDynamicFactor(redeclare model Stiffness = WearCosim.Gears.StiffnessLaws.Harmonic);
  annotation (experiment(StopTime = 0.03, Interval = 1e-6, Tolerance = 1e-7),
    Documentation(info = "<html><p>As <a href=\"modelica://WearCosim.Examples.Gears.KuboDynamicFactor\">KuboDynamicFactor</a>
with the mesh stiffness law of the pair redeclared to
<a href=\"modelica://WearCosim.Gears.StiffnessLaws.Harmonic\">Harmonic</a>: the same mean stiffness, only the first
harmonic of the single/double tooth-pair alternation. Expected: the same static force and mean speed, a smoother
mesh force without the steps of the rectangle wave (no higher-order parametric excitation).</p></html>"));
end KuboHarmonicStiffness;
