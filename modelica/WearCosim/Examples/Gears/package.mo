within WearCosim.Examples;
package Gears "Gear-pair examples: Cardona's test, bevel-planetary kinematics, Kubo's dynamic factor"
  extends WearCosim.Icons.Package;
end Gears;
