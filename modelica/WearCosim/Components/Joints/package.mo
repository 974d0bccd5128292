within WearCosim.Components;
package Joints "Clearance joints as force elements: journal and bearing kinematics in, joint forces out, wear interface"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>The revolute clearance joint of <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>
as component FMUs, one per contact law (the law is structural):</p>
<ul>
<li><a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceDry\">RevoluteClearanceDry</a>: dry contact
(Flores normal force, Ambr&oacute;sio friction);</li>
<li><a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceLubricated\">RevoluteClearanceLubricated</a>:
Sommerfeld film blended with the dry contact (Flores hybrid model).</li>
</ul>
<p>Both have the same ports (inputs rB, vB, phiB, wB, rJ, vJ, wJ, wearDepth[nSectors]; outputs F, tauJ, tauB and the
wear outputs Fn, Ft, delta, theta, vSlip, halfWidth, inContact) and the same parameters, so swapping the law in a
system is swapping the FMU. They connect port to port to the bodies of
<a href=\"modelica://WearCosim.Components.Mechanisms\">Components.Mechanisms</a>. Guide:
docs/components/joints_mechanisms.md.</p>
</html>"));
end Joints;
