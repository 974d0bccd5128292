"""wearcosim: Modelica/FMI co-simulation components for predicting wear in machines with
clearances (clearance joints, gear pairs with backlash, rotor-stator rub) and the Python
wear master that drives them."""

__version__ = "0.1.0"

from .api import Results, Scenario, build, load_results, run, study  # noqa: E402

__all__ = ["Results", "Scenario", "build", "load_results", "run", "study", "__version__"]
