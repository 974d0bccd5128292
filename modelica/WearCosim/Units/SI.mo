within WearCosim.Units;
package SI "SI unit types"
  extends WearCosim.Icons.Package;
  type Time = Real(final quantity = "Time", final unit = "s") "Time";
  type Length = Real(final quantity = "Length", final unit = "m") "Length";
  type Position = Length "Position";
  type Distance = Length(min = 0) "Distance (non-negative length)";
  type Radius = Length(min = 0) "Radius";
  type Velocity = Real(final quantity = "Velocity", final unit = "m/s") "Velocity";
  type Acceleration = Real(final quantity = "Acceleration", final unit = "m/s2") "Acceleration";
  type Angle = Real(final quantity = "Angle", final unit = "rad") "Angle";
  type AngularVelocity = Real(final quantity = "AngularVelocity", final unit = "rad/s") "Angular velocity";
  type AngularAcceleration = Real(final quantity = "AngularAcceleration", final unit = "rad/s2") "Angular acceleration";
  type Mass = Real(final quantity = "Mass", final unit = "kg", min = 0) "Mass";
  type Inertia = Real(final quantity = "MomentOfInertia", final unit = "kg.m2", min = 0) "Moment of inertia";
  type Force = Real(final quantity = "Force", final unit = "N") "Force";
  type Torque = Real(final quantity = "Torque", final unit = "N.m") "Torque";
  type Pressure = Real(final quantity = "Pressure", final unit = "Pa") "Pressure";
  type ModulusOfElasticity = Pressure "Young's modulus";
  type Hardness = Pressure(min = 0) "Hardness (as a pressure)";
  type DynamicViscosity = Real(final quantity = "DynamicViscosity", final unit = "Pa.s", min = 0) "Dynamic viscosity";
  type TranslationalSpringConstant = Real(final quantity = "TranslationalSpringConstant", final unit = "N/m") "Translational stiffness";
  type TranslationalDampingConstant = Real(final quantity = "TranslationalDampingConstant", final unit = "N.s/m") "Translational damping";
  type RotationalSpringConstant = Real(final quantity = "RotationalSpringConstant", final unit = "N.m/rad") "Rotational stiffness";
  type RotationalDampingConstant = Real(final quantity = "RotationalDampingConstant", final unit = "N.m.s/rad") "Rotational damping";
  type Frequency = Real(final quantity = "Frequency", final unit = "Hz") "Frequency";
  type Density = Real(final quantity = "Density", final unit = "kg/m3", min = 0) "Density";
  type Area = Real(final quantity = "Area", final unit = "m2") "Area";
  type Volume = Real(final quantity = "Volume", final unit = "m3") "Volume";
  type Energy = Real(final quantity = "Energy", final unit = "J") "Energy";
  type Power = Real(final quantity = "Power", final unit = "W") "Power";
  type PoissonNumber = Real(final quantity = "PoissonNumber", final unit = "1", min = 0, max = 0.5) "Poisson's ratio";
  type DimensionlessRatio = Real(final quantity = "DimensionlessRatio", final unit = "1") "Dimensionless ratio";
  type HertzStiffness = Real(final quantity = "HertzStiffness", final unit = "") "Generalised Hertz stiffness K in F = K*delta^1.5";
  annotation (Documentation(info = "<html><p>SI types used throughout WearCosim.
<code>HertzStiffness</code> is the non-SI-derived stiffness of the Hertz/Flores law
F = K&delta;<sup>n</sup> with n = 1.5 (unit N/m<sup>1.5</sup>).</p></html>"));
end SI;
