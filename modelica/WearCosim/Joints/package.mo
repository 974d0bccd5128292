within WearCosim;
package Joints "Joints with clearance whose bearing surface wears"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Planar joint models built from the laws of
<a href=\"modelica://WearCosim.Contact\">Contact</a> and carrying the wear interface of
<a href=\"modelica://WearCosim.Interfaces\">Interfaces</a>.</p></html>"));
end Joints;
