within WearCosim.Gears;
connector Hub "3D hub of a wheel/shaft: displacement and rotation (spin + small tilts) with velocities; force and torque as flows"
  import SI = WearCosim.Units.SI;
  SI.Position u[3] "Displacement of the hub centre from its nominal position, global frame";
  SI.Velocity v[3] "Velocity of the hub centre, global frame";
  SI.Angle phi[3] "Rotation of the hub, global components of E0*{tilt1, tilt2, psi} (psi: unbounded spin about the nominal axis, tilts small)";
  SI.AngularVelocity w[3] "Angular velocity of the hub, global frame (first order in the tilts)";
  flow SI.Force f[3] "Force flowing into the component through the hub, global frame";
  flow SI.Torque t[3] "Torque (about the hub centre) flowing into the component through the hub, global frame";
  annotation (Documentation(info = "<html>
<p>Connector of the gear library. A wheel (<a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a>) owns the
potentials of its hub; massless elements (meshes, shafts, supports, sources, carrier) read them and
return forces through the flows (Modelica sign convention: a flow is positive into the component,
so the force the element exerts <i>on the wheel</i> is <code>-f</code>).</p>
<p>Rotation description (singularity-free scheme, see <a href=\"modelica://WearCosim.Gears\">Gears</a>):
every hub has a nominal frame E0 = [e1, e2, e3] (e3 = nominal axis). The rotation is
R = E0&middot;R<sub>x</sub>(tilt1)&middot;R<sub>y</sub>(tilt2)&middot;R<sub>z</sub>(&psi;)&middot;E0<sup>T</sup>; <code>phi</code> carries
E0&middot;{tilt1, tilt2, &psi;}. &psi; is the large accumulated rotation (an unbounded angle, never
wrapped); the tilts are small increments held by bearings. The only singular configuration of
this parametrisation is a tilt of 90&deg;, which a wheel in bearings cannot reach.</p>
<p>Velocities are potentials as well (the mesh damping and the friction need the velocities of
the contact points and the exporter does not differentiate connector variables); they are set by
the body that owns the hub together with the positions.</p>
</html>"));
end Hub;
