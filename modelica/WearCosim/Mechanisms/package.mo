within WearCosim;
package Mechanisms "Mechanisms carrying a revolute clearance joint, each with its ideal-joint twin"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Planar multibody models written directly as Lagrange equations
<code>M(q)*der(qd) = Q(q, qd, t)</code> in the few coordinates that stay free once the prescribed
drives are substituted (drives are explicit functions of time, no states). Each clearance model
extends <a href=\"modelica://WearCosim.Interfaces.WearSurface\">Interfaces.WearSurface</a> so that the
exported FMU carries the wear interface at its top level, and has an ideal-joint twin that computes
the same mechanism's kinematics and joint reaction in closed form.</p>
<ul>
<li><a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">SliderCrankClearance</a> /
<a href=\"modelica://WearCosim.Mechanisms.SliderCrankIdeal\">SliderCrankIdeal</a>: the Flores-Ambr&oacute;sio benchmark (SPEC 2.2).</li>
<li><a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a> /
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaRIdeal\">HybridMechanism3CPaRIdeal</a>: the seed's
3-CPaR&amp;R1R2 mechanism with the clearance at D3 (SPEC 2.1), parameters in
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanismData\">HybridMechanismData</a>.</li>
</ul></html>"));
end Mechanisms;
