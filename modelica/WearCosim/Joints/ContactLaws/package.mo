within WearCosim.Joints;
package ContactLaws "Replaceable normal force laws of the dry journal-bearing contact"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Normal force laws for the dry contact of <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a>.
The joint declares</p>
<pre>  replaceable model NormalForce = ContactLaws.Flores constrainedby ContactLaws.PartialNormalForce;</pre>
<p>and evaluates the law only while &delta; &gt; 0 (the contact onset stays the joint's only event). A law
receives the stiffness K at the local (worn) bearing radius, the penetration &delta;, its rate &delta;' and the
penetration velocity &delta;'<sup>(-)</sup> captured at the onset; it returns F<sub>n</sub> &ge; 0.
<a href=\"modelica://WearCosim.Joints.ContactLaws.Flores\">Flores</a> is the default (the law of all examples);
the alternatives are the classical laws Flores et al. (2011) compare it with.</p>
<p>Select a law in a mechanism with, e.g.,</p>
<pre>  extends WearCosim.Mechanisms.SliderCrankClearance(
    redeclare model NormalForce = WearCosim.Joints.ContactLaws.LankaraniNikravesh);</pre>
<p>Leaf-specific parameters are set by a class of one's own (<code>model MyLaw = ...Hertz(...)</code>
or <code>extends</code> with modifiers) that is then redeclared: rumoca 0.10.2 silently ignores modifiers
written inside the <code>redeclare</code> itself.</p>
</html>"));
end ContactLaws;
