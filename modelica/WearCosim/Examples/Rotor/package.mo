within WearCosim.Examples;
package Rotor "Rotor-stator rub examples: two-disk rotor of seed 004, Jeffcott rotor"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p><a href=\"modelica://WearCosim.Examples.Rotor.TwoDiskRub\">TwoDiskRub</a>: the seed's single-span two-disk
flexible rotor (our parameter set), partial rub of disk 1 on a misaligned stator (used by
<code>cosim/rotor_stator_wear.toml</code> and the sensitivity study).
<a href=\"modelica://WearCosim.Examples.Rotor.Jeffcott\">Jeffcott</a>: single-disk rotor in synchronous full
annular rub. Both expose the wear interface (<code>wearDepth[36]</code>) at the top level.</p>
</html>"));
end Rotor;
