within WearCosim.Examples.SliderCrank;
model SliderCrankDry "Slider-crank benchmark, dry clearance joint rod/slider (c = 0.5 mm, 5000 rpm)"
  extends WearCosim.Mechanisms.SliderCrankClearance(lubricated = false);
  annotation (experiment(StopTime = 0.048, Interval = 1e-5, Tolerance = 1e-9),
    Documentation(info = "<html><p>Flores-Ambr&oacute;sio slider-crank with a dry revolute clearance joint between connecting rod and slider: four crank revolutions (0.048 s at 5000 rpm) from the centred journal. Expected: free flight, impacts and continuous contact in the journal orbit; slider acceleration spikes around the ideal curve. Inputs <code>wearDepth[36]</code>, outputs of the wear interface at the top level.</p></html>"));
end SliderCrankDry;
