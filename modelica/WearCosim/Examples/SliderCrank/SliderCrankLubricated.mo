within WearCosim.Examples.SliderCrank;
model SliderCrankLubricated "Slider-crank benchmark, lubricated clearance joint (oil 0.4 Pa.s, Flores hybrid model)"
  extends WearCosim.Mechanisms.SliderCrankClearance(lubricated = true);
  annotation (experiment(StopTime = 0.048, Interval = 1e-5, Tolerance = 1e-9),
    Documentation(info = "<html><p>As <code>Dry</code> with the Sommerfeld long-bearing film and Flores hybrid lubricated/dry transition (&mu; = 0.4 Pa&middot;s, L = 40 mm, &epsilon;<sub>max</sub> = 0.99, e<sub>0</sub> = 0.05c). Expected: lower peak slider acceleration and joint force than the dry run.</p></html>"));
end SliderCrankLubricated;
