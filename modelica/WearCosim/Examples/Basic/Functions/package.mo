within WearCosim.Examples.Basic;
package Functions "Functions used by the reference models"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Small user functions with algorithm sections.</p></html>"));
end Functions;
