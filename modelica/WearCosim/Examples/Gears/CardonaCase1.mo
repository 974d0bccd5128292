within WearCosim.Examples.Gears;
model CardonaCase1 "Cardona's test, case 1: spatial gear pair without backlash, rigid supports (seed 003 Table 3)"
  extends WearCosim.Gears.CardonaTransmission(data(b_in = 0));
  annotation (experiment(StopTime = 0.02, Interval = 2e-6, Tolerance = 1e-8),
    Documentation(info = "<html><p>Case 1 of seed 003's third test: no backlash, rigid supports. Compare
<code>F</code> with <a href=\"modelica://WearCosim.Examples.Gears.CardonaTorsional\">CardonaTorsional</a> (eq. 27).
20 ms from rest cover about 20 mesh periods of the accelerating pair (the force is dominated by the
lightly damped shaft modes excited by the torque step).</p></html>"));
end CardonaCase1;
