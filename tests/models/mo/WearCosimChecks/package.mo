within ;
package WearCosimChecks "Wrappers for rumoca cross-checks of the WearCosim library (not exported)"
  // rumoca.simulate takes no inputs: every wrapper binds the top-level input wearDepth to a
  // constant profile.  Load with rumoca.Session(roots=[<repo>/modelica]) so that WearCosim
  // resolves as a second package (MODELICAPATH=<repo>/modelica works as well).
  constant Real pi = 3.141592653589793 "pi";


  function hybridRadial "Radial force on the journal along n from the Flores hybrid model (film + dry)"
    input Real e "Eccentricity [m]";
    input Real c "Clearance [m]";
    input Real e0 "Band width [m]";
    input Real K "Stiffness [N/m1.5]";
    input Real eDot "Radial velocity [m/s]";
    input Real vImp "Impact velocity [m/s]";
    output Real f "Force along n [N]";
  protected
    Real w = WearCosim.Contact.hybridWeight(e, c, e0) "Dry weight";
  algorithm
    f := (1 - w)*WearCosim.Contact.sommerfeldRadial(0.4, 0.04, 0.01, c, e, eDot, 0.99) - w*WearCosim.Contact.floresForce(K, 1.5, 0.9, e - c, eDot, vImp);
  end hybridRadial;

  model LawChecks "Contact laws swept over time (t in [0, 1]) for comparison with closed forms"
    import SI = WearCosim.Units.SI;
    parameter SI.Length c = 0.25e-3 "Clearance";
    parameter SI.Length e0 = 0.05*c "Hybrid band";
    parameter SI.HertzStiffness K = 6e10 "Stiffness for the hybrid check";
    parameter SI.Velocity eDot = 0.05 "Radial velocity for the hybrid check";
    parameter SI.Velocity vImp = 0.2 "Impact velocity for the hybrid check";
    parameter SI.Length h[12] = {1e-6*(1 + 0.5*cos(2*pi*(i - 0.5)/12 - 1)) + (if i == 3 then 3e-6 else 0) for i in 1:12} "Test wear profile";
    Real dummy(start = 0, fixed = true) "Dummy state";
    output SI.HertzStiffness K_sc = WearCosim.Contact.floresStiffness(207e9, 0.3, 207e9, 0.3, 0.0105, 0.01) "K of the slider-crank joint";
    output SI.Velocity vt = -0.03 + 0.06*time "Swept slip velocity";
    output SI.Force FtAmb = WearCosim.Contact.ambrosioFriction(0.1, 100, vt, 1e-4, 1e-2) "Ambrosio friction at Fn = 100 N";
    output SI.Length eSweep = c - 2*e0 + 5*e0*time "Swept eccentricity";
    output SI.Force Fhyb = hybridRadial(eSweep, c, e0, K, eDot, vImp) "Hybrid radial force on the journal (film + dry) vs e";
    output SI.Force FhybCm = hybridRadial(c*(1 - 1e-12), c, e0, K, eDot, vImp) "Hybrid force just below e = c";
    output SI.Force FhybCp = hybridRadial(c*(1 + 1e-12), c, e0, K, eDot, vImp) "Hybrid force just above e = c";
    output SI.Force FhybEm = hybridRadial((c + e0)*(1 - 1e-12), c, e0, K, eDot, vImp) "Hybrid force just below e = c + e0";
    output SI.Force FhybEp = hybridRadial((c + e0)*(1 + 1e-12), c, e0, K, eDot, vImp) "Hybrid force just above e = c + e0";
    output SI.Force Fsq = WearCosim.Contact.sommerfeldRadial(0.4, 0.04, 0.01, c, eSweep, eDot, 0.99) "Squeeze force vs e";
    output SI.Force Fdry = WearCosim.Contact.floresForce(K, 1.5, 0.9, eSweep - c, eDot, vImp) "Flores force vs e";
    output SI.Angle thetaSweep = -3*pi + 6*pi*time "Swept angle";
    output SI.Length hInt = WearCosim.Contact.wearProfile(h, thetaSweep) "Interpolated profile";
    output SI.Length hInt2pi = WearCosim.Contact.wearProfile(h, thetaSweep + 2*pi) "Interpolated profile, shifted by 2 pi";
    output SI.Length hOne = WearCosim.Contact.wearProfile({2e-6}, thetaSweep) "Single-sector profile";
    output SI.Length bHertz = WearCosim.Contact.hertzHalfWidth(1000, 0.0105, 0.01, 207e9, 0.3, 207e9, 0.3, 0.04) "Hertz half-width at 1 kN";
  equation
    der(dummy) = 0;
  end LawChecks;

  model SommerfeldSpin "Lubricated joint: journal held at constant eps (line of centres at psi), spinning at w, whirling at wWhirl"
    import SI = WearCosim.Units.SI;
    parameter Real eps = 0.6 "Eccentricity ratio";
    parameter SI.Angle psi = 0.7 "Direction of the line of centres at t = 0";
    parameter SI.AngularVelocity w = 100 "Journal spin";
    parameter SI.AngularVelocity wWhirl = 0 "Whirl rate of the line of centres";
    parameter SI.Length c = 0.2e-3 "Clearance";
    Real dummy(start = 0, fixed = true) "Dummy state";
    WearCosim.Joints.RevoluteClearance joint(c = c, R_journal = 0.01, L = 0.04, nSectors = 12, lubricated = true, mu_oil = 0.4,
      wearDepth = zeros(12), rB = {0, 0}, vB = {0, 0}, phiB = 0, wB = 0,
      rJ = eps*c*{cos(psi + wWhirl*time), sin(psi + wWhirl*time)}, vJ = eps*c*wWhirl*{-sin(psi + wWhirl*time), cos(psi + wWhirl*time)}, wJ = w) "Joint under test";
    output SI.Force Fr = joint.F*joint.nG "Radial component of the force on the journal";
    output SI.Force Ftg = joint.F*joint.tG "Tangential component of the force on the journal";
    output SI.Force W = 12*pi*0.4*w*0.01^3*0.04*eps/(c^2*(2 + eps^2)*sqrt(1 - eps^2)) "Closed-form Sommerfeld load at wWhirl = 0";
  equation
    der(dummy) = 0;
  end SommerfeldSpin;

  model SommerfeldHalfWhirl "Half-frequency whirl: the wedge force vanishes"
    extends SommerfeldSpin(wWhirl = w/2);
  end SommerfeldHalfWhirl;

  model WornStaticContact "Dry joint, journal pressed statically into a worn bearing: Fn = K(R_b + h) delta^1.5"
    import SI = WearCosim.Units.SI;
    parameter SI.Angle th0 = 2.0 "Contact angle";
    parameter SI.Length d0 = 5e-6 "Imposed penetration";
    parameter SI.Length h[12] = {2e-6*i for i in 1:12} "Wear profile";
    Real dummy(start = 0, fixed = true) "Dummy state";
    final parameter SI.Length hTh = WearCosim.Contact.wearProfile(h, th0) "Wear depth at th0";
    WearCosim.Joints.RevoluteClearance joint(c = 0.5e-3, R_journal = 0.01, L = 0.04, nSectors = 12,
      wearDepth = h, rB = {0.1, 0.2}, vB = {0, 0}, phiB = 0, wB = 0,
      rJ = {0.1, 0.2} + (0.5e-3 + hTh + d0)*{cos(th0), sin(th0)}, vJ = {0, 0}, wJ = 0) "Joint under test";
    output SI.Force FnRef = WearCosim.Contact.floresStiffness(207e9, 0.3, 207e9, 0.3, 0.0105 + hTh, 0.01)*d0^1.5 "Expected static force";
  equation
    der(dummy) = 0;
  end WornStaticContact;

  model SliderCrankIdeal "Ideal slider-crank"
    extends WearCosim.Examples.SliderCrank.SliderCrankIdeal;
  end SliderCrankIdeal;

  model SliderCrankC050 "Dry slider-crank, c = 0.5 mm"
    extends WearCosim.Examples.SliderCrank.SliderCrankDry(wearDepth = zeros(nSectors), c = 0.5e-3);
  end SliderCrankC050;

  model SliderCrankC010 "Dry slider-crank, c = 0.1 mm"
    extends WearCosim.Examples.SliderCrank.SliderCrankDry(wearDepth = zeros(nSectors), c = 0.1e-3);
  end SliderCrankC010;

  model SliderCrankC002 "Dry slider-crank, c = 0.02 mm"
    extends WearCosim.Examples.SliderCrank.SliderCrankDry(wearDepth = zeros(nSectors), c = 0.02e-3);
  end SliderCrankC002;

  model HybridNearZero "Hybrid mechanism, dry D3 with a near-zero clearance (1 um), w = 8 pi"
    extends WearCosim.Examples.HybridMechanism.DrySpeed8pi(wearDepth = zeros(nSectors), c = 1e-6);
  end HybridNearZero;

  model HybridIdeal8pi "Ideal twin, w = 8 pi"
    extends WearCosim.Examples.HybridMechanism.Ideal8pi;
  end HybridIdeal8pi;

  model HybridNearZeroGravity "As HybridNearZero, chain plane vertical (gravity in the joint plane)"
    extends WearCosim.Examples.HybridMechanism.DrySpeed8pi(wearDepth = zeros(nSectors), c = 1e-6, data(gPlane = 9.81));
  end HybridNearZeroGravity;

  model HybridIdeal8piGravity "Ideal twin with gravity in the joint plane"
    extends WearCosim.Examples.HybridMechanism.Ideal8pi(data(gPlane = 9.81));
  end HybridIdeal8piGravity;

  model HybridNearZeroFriction "As HybridNearZero, Coulomb friction in chain 3's passive joints"
    extends WearCosim.Examples.HybridMechanism.DrySpeed8pi(wearDepth = zeros(nSectors), c = 1e-6, data(tauFricA3 = 0.1, tauFricPa = 0.1));
  end HybridNearZeroFriction;

  model HybridIdeal8piFriction "Ideal twin with Coulomb friction in chain 3's passive joints"
    extends WearCosim.Examples.HybridMechanism.Ideal8pi(data(tauFricA3 = 0.1, tauFricPa = 0.1));
  end HybridIdeal8piFriction;

  model SliderCrankDry "Example SliderCrank.Dry with an unworn bearing"
    extends WearCosim.Examples.SliderCrank.SliderCrankDry(wearDepth = zeros(nSectors));
  end SliderCrankDry;

  model SliderCrankLubricated "Example SliderCrank.Lubricated with an unworn bearing"
    extends WearCosim.Examples.SliderCrank.SliderCrankLubricated(wearDepth = zeros(nSectors));
  end SliderCrankLubricated;

  model HybridDrySpeed4pi "Example HybridMechanism.DrySpeed4pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DrySpeed4pi(wearDepth = zeros(nSectors));
  end HybridDrySpeed4pi;

  model HybridDrySpeed8pi "Example HybridMechanism.DrySpeed8pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DrySpeed8pi(wearDepth = zeros(nSectors));
  end HybridDrySpeed8pi;

  model HybridDrySpeed16pi "Example HybridMechanism.DrySpeed16pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DrySpeed16pi(wearDepth = zeros(nSectors));
  end HybridDrySpeed16pi;

  model HybridDrySpeed32pi "Example HybridMechanism.DrySpeed32pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DrySpeed32pi(wearDepth = zeros(nSectors));
  end HybridDrySpeed32pi;

  model HybridDryClearance015 "Example HybridMechanism.DryClearance015 with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DryClearance015(wearDepth = zeros(nSectors));
  end HybridDryClearance015;

  model HybridDryClearance025 "Example HybridMechanism.DryClearance025 with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DryClearance025(wearDepth = zeros(nSectors));
  end HybridDryClearance025;

  model HybridDryClearance035 "Example HybridMechanism.DryClearance035 with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DryClearance035(wearDepth = zeros(nSectors));
  end HybridDryClearance035;

  model HybridDryClearance045 "Example HybridMechanism.DryClearance045 with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.DryClearance045(wearDepth = zeros(nSectors));
  end HybridDryClearance045;

  model HybridDry7pi "Example HybridMechanism.Dry7pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.Dry7pi(wearDepth = zeros(nSectors));
  end HybridDry7pi;

  model HybridLubricated7pi "Example HybridMechanism.Lubricated7pi with an unworn bearing"
    extends WearCosim.Examples.HybridMechanism.Lubricated7pi(wearDepth = zeros(nSectors));
  end HybridLubricated7pi;

  model HybridDry7piWorn "Example HybridMechanism.Dry7pi with a worn bearing (non-uniform profile)"
    extends WearCosim.Examples.HybridMechanism.Dry7pi(wearDepth = {20e-6*exp(-((i - 10)/3)^2) for i in 1:nSectors});
  end HybridDry7piWorn;

  model RotorTwoDiskRub "Example Rotor.TwoDiskRub with an unworn stator"
    extends WearCosim.Examples.Rotor.TwoDiskRub(wearDepth = zeros(nSectors));
  end RotorTwoDiskRub;
end WearCosimChecks;
