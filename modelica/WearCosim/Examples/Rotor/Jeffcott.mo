within WearCosim.Examples.Rotor;
model Jeffcott "Jeffcott single-disk rotor with unbalance in full annular rub on a rigid stator; wear interface at the top level"
  extends WearCosim.Rotor.JeffcottRub(m = 5, k = 5e5, d = 50, unbalance = 5e-5, Omega0 = 300,
    c = 0.2e-3, R_journal = 0.075, L = 0.02, k_c = 2e7, c_c = 200, mu = 0.1);
  annotation (experiment(StopTime = 1, Interval = 2e-4, Tolerance = 1e-8),
    Documentation(info = "<html>
<p>Jeffcott rotor: m = 5 kg, k = 5&middot;10<sup>5</sup> N/m (critical speed &radic;(k/m) = 316 rad/s), d = 50 N s/m
(&zeta; = 1.6 %), unbalance 5&middot;10<sup>-5</sup> kg m (e<sub>U</sub> = 10 &micro;m), spin 300 rad/s, stator clearance
0.2 mm, k<sub>c</sub> = 2&middot;10<sup>7</sup> N/m, c<sub>c</sub> = 200 N s/m, &mu; = 0.1. Near the critical speed the free
orbit would exceed the clearance: the disk settles into synchronous full annular rub, whose radius the test
compares with the closed form of
<a href=\"modelica://WearCosim.Rotor.JeffcottRub\">Rotor.JeffcottRub</a>. Setting d = c<sub>c</sub> = &mu; =
unbalance = 0 and an initial velocity gives the conservative impact test.</p>
</html>"));
end Jeffcott;
