model TwoDiskRub24 "The two-disk rub rotor of WearCosim.Examples.Rotor.TwoDiskRub with every shaft element split in four (24 elements, 25 nodes, 200 + 5 states)"
  extends WearCosim.Examples.Rotor.TwoDiskRub(rotor(nElements = 24, Le = fill(0.025, 24), dOut = fill(0.02, 24), dIn = zeros(24),
    diskNode = {9, 17}, bearingNode = {1, 25}, forceNode = 9));
end TwoDiskRub24;
