model RossRubbingRotor "The rotor of ROSS 2.3.0's rubbing test (ross/tests/test_rubbing.py): 33 Timoshenko elements of a 19 mm steel shaft, 2 disks, 2 anisotropic bearings; disk 1 rubs on a rigid stator"
  // Node positions along the shaft [mm] as in the ROSS test: 0 25 64 104 124 143 175 207 239 271 303 335 345 355 380 408
  // 436 466 496 526 556 586 614 647 657 667 702 737 772 807 842 862 881 914. ROSS numbers nodes from 0, Modelica from 1.
  extends WearCosim.Rotor.RotorStatorRub(R_journal = 0.075, c = 0.2e-3, L = 0.02, nSectors = 36, k_c = 2e7, c_c = 200, mu = 0.1,
    rotor(nElements = 33,
      Le = {0.025, 0.039, 0.040, 0.020, 0.019, 0.032, 0.032, 0.032, 0.032, 0.032, 0.032, 0.010, 0.010, 0.025, 0.028, 0.028,
            0.030, 0.030, 0.030, 0.030, 0.030, 0.028, 0.033, 0.010, 0.010, 0.035, 0.035, 0.035, 0.035, 0.035, 0.020, 0.019, 0.033},
      dOut = fill(0.019, 33), dIn = zeros(33), rho = 7850, E = 2.17e11, G = 2.17e11/(2*(1 + 0.2992610837438423)),
      nDisks = 2, diskNode = {13, 25}, mDisk = fill(2.6375, 2), IpDisk = fill(0.0075132484375, 2), IdDisk = fill(0.003844540885417, 2),
      unbalance = {5e-4, 0}, unbalancePhase = {-1.5707963267948966, 0},
      nBearings = 2, bearingNode = {5, 32}, kxx = {4.40e5, 9.50e5}, kyy = {4.6114e5, 1.09e8}, cxx = {27.4, 50.4}, cyy = {2.505, 100.4553},
      alphaR = 8.0501, betaR = 1.0e-5, Omega0 = 125.66, forceNode = 13));
end RossRubbingRotor;
