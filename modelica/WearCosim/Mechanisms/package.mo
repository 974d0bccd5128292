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
<a href=\"modelica://WearCosim.Mechanisms.SliderCrankIdeal\">SliderCrankIdeal</a>: the Flores-Ambr&oacute;sio benchmark (docs/physics/mechanisms.md).</li>
<li><a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a> /
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaRIdeal\">HybridMechanism3CPaRIdeal</a>: the seed's
3-CPaR&amp;R1R2 mechanism with the clearance at D3 (docs/physics/mechanisms.md), parameters in
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanismData\">HybridMechanismData</a>.</li>
</ul>
<p>The bodies and equations of motion of each clearance model live in a partial base class,
<a href=\"modelica://WearCosim.Mechanisms.BaseSliderCrankClearance\">BaseSliderCrankClearance</a> and
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaRClearance\">BaseHybridMechanism3CPaRClearance</a>, with
the joint's loads as plain variables: the clearance model binds them to its <code>joint</code>, the component models
of <a href=\"modelica://WearCosim.Components.Mechanisms\">Components.Mechanisms</a> to inputs. One set of equations
serves the monolithic examples and the compositions of component FMUs.</p></html>"));
end Mechanisms;
