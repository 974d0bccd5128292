within WearCosim.Rotor.Functions;
function assembleShaft "Global mass, stiffness or gyroscopic matrix of the shaft (elements in series, 4 DOF per node)"
  import SI = WearCosim.Units.SI;
  input Integer kind "1: mass, 2: stiffness, 3: gyroscopic (per unit spin speed)";
  input SI.Length Le[:] "Element lengths";
  input SI.Length dOut[size(Le, 1)] "Outer diameters of the elements";
  input SI.Length dIn[size(Le, 1)] "Inner diameters of the elements";
  input SI.Density rho "Density";
  input SI.ModulusOfElasticity E "Young's modulus";
  input SI.ModulusOfElasticity G "Shear modulus";
  input Boolean shearEffects = true "Timoshenko (true) or Euler-Bernoulli (false) elements";
  input Boolean rotaryInertia = true "Rotary inertia of the cross sections in the mass matrix";
  output Real A[4*(size(Le, 1) + 1), 4*(size(Le, 1) + 1)] "Global matrix, DOF 4*(i-1)+{1,2,3,4} = {x, y, alpha, beta} of node i";
protected
  Integer nE = size(Le, 1) "Number of elements";
  Real phi "Shear factor of the current element";
  Real Ae[8, 8] "Matrix of the current element";
algorithm
  A := zeros(4*(nE + 1), 4*(nE + 1));
  for e in 1:nE loop
    phi := shearFactor(Le[e], dOut[e], dIn[e], E, G, shearEffects);
    if kind == 1 then
      Ae := beamMass(Le[e], dOut[e], dIn[e], rho, phi, rotaryInertia);
    elseif kind == 2 then
      Ae := beamStiffness(Le[e], dOut[e], dIn[e], E, phi);
    else
      Ae := beamGyroscopic(Le[e], dOut[e], dIn[e], rho, phi);
    end if;
    for i in 1:8 loop
      for j in 1:8 loop
        A[4*(e - 1) + i, 4*(e - 1) + j] := A[4*(e - 1) + i, 4*(e - 1) + j] + Ae[i, j];
      end for;
    end for;
  end for;
  annotation (Documentation(info = "<html>
<p>Element e joins nodes e and e+1; its 8 degrees of freedom are the global ones
4(e-1)+1 .. 4(e-1)+8, so the assembly is a sum of overlapping 8x8 blocks on the diagonal.
<code>kind</code> is structural (a literal at every call), so the branches fold at build time.</p>
</html>"));
end assembleShaft;
