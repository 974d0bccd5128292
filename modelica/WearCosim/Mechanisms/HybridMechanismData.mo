within WearCosim.Mechanisms;
record HybridMechanismData "Parameter set of the 3-CPaR&R1R2 hybrid mechanism (seed 002; the seed's Tables 1-2 are not in the text: chosen here, see Documentation)"
  import SI = WearCosim.Units.SI;
  // ---------------------------------------------------------------- driving laws (seed section 3, given)
  parameter SI.Length q10 = 0.354 "Mean displacement of cylindrical joint 1 (chain 1, X axis)";
  parameter SI.Length q20 = 0.409 "Mean displacement of cylindrical joint 2 (chain 2, Y axis)";
  parameter SI.Length q30 = 0.415 "Mean displacement of cylindrical joint 3 (chain 3, Z axis)";
  parameter SI.Length qAmp = 0.005 "Amplitude of q1, q2, q3";
  parameter SI.Angle q4Amp = 0.1 "Amplitude of q4 (serial revolute about X)";
  parameter SI.Angle q5Amp = 0.2 "Amplitude of q5 (serial revolute about Y)";
  // ---------------------------------------------------------------- platform and serial module
  parameter SI.Length lx = 0.16 "Platform length along x";
  parameter SI.Length ly = 0.16 "Platform width along y";
  parameter SI.Length lz = 0.03 "Platform height along z";
  parameter SI.Length l41 = 0.12 "Serial link A4B4 (does not enter the D3 joint dynamics)";
  parameter SI.Length l42 = 0.10 "Serial link B4C4 (does not enter the D3 joint dynamics)";
  parameter SI.Length xD3 = 0 "D3 on the platform: x offset from the platform centre";
  parameter SI.Length yD3 = -ly/2 "D3 on the platform: y offset from the platform centre";
  // ---------------------------------------------------------------- chain 3 (plane XY, axes parallel to Z)
  parameter SI.Position xA3 = 0 "Axis of cylindrical joint C3 (A3): x";
  parameter SI.Position yA3 = 0 "Axis of cylindrical joint C3 (A3): y";
  parameter SI.Length l31 = 0.30 "Link A3B3";
  parameter SI.Length l32 = 0.25 "Parallelogram bars B3C3";
  parameter SI.Length l33 = 0.06 "Link C3D3 (parallel to A3B3; journal at D3)";
  parameter SI.Mass m31 = 1.0 "Mass of link A3B3 (centre of mass at l31/2)";
  parameter SI.Mass m32 = 0.8 "Total mass of the two parallelogram bars (centre of mass at l32/2)";
  parameter SI.Mass m33 = 0.5 "Mass of the coupler with link C3D3 and the journal (centre of mass at s33 from C3)";
  parameter SI.Length s33 = 0.03 "Centre of mass of body 3 from C3 along C3D3";
  parameter SI.Inertia J31 = 7.5e-3 "Inertia of A3B3 about its centre of mass (m*l^2/12)";
  parameter SI.Inertia J32 = 4.2e-3 "Inertia of the parallelogram bars about their centre of mass";
  parameter SI.Inertia J33 = 5e-4 "Inertia of body 3 (coupler + C3D3) about its centre of mass";
  parameter Real elbow = 1 "Assembly branch of chain 3 (+1 or -1)";
  parameter SI.Torque tauFricA3 = 0 "Coulomb friction torque of the passive rotation (alpha) of chain 3's cylindrical joint A3 (0: ideal joint; HybridMechanism3CPaR, Joint friction)";
  parameter SI.Torque tauFricPa = 0 "Coulomb friction torque of the parallelogram's four pins together, against the bars' rotation relative to A3B3 (beta - alpha) (0: ideal joints)";
  parameter SI.AngularVelocity wFric = 0.01 "Regularisation speed of the passive joints' Coulomb friction: torque = tauFric*tanh(w/wFric)";
  parameter SI.Acceleration gPlane = 0 "Gravity in the plane of chain 3, along -y of that plane (0: chain axes vertical, gravity out of plane, the seed's orientation; 9.81: chain plane vertical; 3.0: plane inclined 17.8 deg, the tilted sensitivity set cosim/seed/tilted)";
  // ---------------------------------------------------------------- D3 clearance joint
  parameter SI.Radius R_journal = 0.01 "Journal radius at D3 (on C3D3)";
  parameter SI.Length L = 0.04 "Length of the D3 journal/bearing (L/D = 2)";
  parameter SI.ModulusOfElasticity E_journal = 207e9 "Journal: steel";
  parameter SI.PoissonNumber nu_journal = 0.3 "Journal: steel";
  parameter SI.ModulusOfElasticity E_bearing = 110e9 "Bearing (in the platform): tin bronze";
  parameter SI.PoissonNumber nu_bearing = 0.34 "Bearing: tin bronze";
  parameter Real cr = 0.9 "Coefficient of restitution";
  parameter Real mu_d = 0.1 "Dry friction coefficient steel on bronze";
  parameter SI.Velocity v0 = 1e-4 "Ambrosio friction: lower slip-speed bound";
  parameter SI.Velocity v1 = 1e-2 "Ambrosio friction: upper slip-speed bound";
  parameter SI.DynamicViscosity mu_oil = 0.4 "Oil viscosity, 400 cP at 40 degC (seed section 3)";
  parameter Real epsMax = 0.99 "Cap of the eccentricity ratio in the film forces";
  parameter Real wedgeScale = 0 "Scale of the wedge film force: 0 = pure squeeze film, as assumed in seed 002 section 1.1.2";
  annotation (Documentation(info = "<html>
<p>One parameter set for every model of the 3-CPaR&amp;R<sub>1</sub>R<sub>2</sub> mechanism (docs/physics/mechanisms.md). The
driving laws are the seed's; everything else is <b>chosen</b> (the seed's Tables 1-2 are not in its
text): metre-scale, consistent with the q values, physically plausible.</p>
<ul>
<li>Frame O-XYZ of the seed. Chain 1 (axis X) sets the platform's x = q<sub>1</sub>, chain 2 (axis Y) its
y = q<sub>2</sub>, chain 3 (axis Z) its z = q<sub>3</sub> + const (the cylindrical-joint displacements are
measured so that the platform centre is (q<sub>1</sub>, q<sub>2</sub>) in XY; the z offset does not enter).</li>
<li>Chain 3 lies in a plane parallel to XY: A3 on the Z axis through (xA3, yA3); D3 on the platform's
-y edge, (xD3, yD3) = (0, -l<sub>y</sub>/2) from its centre. With q<sub>1</sub> = 0.354, q<sub>2</sub> = 0.409,
|A3D3| = 0.484 m; arm A3-D3 through the parallelogram: l<sub>31</sub> + l<sub>33</sub> = 0.36 m and
l<sub>32</sub> = 0.25 m (reach 0.11-0.61 m, the &plusmn;5 mm motion stays far from singular configurations).</li>
<li>Links: steel tubes, masses 1.0/0.8/0.5 kg, inertias of slender rods m l<sup>2</sup>/12.</li>
<li>Joint D3: steel journal R = 10 mm, L = 40 mm (L/D = 2, the seed's long-bearing condition),
bronze bearing (E = 110 GPa, &nu; = 0.34) - the softer, worn body as in the seed; c<sub>r</sub> = 0.9,
&mu;<sub>d</sub> = 0.1 (dry steel/bronze, order of magnitude), oil 0.4 Pa&middot;s (seed).</li>
<li>Platform l<sub>x</sub>&times;l<sub>y</sub>&times;l<sub>z</sub> = 0.16&times;0.16&times;0.03 m and serial links l<sub>41</sub>, l<sub>42</sub> are listed for
completeness; they do not enter the dynamics of the D3 joint (see
<a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a>).</li>
</ul></html>"));
end HybridMechanismData;
