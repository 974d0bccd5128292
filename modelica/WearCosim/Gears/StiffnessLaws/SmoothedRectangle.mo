within WearCosim.Gears.StiffnessLaws;
model SmoothedRectangle "Single/double tooth-pair alternation as a rectangle wave smoothed by tanh (default)"
  extends WearCosim.Gears.StiffnessLaws.PartialStiffness(final kMean = k_single + (k_double - k_single)*(epsAlpha - 1));
equation
  k = k_single + (k_double - k_single)*0.5*(1 + tanh(sharpness*(cos(meshPhase - pi*(epsAlpha - 1)) - cos(pi*(epsAlpha - 1)))));
  annotation (Documentation(info = "<html>
<p>k = k<sub>single</sub> + (k<sub>double</sub>-k<sub>single</sub>)w(&phi;<sub>m</sub>),
w = &frac12;[1 + tanh(&sigma;(cos(&phi;<sub>m</sub> - &pi;(&epsilon;<sub>&alpha;</sub>-1)) - cos(&pi;(&epsilon;<sub>&alpha;</sub>-1))))]:
a rectangle wave (double pair on a fraction &epsilon;<sub>&alpha;</sub>-1 of each mesh period, starting when a pair enters)
smoothed by &sigma; = <code>sharpness</code> (continuous for the solver, periodic without any wrap).
k<sub>mean</sub> = k<sub>single</sub> + (k<sub>double</sub>-k<sub>single</sub>)(&epsilon;<sub>&alpha;</sub>-1) (sharp limit).
The default law of <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>.</p>
</html>"));
end SmoothedRectangle;
