within WearCosim.Examples;
package Rotor "Rotor-stator rub examples: two-disk rotor of seed 004, Jeffcott rotor"
  extends WearCosim.Icons.Package;
end Rotor;
