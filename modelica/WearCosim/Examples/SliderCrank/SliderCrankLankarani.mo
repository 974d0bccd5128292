within WearCosim.Examples.SliderCrank;
model SliderCrankLankarani "Slider-crank benchmark, dry clearance joint with the Lankarani-Nikravesh contact law (redeclared)"
  extends WearCosim.Mechanisms.SliderCrankClearance(lubricated = false,
    redeclare model NormalForce = WearCosim.Joints.ContactLaws.LankaraniNikravesh);
  annotation (experiment(StopTime = 0.048, Interval = 1e-5, Tolerance = 1e-9),
    Documentation(info = "<html><p>As <a href=\"modelica://WearCosim.Examples.SliderCrank.SliderCrankDry\">SliderCrankDry</a>
with the normal force law of the clearance joint redeclared to
<a href=\"modelica://WearCosim.Joints.ContactLaws.LankaraniNikravesh\">LankaraniNikravesh</a> (hysteresis damping
3(1-c<sub>r</sub><sup>2</sup>)/4 instead of Flores' 8(1-c<sub>r</sub>)/(5c<sub>r</sub>): at c<sub>r</sub> = 0.9 about half the
damping). Expected: the same regimes (free flight, impacts, continuous contact) with slightly livelier rebounds.</p></html>"));
end SliderCrankLankarani;
