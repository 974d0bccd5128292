within WearCosim.Examples.Rotor;
model Probe
  WearCosim.Rotor.FiniteElementRotor rotor(unbalance = {1e-4, 0});
equation
  rotor.Fext = {0, 0};
end Probe;
