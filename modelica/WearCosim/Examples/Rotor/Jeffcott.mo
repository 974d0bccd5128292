within WearCosim.Examples.Rotor;
model Jeffcott "Jeffcott single-disk rotor with unbalance in full annular rub on a rigid stator; wear interface at the top level"
  extends WearCosim.Rotor.JeffcottRub(m = 5, k = 5e5, d = 50, unbalance = 2.5e-4, Omega0 = 300,
    c = 0.2e-3, R_journal = 0.075, L = 0.02, k_c = 2e6, c_c = 200, mu = 0.1);
  annotation (experiment(StopTime = 1, Interval = 2e-4, Tolerance = 1e-8),
    Documentation(info = "<html>
<p>Jeffcott rotor: m = 5 kg, k = 5&middot;10<sup>5</sup> N/m (critical speed &radic;(k/m) = 316 rad/s), d = 50 N s/m
(&zeta; = 1.6 %), unbalance 2.5&middot;10<sup>-4</sup> kg m (e<sub>U</sub> = 50 &micro;m), spin 300 rad/s, stator clearance
0.2 mm, k<sub>c</sub> = 2&middot;10<sup>6</sup> N/m (a compliant seal), c<sub>c</sub> = 200 N s/m, &mu; = 0.1. The free orbit (0.43 mm) would exceed the clearance: the disk settles into synchronous full annular rub
(r = 0.2059 mm, F<sub>n</sub> = 11.8 N), whose radius the test compares with the closed form of
<a href=\"modelica://WearCosim.Rotor.JeffcottRub\">Rotor.JeffcottRub</a>. Setting d = c<sub>c</sub> = &mu; =
unbalance = 0 and an initial velocity gives the conservative impact test. With &mu; = 0.3 the same rotor
falls into backward whirl (dry whip), which the penalty contact lets grow far beyond the clearance: a
physically destructive regime, not a modelling artefact.</p>
</html>"));
end Jeffcott;
