within WearCosim.Rotor;
package RubLaws "Replaceable normal force laws of the rotor-stator rub"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Normal force laws of <a href=\"modelica://WearCosim.Rotor.RubContact\">RubContact</a>. The contact declares</p>
<pre>  replaceable model NormalForce = RubLaws.KelvinVoigt constrainedby RubLaws.PartialNormalForce;</pre>
<p>and evaluates the law only while &delta; &gt; 0 (the contact onset stays the rub's only event). A law receives the
penetration &delta;, its rate &delta;' and the contact stiffness and damping of the rub (<code>k_c</code>,
<code>c_c</code>, the parameters of the seed's study) and returns F<sub>n</sub> &ge; 0.
<a href=\"modelica://WearCosim.Rotor.RubLaws.KelvinVoigt\">KelvinVoigt</a> is the default (the law of all examples).</p>
<p>The rotor models (<a href=\"modelica://WearCosim.Rotor.RotorStatorRub\">RotorStatorRub</a>,
<a href=\"modelica://WearCosim.Rotor.JeffcottRub\">JeffcottRub</a>) pass their own <code>NormalForce</code> on, e.g.
<code>extends WearCosim.Rotor.JeffcottRub(redeclare model NormalForce = WearCosim.Rotor.RubLaws.HuntCrossley)</code>.</p>
</html>"));
end RubLaws;
