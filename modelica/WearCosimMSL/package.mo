within ;
package WearCosimMSL "Adapters between WearCosim and the Modelica Standard Library 4.0.0 (needs both on the library path)"
  extends WearCosim.Icons.Package;
  annotation (
    version = "0.1.0",
    uses(Modelica(version = "4.0.0"), WearCosim(version = "0.1.0")),
    __WearCosim_author = "The WearCosim developers",
    __WearCosim_copyright = "Copyright (c) 2026 The WearCosim developers",
    __WearCosim_license = "BSD-3-Clause",
    Documentation(info = "<html>
<p>Connects the components of <a href=\"modelica://WearCosim\">WearCosim</a> (gear hubs, rotor spin) to the
one-dimensional mechanics of the Modelica Standard Library (MSL) 4.0.0. WearCosim itself does not need the MSL:
its connectors (<a href=\"modelica://WearCosim.Gears.Hub\">Gears.Hub</a>, <a href=\"modelica://WearCosim.Gears.WheelHub\">Gears.WheelHub</a>)
and SI types are its own, so a plain <code>connect</code> between a WearCosim hub and a
<code>Modelica.Mechanics.Rotational.Interfaces.Flange_a</code> is a type error. The adapters here are the
bridge; they are a library of their own (this top-level package, with
<code>uses(Modelica(version=\"4.0.0\"), WearCosim(version=\"0.1.0\"))</code>) so that WearCosim stays
usable, loadable and checkable without the MSL.</p>
<ul>
<li><a href=\"modelica://WearCosimMSL.Rotational\">Rotational</a>: gear hubs and rotor spin to
<code>Modelica.Mechanics.Rotational</code> flanges, in both causalities (the WearCosim body moves the flange,
or an MSL body moves the hub).</li>
<li><a href=\"modelica://WearCosimMSL.Translational\">Translational</a>: the revolute joint with clearance between planar bodies made of
<code>Translational</code> masses and <code>Rotational</code> inertias (MultiBody frames wait for MultiBody to build).</li>
<li><a href=\"modelica://WearCosimMSL.Examples\">Examples</a>: MSL drive trains around WearCosim gear pairs,
rotors and the clearance joint, each checked against an independent SciPy model and a closed form (tests/library/test_interop_msl.py).</li>
</ul>
<p>Sign conventions: both libraries count a flow as positive <i>into</i> the component that owns the connector.
A Rotational flange carries the absolute angle <code>phi</code> and the cut torque <code>tau</code>; a WearCosim hub
carries the displacement, the rotation vector <code>phi</code> = E0&middot;{tilt1, tilt2, &psi;}, the velocities, and the
force and torque vectors <code>f</code>, <code>t</code> in the global frame. Each adapter states its equations.</p>
<p>Build with the MSL on the library path, e.g.
<code>wearcosim build --library /path/to/msl WearCosimMSL.Examples.MotorGearLoad</code> (WearCosim and WearCosimMSL
are bundled with wearcosim; MSL is not).</p>
<p>License: BSD 3-Clause, as WearCosim.</p>
</html>"));
end WearCosimMSL;
