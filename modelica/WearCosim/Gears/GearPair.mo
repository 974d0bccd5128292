within WearCosim.Gears;
model GearPair "Spatial gear pair with backlash: two rigid wheels (12 DOF) and their tooth mesh; hubs exposed for shafts, bearings and loads"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Gears.BaseWheelPair;
  // ---------------------------------------------------------------- teeth
  parameter SI.Angle alpha = 20*pi/180 "Pressure angle";
  parameter SI.Angle beta = 0 "Helix angle";
  parameter SI.Angle gammaCone = 0 "Pitch-cone angle of wheel a (bevel pairs)";
  // ---------------------------------------------------------------- placement
  parameter SI.Position rA0[3] = {0, 0, 0} "Nominal centre of a";
  parameter SI.Position rB0[3] = rA0 + (if internal then rhoA - rhoB else rhoA + rhoB)*e1A "Nominal centre of b";
  // ---------------------------------------------------------------- mesh
  parameter SI.Length b = 0 "Backlash";
  parameter SI.Length X = 0 "Manufacturing error amplitude (eq. 15)";
  parameter SI.TranslationalSpringConstant k_m = 1e8 "Mesh stiffness (single-pair stiffness if variableStiffness)";
  parameter Boolean variableStiffness = false "Single/double pair alternation; a run-time switch of the FMU" annotation (Evaluate = false);
  replaceable model Stiffness = WearCosim.Gears.StiffnessLaws.SmoothedRectangle constrainedby WearCosim.Gears.StiffnessLaws.PartialStiffness
    "Periodic mesh stiffness law used if variableStiffness (default: smoothed rectangle)" annotation (choicesAllMatching = true);
  parameter SI.TranslationalSpringConstant k_double = 2*k_m "Double-pair stiffness";
  parameter Real epsAlpha = 1.6 "Contact ratio";
  parameter Real sharpness = 30 "Smoothing of the stiffness alternation";
  parameter Real chi = 0 "Mesh damping proportionality factor (eq. 23)";
  parameter Real mu = 0 "Tooth friction coefficient";
  WearCosim.Gears.GearMesh mesh(redeclare final model Stiffness = Stiffness, rhoA = rhoA, rhoB = rhoB, zA = zA, internal = internal, alpha = alpha, beta = beta,
    gammaCone = gammaCone, rA0 = rA0, e1A = e1A, e3A = e3A, rB0 = rB0, e1B = e1B, e3B = e3B, b = b, X = X,
    k_m = k_m, variableStiffness = variableStiffness, k_double = k_double, epsAlpha = epsAlpha,
    sharpness = sharpness, chi = chi, IA = IA, IB = IB, mu = mu) "Tooth mesh";
  WearCosim.Gears.WheelHub hubA "Hub of wheel a (shafts, bearings, loads)";
  WearCosim.Gears.WheelHub hubB "Hub of wheel b (shafts, bearings, loads)";
equation
  connect(wheelA.hub, mesh.hubA);
  connect(wheelB.hub, mesh.hubB);
  connect(wheelA.hub, hubA);
  connect(wheelB.hub, hubB);
  annotation (Documentation(info = "<html>
<p>The 12-DOF gear pair of the paper: <a href=\"modelica://WearCosim.Gears.Wheel\">Wheel</a> a (the larger one)
and b, 6 DOF each (3 translations, spin, 2 tilts; parameters and wheels in
<a href=\"modelica://WearCosim.Gears.BaseWheelPair\">BaseWheelPair</a>), and their <a href=\"modelica://WearCosim.Gears.GearMesh\">GearMesh</a>.
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
