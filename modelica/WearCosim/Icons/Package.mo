within WearCosim.Icons;
partial package Package "Icon for packages"
  annotation (Documentation(info = "<html><p>Icon for a package.</p></html>"));
end Package;
