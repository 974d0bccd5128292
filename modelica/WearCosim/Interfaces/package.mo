within WearCosim;
package Interfaces "Wear interface shared by every wear-capable component (naming convention used by the Python master)"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<h4>The wear interface (one naming convention for every component and for the master)</h4>
<p>Every wear-capable component extends <a href=\"modelica://WearCosim.Interfaces.WearSurface\">WearSurface</a>,
and every model that is exported as an FMU for the wear master re-declares the same names at
its <b>top level</b> (the mechanisms extend <code>WearSurface</code> themselves and bind the
joint's interface to their own):</p>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td><code>wearDepth[i]</code>, i = 1..nSectors</td><td>input (start 0)</td><td>m</td>
<td>wear depth of the worn body (the bearing) on sector i. Sector i spans the angles
[(i-1), i)&middot;2&pi;/nSectors of the worn body's frame and is centred at
(i-1/2)&middot;2&pi;/nSectors (same convention as <code>wearcosim.wear.archard.SectorSurface</code>).
Inputs, not parameters, because parameters are exported as <code>variability=\"fixed\"</code>
and cannot be rewritten between communication steps in every FMI tool.</td></tr>
<tr><td><code>Fn</code></td><td>output</td><td>N</td><td>normal force of the <i>solid</i> contact (the
part that wears; excludes the fluid-film force of a lubricated joint), &ge; 0</td></tr>
<tr><td><code>Ft</code></td><td>output</td><td>N</td><td>tangential (friction) force of the solid contact
on the journal along the tangent t (signed)</td></tr>
<tr><td><code>delta</code></td><td>output</td><td>m</td><td>penetration e - c<sub>local</sub>(&theta;); &gt; 0 in contact,
&lt; 0 is the gap</td></tr>
<tr><td><code>theta</code></td><td>output</td><td>rad</td><td>contact angle (direction of the line of centres,
journal centre relative to bearing centre) in the worn body's frame, in (-&pi;, &pi;]; the
master wraps it to [0, 2&pi;)</td></tr>
<tr><td><code>vSlip</code></td><td>output</td><td>m/s</td><td>tangential slip velocity of the contact points
(journal relative to bearing), signed along t</td></tr>
<tr><td><code>halfWidth</code></td><td>output</td><td>m</td><td>Hertz line-contact half-width b of the solid
contact (0 out of contact)</td></tr>
<tr><td><code>inContact</code></td><td>output (Boolean)</td><td>-</td><td>true while delta &gt; 0</td></tr>
<tr><td><code>nSectors</code></td><td>parameter (Integer, structural)</td><td>-</td><td>number of sectors</td></tr>
<tr><td><code>R_journal</code></td><td>parameter</td><td>m</td><td>journal radius</td></tr>
<tr><td><code>c</code></td><td>parameter</td><td>m</td><td>unworn radial clearance</td></tr>
<tr><td><code>R_bearing</code></td><td>final parameter</td><td>m</td><td>unworn bearing radius = R_journal + c</td></tr>
<tr><td><code>L</code></td><td>parameter</td><td>m</td><td>axial contact length (Hertz line contact, film length)</td></tr>
</table>
<p>The tangent t is the normal n = e/|e| rotated by +90&deg; (counter-clockwise about the
joint axis). The local clearance seen by the contact law is
c<sub>local</sub>(&theta;) = c + h(&theta;), h the periodic, piecewise-linear interpolation of
<code>wearDepth</code> between sector centres
(<a href=\"modelica://WearCosim.Contact.wearProfile\">Contact.wearProfile</a>).</p>
</html>"));
end Interfaces;
