"""wearcosim: Modelica/FMI co-simulation components for predicting wear in machines with
clearances (clearance joints, gear pairs with backlash, rotor-stator rub) and the Python
wear master that drives them."""

__version__ = "0.1.0"
