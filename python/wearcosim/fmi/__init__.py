"""FMU runners (FMPy default, libcosim and PyFMI optional) and FMU checks."""
