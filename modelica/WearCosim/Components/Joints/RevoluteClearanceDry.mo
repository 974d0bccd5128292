within WearCosim.Components.Joints;
model RevoluteClearanceDry "Revolute clearance joint, dry (Flores contact, Ambrosio friction), as a force element: bearing and journal kinematics in, joint force and torques out, wear interface"
  extends WearCosim.Joints.RevoluteClearance(final lubricated = false);
  annotation (Documentation(info = "<html>
<p>The planar revolute joint with radial clearance and a worn bearing of
<a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a> with a <b>dry</b> contact
(<code>lubricated = false</code>, fixed: the law is structural, its lubricated twin is
<a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceLubricated\">RevoluteClearanceLubricated</a>, with
the same ports and parameters, so the two FMUs are interchangeable in a system). Flores normal force with
hysteresis damping and Ambr&oacute;sio friction; the journal is free inside the bearing until the penetration
&delta; = |r<sub>J</sub> - r<sub>B</sub>| - (c + h(&theta;)) becomes positive.</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>rB[2]</td><td>input</td><td>m</td><td>bearing centre, global frame</td></tr>
<tr><td>vB[2]</td><td>input</td><td>m/s</td><td>velocity of the bearing centre</td></tr>
<tr><td>phiB</td><td>input</td><td>rad</td><td>rotation angle of the bearing body (orientation of the bearing frame, in which theta and the wear sectors are measured)</td></tr>
<tr><td>wB</td><td>input</td><td>rad/s</td><td>angular velocity of the bearing body</td></tr>
<tr><td>rJ[2]</td><td>input</td><td>m</td><td>journal centre, global frame</td></tr>
<tr><td>vJ[2]</td><td>input</td><td>m/s</td><td>velocity of the journal centre</td></tr>
<tr><td>wJ</td><td>input</td><td>rad/s</td><td>angular velocity of the journal body</td></tr>
<tr><td>wearDepth[nSectors]</td><td>input</td><td>m</td><td>wear depth of the bearing per sector, sector i centred at (i - 1/2) 2&pi;/nSectors in the bearing frame (written by the wear master)</td></tr>
<tr><td>F[2]</td><td>output</td><td>N</td><td>total joint force on the journal (solid contact + film), global frame; the bearing body receives -F at its centre</td></tr>
<tr><td>tauJ</td><td>output</td><td>N.m</td><td>joint torque on the journal body about the journal centre</td></tr>
<tr><td>tauB</td><td>output</td><td>N.m</td><td>joint torque on the bearing body about the bearing centre</td></tr>
<tr><td>Fn</td><td>output</td><td>N</td><td>normal force of the solid contact (&ge; 0, film force excluded)</td></tr>
<tr><td>Ft</td><td>output</td><td>N</td><td>friction force of the solid contact on the journal, along t</td></tr>
<tr><td>delta</td><td>output</td><td>m</td><td>penetration e - c<sub>local</sub>(&theta;) (&gt; 0 in contact)</td></tr>
<tr><td>theta</td><td>output</td><td>rad</td><td>contact angle of the line of centres in the bearing frame</td></tr>
<tr><td>vSlip</td><td>output</td><td>m/s</td><td>tangential slip velocity, journal relative to bearing</td></tr>
<tr><td>halfWidth</td><td>output</td><td>m</td><td>Hertz line-contact half-width of the solid contact</td></tr>
<tr><td>inContact</td><td>output (Boolean)</td><td></td><td>delta &gt; 0</td></tr>
</table>
<h4>Parameters</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>unit</th><th>default</th><th>meaning</th></tr>
<tr><td>nSectors</td><td></td><td>36</td><td>number of wear sectors (structural: fixed at build time)</td></tr>
<tr><td>R_journal</td><td>m</td><td>0.01</td><td>journal radius</td></tr>
<tr><td>c</td><td>m</td><td>0.5e-3</td><td>unworn radial clearance</td></tr>
<tr><td>R_bearing</td><td>m</td><td>R_journal + c</td><td>unworn bearing radius (calculated parameter, read by the wear master)</td></tr>
<tr><td>L</td><td>m</td><td>0.04</td><td>axial contact length</td></tr>
<tr><td>E_bearing, nu_bearing</td><td>Pa, 1</td><td>207e9, 0.3</td><td>bearing material (the worn body)</td></tr>
<tr><td>E_journal, nu_journal</td><td>Pa, 1</td><td>207e9, 0.3</td><td>journal material</td></tr>
<tr><td>n_exp, cr</td><td>1</td><td>1.5, 0.9</td><td>exponent of the Flores law, coefficient of restitution</td></tr>
<tr><td>mu_d, v0, v1</td><td>1, m/s, m/s</td><td>0.01, 1e-4, 1e-2</td><td>Ambr&oacute;sio friction</td></tr>
<tr><td>vImpactMin, eReg</td><td>m/s, m</td><td>1e-3, 1e-12</td><td>regularisations (floor of the impact velocity, |e| at the centre)</td></tr>
<tr><td>mu_oil, epsMax, wedgeScale</td><td>Pa.s, 1, 1</td><td>0.4, 0.99, 1</td><td>film: oil viscosity, eccentricity cap, scale of the wedge force</td></tr>
<tr><td>e0</td><td>m</td><td>0.05 c</td><td>width of the lubricated-to-dry band (calculated from c)</td></tr>
</table>
<p>The film parameters (mu_oil, epsMax, wedgeScale, e0) are not used by the dry joint; they are kept so that one parameter set serves both joint FMUs.</p>
<h4>Causality</h4>
<p>Force element: every output depends directly on the kinematic inputs (and on <code>wearDepth</code>); the joint
has no continuous state, only the discrete impact velocity <code>vImpact</code> captured at each contact onset
(event <code>delta &gt; 0</code>). Connect it to bodies whose kinematic outputs have no direct feedthrough
(<a href=\"modelica://WearCosim.Components.Mechanisms\">Components.Mechanisms</a>): body + joint has no algebraic loop.
The body carrying the journal receives <code>F</code> at the journal centre and <code>tauJ</code>; the body carrying
the bearing receives -<code>F</code> at the bearing centre and <code>tauB</code>.</p>
<h4>Parameter values of the monolithic examples</h4>
<ul>
<li><a href=\"modelica://WearCosim.Examples.SliderCrank\">SliderCrank</a> (SliderCrankDry, SliderCrankLubricated):
the defaults (steel journal and bearing, R_journal = 10 mm, c = 0.5 mm, L = 40 mm, c<sub>r</sub> = 0.9, &mu;<sub>d</sub> = 0.01,
oil 0.4 Pa.s, wedgeScale = 1).</li>
<li><a href=\"modelica://WearCosim.Examples.HybridMechanism\">HybridMechanism</a> (the D3 joint, values of
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanismData\">HybridMechanismData</a>): E_bearing = 110e9,
nu_bearing = 0.34 (bronze), mu_d = 0.1, wedgeScale = 0, c as in the example (0.25 mm for the speed studies,
0.15-0.45 mm for the clearance studies, 0.20 mm for Dry7pi/Lubricated7pi); the other values are the defaults.</li>
</ul>
<p>The physics is that of <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>
(equations, assumptions, regularisations), which this model extends unchanged; the monolithic mechanisms contain
the same model as their <code>joint</code>.</p>
</html>"));
end RevoluteClearanceDry;
