"""Benchmarks: speed against peers measured in the same run (``python -m wearcosim.bench``).

* :mod:`.suite` -- simulation speed at equal accuracy, wear-loop throughput, build times,
  sweep scaling (the default ``python -m wearcosim.bench``);
* :mod:`.peers_scipy` -- the peers: the example models written plainly in NumPy for
  ``scipy.integrate.solve_ivp``;
* :mod:`.scale` -- how building grows with the model's size (N independent oscillators).

Nothing here is imported by the rest of the package.
"""
