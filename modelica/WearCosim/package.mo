within ;
package WearCosim "Modelica components for co-simulating wear in machines with clearances"
  extends WearCosim.Icons.Package;
  annotation (
    version = "0.1.0",
    Documentation(info = "<html>
<p><b>WearCosim</b> is a library of components whose contact surfaces wear: a revolute
joint with clearance inside real mechanisms, a spatial gear pair with backlash and a
rotor&ndash;stator rub model.  Each component exposes the <i>wear interface</i>
(see <a href=\"modelica://WearCosim.Interfaces\">Interfaces</a>): the worn body's wear-depth
profile enters as inputs <code>wearDepth[nSectors]</code>, the contact state leaves as
outputs <code>Fn, Ft, delta, theta, vSlip, halfWidth, inContact</code>.  The examples are
exported as FMI 2.0 FMUs by <code>wearcosim build</code> and driven by the Python wear master
that applies Archard's law per sector.</p>
<p>All quantities are SI (the types of <a href=\"modelica://WearCosim.Units\">Units</a>);
the Modelica Standard Library is not required.</p>
</html>"));
end WearCosim;
