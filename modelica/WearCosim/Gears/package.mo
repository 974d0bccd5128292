within WearCosim;
package Gears "Spatial gear pairs with backlash (12 DOF per pair) and the transmission parts around them"
  extends WearCosim.Icons.Package;
end Gears;
