within WearCosim;
package Contact "Contact laws of a revolute clearance joint (Flores, Ambrosio, Sommerfeld, Hertz) as small functions"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html>
<p>Leaf functions of the contact model of seed 002 (docs/physics/clearance-joint.md) (seed 002, eq. 1-7). They are
functions, not models, so that (i) they can be tested one by one against closed forms,
(ii) their internal relations (<code>min</code>, <code>max</code>, regime switches) never
create event indicators (relations inside functions do not generate events) - each is
continuous in its arguments, so no event is needed - and (iii) the joint model stays a short
list of equations. Only the contact onset (<code>delta &gt; 0</code>) is an event, in
<a href=\"modelica://WearCosim.Joints.RevoluteClearance\">Joints.RevoluteClearance</a>.</p>
<p>Every power or square root of a quantity that can be negative is guarded
(<code>max(delta, 0)^n</code>, <code>sqrt(max(x, 0))</code>) because both rumoca and the
FMU evaluate all branches of if-expressions.</p>
<p>Sources: P. Flores, J. Ambr&oacute;sio, J.C.P. Claro, H.M. Lankarani, <i>Kinematics and
Dynamics of Multibody Systems with Imperfect Joints</i>, Springer 2008 (Flores contact law,
hybrid lubricated/dry model); P. Flores, J. Ambr&oacute;sio, <i>Revolute joints with clearance
in multibody systems</i>, Computers &amp; Structures 82 (2004) 1359-1369;
P. Flores, J. Ambr&oacute;sio, J.C.P. Claro, H.M. Lankarani, C.S. Koshy, <i>A study on dynamics of
mechanical systems including joints with clearance and lubrication</i>, Mech. Mach. Theory 41
(2006) 247-261; J. Ambr&oacute;sio, <i>Impact of rigid and flexible multibody systems</i>, in
Virtual Nonlinear Multibody Systems, Kluwer 2003 (modified Coulomb friction); O. Pinkus,
B. Sternlicht, <i>Theory of Hydrodynamic Lubrication</i>, 1961 (Sommerfeld long bearing);
K.L. Johnson, <i>Contact Mechanics</i>, 1985 (line contact).</p>
</html>"));
end Contact;
