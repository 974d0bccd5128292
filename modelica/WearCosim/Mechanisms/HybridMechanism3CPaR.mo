within WearCosim.Mechanisms;
model HybridMechanism3CPaR "3-CPaR&R1R2 hybrid mechanism (seed 002) with a revolute clearance joint at D3: reduced Lagrange model of chain 3"
  import SI = WearCosim.Units.SI;
  extends WearCosim.Mechanisms.BaseHybridMechanism3CPaRClearance;
  extends WearCosim.Interfaces.WearSurface(final R_journal = data.R_journal, c = 0.25e-3, final L = data.L);
  parameter Boolean lubricated = false "true: lubricated D3 joint (Flores hybrid); false: dry, a run-time switch of the FMU" annotation (Evaluate = false);
  parameter SI.Length e0 = 0.05*c "Width of the lubricated-to-dry transition band";
  output SI.Force Fx "Joint force on the journal (chain 3), x";
  output SI.Force Fy "Joint force on the journal (chain 3), y";
  output SI.Force Fjoint "Magnitude of the joint force at D3";
  replaceable model NormalForce = WearCosim.Joints.ContactLaws.Flores constrainedby WearCosim.Joints.ContactLaws.PartialNormalForce
    "Normal force law of the joint's dry contact (default: Flores)" annotation (choicesAllMatching = true);
  WearCosim.Joints.RevoluteClearance joint(redeclare final model NormalForce = NormalForce, final nSectors = nSectors, final R_journal = R_journal, final c = c, final L = L,
    final E_bearing = data.E_bearing, final nu_bearing = data.nu_bearing, final E_journal = data.E_journal,
    final nu_journal = data.nu_journal, final cr = data.cr, final mu_d = data.mu_d, final v0 = data.v0, final v1 = data.v1,
    final lubricated = lubricated, final mu_oil = data.mu_oil, final epsMax = data.epsMax, final e0 = e0,
    final wedgeScale = data.wedgeScale,
    wearDepth = wearDepth, rB = rD3, vB = vD3, phiB = 0, wB = 0, rJ = rJournal, vJ = vJournal, wJ = qd[1])
    "Clearance joint D3: journal on C3D3, bearing (worn) in the platform";
equation
  // loads of the joint on the bodies of the mechanism
  FJournal = joint.F;
  tauJournal = joint.tauJ;
  Fx = joint.F[1];
  Fy = joint.F[2];
  Fjoint = sqrt(Fx^2 + Fy^2);
  // wear interface at the top level
  Fn = joint.Fn;
  Ft = joint.Ft;
  delta = joint.delta;
  theta = joint.theta;
  vSlip = joint.vSlip;
  halfWidth = joint.halfWidth;
  inContact = joint.inContact;
  annotation (Documentation(info = "<html>
<p>The seed's 3-CPaR&amp;R<sub>1</sub>R<sub>2</sub> hybrid mechanism (docs/physics/mechanisms.md) with radial clearance in the revolute D3
between link C3D3 (journal) and the moving platform (bearing, the worn body).</p>
<p>Bodies, free coordinates and equations of motion are those of
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaRClearance\">BaseHybridMechanism3CPaRClearance</a>,
shared with the component <a href=\"modelica://WearCosim.Components.Mechanisms.HybridMechanismBody\">Components.Mechanisms.HybridMechanismBody</a>;
this model binds their joint loads to the <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">RevoluteClearance</a>
<code>joint</code> and the joint's kinematic inputs to the bodies.</p>
<h4>Reduced model and why it is exact under its assumptions</h4>
<p>All five generalised coordinates q<sub>1</sub>..q<sub>5</sub> are prescribed, so the ideal mechanism is
kinematically driven. The platform's x and y are set by chains 1 (axis X) and 2 (axis Y), its z by
chain 3 (axis Z), and chains 1 and 2 alone already constrain all three platform rotations. A
<i>radial</i> clearance in D3 (axis parallel to Z, no axial clearance, no tilt) therefore does not
change the platform's motion (drives assumed stiff): it only frees the in-plane motion of chain 3's
passive joints, i.e. 2 DOF - the journal centre relative to the bearing centre, parametrised here by the
passive angles &alpha;, &beta; of chain 3. Chain 3's axial motion (q<sub>3</sub>) is common to journal and bearing
and, with its joint axes along Z, decoupled from the in-plane motion; gravity (-Z) does no work in the
joint plane. The serial module R<sub>1</sub>R<sub>2</sub> (q<sub>4</sub>, q<sub>5</sub>) hangs from the platform and changes only the
drive forces of the prescribed coordinates, not the D3 joint (outputs q4, q5 for reference).
Lagrange's equations of the whole mechanism with prescribed q and the D3 constraint replaced by the
contact force reduce, for the free coordinates, to those of chain 3 (see
<a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaR\">BaseHybridMechanism3CPaR</a>):</p>
<pre>
  M(q) q'' = J(q)^T F + [tauJ - hM sin(alpha-beta) beta'^2,  hM sin(alpha-beta) alpha'^2]
</pre>
<p>with F, tauJ the force and torque of the <a href=\"modelica://WearCosim.Joints.RevoluteClearance\">clearance joint</a>
on the journal (it belongs to body 3, whose angular velocity is &alpha;').</p>
<h4>Simplifications</h4>
<ul>
<li>Rigid links; the parallelogram's two bars are lumped into one equivalent bar of their total mass
and inertia pivoting at B3 (the offset of the second pivot is neglected).</li>
<li>Link C3D3 is parallel to A3B3 (the parallelogram keeps the coupler's orientation).</li>
<li>Ideal joints everywhere except D3, unless the Coulomb friction of chain 3's passive joints is set (<code>data.tauFricA3</code>, <code>data.tauFricPa</code>, default 0; see <a href=\"modelica://WearCosim.Mechanisms.BaseHybridMechanism3CPaR\">BaseHybridMechanism3CPaR</a>).</li>
<li>Initial state: the ideal configuration and velocity at t = 0 with the journal centred.</li>
</ul>
<p>Parameters: <a href=\"modelica://WearCosim.Mechanisms.HybridMechanismData\">HybridMechanismData</a> (one record).
Contact: bronze bearing, steel journal, R = 10 mm, L = 40 mm, c = 0.25 mm by default.</p>
</html>"));
end HybridMechanism3CPaR;
