within WearCosimMSL;
package Examples "MSL drive trains around WearCosim gear pairs, rotors and the clearance joint (need the MSL 4.0.0 on the library path)"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Runnable examples with <code>experiment</code> annotations, built by
<code>wearcosim build --library &lt;MSL folder&gt; WearCosimMSL.Examples.&lt;name&gt;</code>. Each is checked against an
independent SciPy model written from the physics and against a closed form (tests/library/test_interop_msl.py).</p>
</html>"));
end Examples;
