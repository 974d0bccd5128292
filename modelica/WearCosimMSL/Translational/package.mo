within WearCosimMSL;
package Translational "The clearance joint between planar bodies built of Modelica.Mechanics.Translational and Rotational components"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>A planar rigid body is, in the MSL's one-dimensional mechanics, a <code>Translational.Components.Mass</code> for x, another for y and a
<code>Rotational.Components.Inertia</code> for its rotation. <a href=\"modelica://WearCosimMSL.Translational.RevoluteClearanceXY\">RevoluteClearanceXY</a>
puts WearCosim's revolute joint with clearance (<a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>) between two such
bodies, the journal and the bearing, through three flanges each. It stands in for an adapter to
<code>Modelica.Mechanics.MultiBody.Interfaces.Frame_a/b</code>, which waits for MultiBody to build (see docs/library.md).</p>
</html>"));
end Translational;
