within WearCosim;
package Rotor "Finite-element rotors with rotor-stator rub"
  extends WearCosim.Icons.Package;
end Rotor;
