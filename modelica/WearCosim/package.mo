within ;
package WearCosim "Modelica components for co-simulating wear in machines with clearances"
  extends WearCosim.Icons.Package;
  annotation (
    version = "0.1.0",
    __WearCosim_author = "The WearCosim developers",
    __WearCosim_copyright = "Copyright (c) 2026 The WearCosim developers",
    __WearCosim_license = "BSD-3-Clause",
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
<p>License: BSD 3-Clause (SPDX identifier <code>BSD-3-Clause</code>), the license of the
wearcosim project.  The annotations <code>version</code>, <code>__WearCosim_author</code>,
<code>__WearCosim_copyright</code> and <code>__WearCosim_license</code> of this package are the
<code>version</code>, <code>author</code>, <code>copyright</code> and <code>license</code> of
every FMU that <code>wearcosim build</code> exports from it.</p>
</html>"));
end WearCosim;
