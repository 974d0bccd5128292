within WearCosim.Gears;
model GearPair "Spatial gear pair with backlash: two rigid wheels (12 DOF) and their tooth mesh; hubs exposed for shafts, bearings and loads"
  import SI = WearCosim.Units.SI;
  constant Real pi = 3.141592653589793 "pi";
  // ---------------------------------------------------------------- teeth
  parameter SI.Length module = 4e-3 "Module (transverse)";
  parameter Integer zA = 25 "Teeth of wheel a (the larger wheel; the ring if internal)";
  parameter Integer zB = 25 "Teeth of wheel b";
  parameter Boolean internal = false "Internal mesh (a is the ring)";
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Angle beta = 0 "Helix angle";
  parameter SI.Angle gammaCone = 0 "Pitch-cone angle of wheel a (bevel pairs)";
  final parameter SI.Radius rhoA = module*zA/2 "Pitch radius of a";
  final parameter SI.Radius rhoB = module*zB/2 "Pitch radius of b";
  // ---------------------------------------------------------------- wheels (default: steel discs of the pitch radius)
  parameter SI.Length width = 0.02 "Face width";
  parameter SI.Density density = 7800 "Density of the wheels";
  parameter SI.Mass mA = density*pi*rhoA^2*width "Mass of wheel a";
  parameter SI.Mass mB = density*pi*rhoB^2*width "Mass of wheel b";
  parameter SI.Inertia IA = mA*rhoA^2/2 "Polar inertia of wheel a";
  parameter SI.Inertia IB = mB*rhoB^2/2 "Polar inertia of wheel b";
  parameter SI.Inertia IdA = mA*(rhoA^2/4 + width^2/12) "Diametral inertia of wheel a";
  parameter SI.Inertia IdB = mB*(rhoB^2/4 + width^2/12) "Diametral inertia of wheel b";
  // ---------------------------------------------------------------- placement
  parameter SI.Position rA0[3] = {0, 0, 0} "Nominal centre of a";
  parameter Real e1A[3] = {1, 0, 0} "Nominal e1 of a (towards the pitch point for the default rB0)";
  parameter Real e3A[3] = {0, 0, 1} "Axis of a";
  parameter SI.Position rB0[3] = rA0 + (if internal then rhoA - rhoB else rhoA + rhoB)*e1A "Nominal centre of b";
  parameter Real e1B[3] = if internal then e1A else -e1A "Nominal e1 of b";
  parameter Real e3B[3] = e3A "Axis of b";
  // ---------------------------------------------------------------- supports
  parameter Boolean fixedTranslationA = true "Rigid radial/axial bearing of a";
  parameter Boolean fixedTranslationB = true "Rigid radial/axial bearing of b";
  parameter Boolean fixedTiltA = true "No tilt of a";
  parameter Boolean fixedTiltB = true "No tilt of b";
  parameter Boolean fixedRotationA = false "Spin of a held";
  parameter Boolean fixedRotationB = false "Spin of b held";
  parameter SI.AngularVelocity wA0 = 0 "Initial spin rate of a";
  parameter SI.AngularVelocity wB0 = (if internal then 1 else -1)*wA0*zA/zB "Initial spin rate of b (rigid ratio)";
  parameter SI.Angle psiB0 = 0 "Initial spin angle of b (mesh pre-load / backlash position)";
  // ---------------------------------------------------------------- mesh
  parameter SI.Length b = 0 "Backlash";
  parameter SI.Length X = 0 "Manufacturing error amplitude (eq. 15)";
  parameter SI.TranslationalSpringConstant k_m = 1e8 "Mesh stiffness (single-pair stiffness if variableStiffness)";
  parameter Boolean variableStiffness = false "Single/double pair alternation";
  parameter SI.TranslationalSpringConstant k_double = 2*k_m "Double-pair stiffness";
  parameter Real epsAlpha = 1.6 "Contact ratio";
  parameter Real sharpness = 30 "Smoothing of the stiffness alternation";
  parameter Real chi = 0 "Mesh damping proportionality factor (eq. 23)";
  parameter Real mu = 0 "Tooth friction coefficient";
  WearCosim.Gears.Wheel wheelA(m = mA, Ip = IA, Id = IdA, e1 = e1A, e3 = e3A, fixedTranslation = fixedTranslationA,
    fixedTilt = fixedTiltA, fixedRotation = fixedRotationA, w0 = wA0) "Wheel a";
  WearCosim.Gears.Wheel wheelB(m = mB, Ip = IB, Id = IdB, e1 = e1B, e3 = e3B, fixedTranslation = fixedTranslationB,
    fixedTilt = fixedTiltB, fixedRotation = fixedRotationB, w0 = wB0, psi0 = psiB0) "Wheel b";
  WearCosim.Gears.GearMesh mesh(rhoA = rhoA, rhoB = rhoB, zA = zA, internal = internal, alpha = alpha, beta = beta,
    gammaCone = gammaCone, rA0 = rA0, e1A = e1A, e3A = e3A, rB0 = rB0, e1B = e1B, e3B = e3B, b = b, X = X,
    k_m = k_m, variableStiffness = variableStiffness, k_double = k_double, epsAlpha = epsAlpha,
    sharpness = sharpness, chi = chi, IA = IA, IB = IB, mu = mu) "Tooth mesh";
  WearCosim.Gears.Hub hubA "Hub of wheel a (shafts, bearings, loads)";
  WearCosim.Gears.Hub hubB "Hub of wheel b (shafts, bearings, loads)";
equation
  connect(wheelA.hub, mesh.hubA);
  connect(wheelB.hub, mesh.hubB);
  connect(wheelA.hub, hubA);
  connect(wheelB.hub, hubB);
  annotation (Documentation(info = "<html>
<p>The 12-DOF gear pair of the paper: <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a> a (the larger one)
and b, 6 DOF each (3 translations, spin, 2 tilts), and their <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>.
Spur (&beta; = 0), helical (&beta; &ne; 0), bevel (<code>gammaCone</code> &ne; 0, place b with <code>rB0</code>, <code>e3B</code> with both
axes towards the cone apex) and internal (<code>internal = true</code>, a is the ring) meshes.</p>
<p>Connectors: <code>hubA</code>, <code>hubB</code> (<a href=\"modelica://WearCosim.Gears.Hub\">Hub</a>) are the wheels' hubs;
connect shafts (<a href=\"modelica://WearCosim.Gears.TorsionalShaft\">TorsionalShaft</a>), elastic bearings
(<a href=\"modelica://WearCosim.Gears.ElasticSupport\">ElasticSupport</a>, with <code>fixedTranslation = false</code>), torque
sources, a carrier, or further meshes. Rigid supports: <code>fixedTranslation*</code>, <code>fixedTilt*</code> (default: rigid
bearings, as the paper's verification cases 1-2). Default wheels: solid steel discs of the pitch radius and
face width <code>width</code>; override the masses and inertias when they are given.</p>
<p>Wheel b starts at <code>psiB0</code> (e.g. the middle of the backlash: 0); its initial rate is the rigid one.</p>
</html>"));
end GearPair;
