within WearCosim;
package Units "SI unit types (the Modelica Standard Library is not available here)"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Real types with SI units in the style of <code>Modelica.Units.SI</code>, declared in
this library because the Modelica Standard Library is not available to the exporter.
Every physical declaration in WearCosim uses one of these types.</p></html>"));
end Units;
