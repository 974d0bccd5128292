within WearCosim.Examples.SliderCrank;
model SliderCrankIdeal "Slider-crank benchmark with ideal joints (closed-form kinematics and reaction)"
  extends WearCosim.Mechanisms.SliderCrankIdeal;
  annotation (experiment(StopTime = 0.048, Interval = 1e-5, Tolerance = 1e-9),
    Documentation(info = "<html><p>Ideal twin of the slider-crank: slider acceleration at top dead centre -r&omega;<sup>2</sup>(1 + r/l) = -1.942&middot;10<sup>4</sup> m/s<sup>2</sup>.</p></html>"));
end SliderCrankIdeal;
