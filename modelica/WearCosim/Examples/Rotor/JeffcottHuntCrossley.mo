within WearCosim.Examples.Rotor;
model JeffcottHuntCrossley "Jeffcott rotor in full annular rub with the Hunt-Crossley rub law (redeclared)"
  extends WearCosim.Examples.Rotor.Jeffcott(redeclare model NormalForce = WearCosim.Rotor.RubLaws.HuntCrossley);
  annotation (experiment(StopTime = 1, Interval = 2e-4, Tolerance = 1e-8),
    Documentation(info = "<html><p>As <a href=\"modelica://WearCosim.Examples.Rotor.Jeffcott\">Jeffcott</a> with the
normal force law of the rub redeclared to <a href=\"modelica://WearCosim.Rotor.RubLaws.HuntCrossley\">HuntCrossley</a>
(&alpha; = 0.2 s/m): the contact force is continuous at the onset and its damping grows with the penetration. Expected:
the same full annular rub (the elastic part of the law is the same k<sub>c</sub>&delta;), with a different
contact force during the transient approach to the stator.</p></html>"));
end JeffcottHuntCrossley;
