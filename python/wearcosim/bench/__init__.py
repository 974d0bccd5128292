"""Benchmarks: speed against peers measured in the same run (``python -m wearcosim.bench``).

* :mod:`.suite` -- simulation speed at equal accuracy, wear-loop overhead, build speed against
  rumoca, sweep scaling (the default ``python -m wearcosim.bench``; ``--quick``: the hybrid
  mechanism only);
* :mod:`.protocol` -- how the suite measures: scoring on the communication grid, the tolerance
  ladder, interleaved CPU-timed repeats, the same for every contender;
* :mod:`.peers_scipy` -- peers: the example models written plainly in NumPy for
  ``scipy.integrate.solve_ivp`` (also the independent reference);
* :mod:`.peers_casadi` -- peer: SUNDIALS CVODES through CasADi on the exporter's own equations;
* :mod:`.scale` -- how building grows with the model's size (N independent oscillators;
  ``--rotors``: the finite-element rotors, 6, 24 and 33 elements);
* :mod:`.systems` -- systems of FMUs: the strongly coupled container against the monolithic
  FMU of the same physics (CPU, right-hand sides, time outside the components), and the
  co-simulation master at a stable step.

Nothing here is imported by the rest of the package.
"""
