within WearCosim.Gears.StiffnessLaws;
model Harmonic "Mean and first harmonic of the single/double tooth-pair rectangle wave"
  extends WearCosim.Gears.StiffnessLaws.PartialStiffness(final kMean = k_single + (k_double - k_single)*(epsAlpha - 1));
equation
  k = kMean + (k_double - k_single)*2/pi*sin(pi*(epsAlpha - 1))*cos(meshPhase - pi*(epsAlpha - 1));
  annotation (Documentation(info = "<html>
<p>The first two terms of the Fourier series of the sharp rectangle wave of
<a href=\"modelica://WearCosim.Gears.StiffnessLaws.SmoothedRectangle\">SmoothedRectangle</a> (double pair on
&phi;<sub>m</sub> &isin; (0, 2&pi;(&epsilon;<sub>&alpha;</sub>-1)) of each mesh period):
k = k<sub>mean</sub> + (k<sub>double</sub>-k<sub>single</sub>)(2/&pi;)sin(&pi;(&epsilon;<sub>&alpha;</sub>-1))cos(&phi;<sub>m</sub> - &pi;(&epsilon;<sub>&alpha;</sub>-1)),
k<sub>mean</sub> = k<sub>single</sub> + (k<sub>double</sub>-k<sub>single</sub>)(&epsilon;<sub>&alpha;</sub>-1).
The classical parametric excitation of gear dynamics (one harmonic of the mesh frequency): it excites the mesh
resonance only at its first order, without the higher orders of the rectangle. <code>sharpness</code> is not used.</p>
</html>"));
end Harmonic;
