within WearCosimMSL;
package Rotational "Adapters between WearCosim hubs or rotor spin and Modelica.Mechanics.Rotational flanges"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Three adapters, by who owns the motion of the shaft:</p>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>adapter</th><th>WearCosim side</th><th>MSL side</th><th>the motion is set by</th></tr>
<tr><td><a href=\"modelica://WearCosimMSL.Rotational.HubToFlange\">HubToFlange</a></td><td><a href=\"modelica://WearCosim.Gears.Hub\">Hub</a> (element side)</td>
<td><code>Flange_b</code></td><td>the WearCosim body owning the hub (a <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>, the wheels of a
<a href=\"modelica://WearCosim.Gears.GearPair\">GearPair</a>)</td></tr>
<tr><td><a href=\"modelica://WearCosimMSL.Rotational.FlangeToHub\">FlangeToHub</a></td><td><a href=\"modelica://WearCosim.Gears.WheelHub\">WheelHub</a> (body side)</td>
<td><code>Flange_a</code></td><td>the MSL body on the flange (an MSL <code>Inertia</code>); a WearCosim element (a
<a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>, a shaft) acts on it</td></tr>
<tr><td><a href=\"modelica://WearCosimMSL.Rotational.SpinToFlange\">SpinToFlange</a></td><td>the spin angle of a rotor (input)</td>
<td><code>Flange_b</code></td><td>the rotor's prescribed spin (<a href=\"modelica://WearCosim.Rotor\">WearCosim.Rotor</a>: an ideal speed source)</td></tr>
</table>
<p>Common conventions: the flange angle is the spin &psi; about the unit axis <code>e</code> (right-hand rule), which must be
&plusmn; the nominal axis e3 of the hub's body (then <code>e&middot;hub.phi</code> = &plusmn;&psi; exactly, whatever the tilts, because E0 is
orthonormal); choosing <code>e = -e3</code> counts the flange in the opposite sense, consistently for angle and torque. The adapters
are massless and lossless: the power entering through one side leaves through the other,
<code>flange.tau&middot;der(flange.phi) + hub.t&middot;hub.w = 0</code>.</p>
</html>"));
end Rotational;
