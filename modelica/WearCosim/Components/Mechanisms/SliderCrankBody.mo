within WearCosim.Components.Mechanisms;
model SliderCrankBody "Slider-crank benchmark without its rod/slider clearance joint: joint force and torques in, joint kinematics out"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseSliderCrankClearance;
  // ---------------------------------------------------------------- loads of the joint (inputs: outputs of the joint)
  input SI.Force F[2] "Joint force on the journal (connecting rod, rod end C), global frame; the slider receives -F";
  input SI.Torque tauJ "Joint torque on the journal body (connecting rod) about the journal centre";
  input SI.Torque tauB "Joint torque on the bearing body (slider) about the bearing centre (taken by the guide: not used)";
  // ---------------------------------------------------------------- kinematics of the joint (outputs: inputs of the joint)
  output SI.Position rB[2] "Bearing centre (slider), global frame";
  output SI.Velocity vB[2] "Velocity of the bearing centre (slider)";
  output SI.Angle phiB "Rotation angle of the bearing body (the slider does not rotate: 0)";
  output SI.AngularVelocity wB "Angular velocity of the bearing body (0)";
  output SI.Position rJ[2] "Journal centre (rod end C), global frame";
  output SI.Velocity vJ[2] "Velocity of the journal centre";
  output SI.AngularVelocity wJ "Angular velocity of the journal body (connecting rod)";
equation
  FJournal = F;
  tauJournal = tauJ;
  rB = {x3, 0};
  vB = {v3, 0};
  phiB = 0;
  wB = 0;
  rJ = rJournal;
  vJ = vJournal;
  wJ = w2;
  annotation (Documentation(info = "<html>
<p>The bodies of the slider-crank benchmark (crank at constant speed, connecting rod, slider on a frictionless
guide; docs/physics/mechanisms.md) without the revolute clearance joint between connecting rod (journal) and slider (bearing), as a
component with causal ports: the joint's force and torques in, the kinematics of journal and bearing out. Connected
to <a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceDry\">Components.Joints.RevoluteClearanceDry</a>
or <a href=\"modelica://WearCosim.Components.Joints.RevoluteClearanceLubricated\">RevoluteClearanceLubricated</a>
port to port (same names), it integrates the equations of the monolithic
<a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">Mechanisms.SliderCrankClearance</a>: both extend
<a href=\"modelica://WearCosim.Mechanisms.BaseSliderCrankClearance\">BaseSliderCrankClearance</a> (equations,
initial state with the journal centred, parameters and their provenance).</p>
<h4>Ports</h4>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>name</th><th>causality</th><th>unit</th><th>meaning</th></tr>
<tr><td>F[2]</td><td>input</td><td>N</td><td>joint force on the journal (connecting rod at C), global frame; the slider receives -F</td></tr>
<tr><td>tauJ</td><td>input</td><td>N.m</td><td>joint torque on the connecting rod about the journal centre</td></tr>
<tr><td>tauB</td><td>input</td><td>N.m</td><td>joint torque on the slider (taken by the guide, not used; kept so that every joint output has a partner)</td></tr>
<tr><td>rB[2]</td><td>output</td><td>m</td><td>bearing centre (x<sub>3</sub>, 0)</td></tr>
<tr><td>vB[2]</td><td>output</td><td>m/s</td><td>bearing velocity (v<sub>3</sub>, 0)</td></tr>
<tr><td>phiB</td><td>output</td><td>rad</td><td>bearing rotation (0: the slider translates)</td></tr>
<tr><td>wB</td><td>output</td><td>rad/s</td><td>bearing angular velocity (0)</td></tr>
<tr><td>rJ[2]</td><td>output</td><td>m</td><td>journal centre C = B + l(cos&phi;<sub>2</sub>, sin&phi;<sub>2</sub>)</td></tr>
<tr><td>vJ[2]</td><td>output</td><td>m/s</td><td>journal velocity</td></tr>
<tr><td>wJ</td><td>output</td><td>rad/s</td><td>angular velocity of the connecting rod &omega;<sub>2</sub></td></tr>
<tr><td>ex, ey</td><td>output</td><td>m</td><td>journal centre relative to the bearing centre (orbit)</td></tr>
<tr><td>aSlider</td><td>output</td><td>m/s2</td><td>slider acceleration -F<sub>x</sub>/m<sub>3</sub> (depends on the input F: a monitoring output, not a port to feed back)</td></tr>
</table>
<h4>Parameters</h4>
<p>r = 0.05 m, l = 0.12 m (crank, connecting rod), m1, m2, m3 = 0.30, 0.21, 0.14 kg, J1, J2, J3 = 1e-5, 2.5e-4,
1e-4 kg.m2 (m1, J1, J3 do not enter), omega = 5000 rpm, phi0 = 0 (crank angle at t = 0), g = 9.81 m/s2. The joint's
parameters (clearance, radii, materials, friction, oil) belong to the joint component.</p>
<h4>Causality</h4>
<p>No direct feedthrough from the inputs to the kinematic outputs: rB, vB, phiB, wB, rJ, vJ, wJ, ex, ey are functions
of the states (&phi;<sub>2</sub>, &omega;<sub>2</sub>, x<sub>3</sub>, v<sub>3</sub>), the parameters and time; the joint loads enter
only the derivatives. A system body + joint (force element with feedthrough) therefore has no algebraic loop.</p>
</html>"));
end SliderCrankBody;
