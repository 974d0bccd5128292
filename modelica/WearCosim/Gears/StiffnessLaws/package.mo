within WearCosim.Gears;
package StiffnessLaws "Replaceable periodic mesh stiffness laws (single/double tooth-pair alternation)"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Periodic mesh stiffness laws of <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>. The mesh declares</p>
<pre>  replaceable model Stiffness = StiffnessLaws.SmoothedRectangle constrainedby StiffnessLaws.PartialStiffness;</pre>
<p>and uses the law when <code>variableStiffness = true</code> (a run-time parameter of the FMU); otherwise the
stiffness is the constant <code>k_m</code>. A law receives the mesh phase &phi;<sub>m</sub> (2&pi; per tooth) and the
tooth-pair data (single-pair stiffness, double-pair stiffness, transverse contact ratio &epsilon;<sub>&alpha;</sub>) and
returns the current stiffness k and its mean over a mesh cycle k<sub>mean</sub> (used by the mesh damping, eq. 23).</p>
<p><a href=\"modelica://WearCosim.Gears.StiffnessLaws.SmoothedRectangle\">SmoothedRectangle</a> is the default (the law of
all examples); <a href=\"modelica://WearCosim.Gears.StiffnessLaws.Harmonic\">Harmonic</a> keeps only the mean and the
first harmonic of the same rectangle wave. Select a law in a gear pair with
<code>GearPair pair(redeclare model Stiffness = WearCosim.Gears.StiffnessLaws.Harmonic, ...)</code>.</p>
</html>"));
end StiffnessLaws;
