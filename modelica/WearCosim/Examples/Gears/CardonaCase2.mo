within WearCosim.Examples.Gears;
model CardonaCase2 "Cardona's test, case 2: spatial gear pair with backlash 0.001968 in, rigid supports (seed 003 Table 3)"
  extends WearCosim.Gears.CardonaTransmission(data(b_in = 0.001968));
  annotation (experiment(StopTime = 0.02, Interval = 2e-6, Tolerance = 1e-8),
    Documentation(info = "<html><p>Case 2 of seed 003's third test: backlash b = 0.001968 in (50 &micro;m), rigid
supports; the teeth start in the middle of the backlash. Compare with
<a href=\"modelica://WearCosim.Examples.Gears.CardonaTorsional\">CardonaTorsional</a>(data.b_in = 0.001968).</p></html>"));
end CardonaCase2;
