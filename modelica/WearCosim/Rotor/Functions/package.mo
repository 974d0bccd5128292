within WearCosim.Rotor;
package Functions "Finite-element matrices of the rotor (Timoshenko beam, disk, bearing) and their assembly"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Element matrices of a rotating Timoshenko beam with four degrees of freedom per node,
ordered <code>{x, y, alpha, beta}</code> (two lateral displacements, rotation about x, rotation
about y), and their assembly into the global matrices of
<a href=\"modelica://WearCosim.Rotor.FiniteElementRotor\">FiniteElementRotor</a>.
The element matrices are those of ROSS 2.3.0 (<code>ross/shaft_element.py</code>,
<code>disk_element.py</code>, <code>bearing_seal_element.py</code>) for a cylindrical (uniform)
element, restricted to the lateral degrees of freedom (ROSS's indices 0, 1, 3, 4 of its six per
node); they are Nelson's (1980) finite rotating shaft element with the shear factor
&phi; = 12EI/(G&kappa;AL<sup>2</sup>), &kappa; by Cowper (1966). The sign conventions are ROSS's,
so the global matrices coincide entry by entry with ROSS's lateral sub-matrices.</p>
<p>All functions are evaluated once, when the parameters are computed (they appear only in
parameter bindings).</p>
</html>"));
end Functions;
