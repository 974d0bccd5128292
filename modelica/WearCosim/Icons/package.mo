within WearCosim;
package Icons "Icon classes (no equations)"
  extends Icons.Package;
  annotation (Documentation(info = "<html><p>Base classes that only carry icons.</p></html>"));
end Icons;
