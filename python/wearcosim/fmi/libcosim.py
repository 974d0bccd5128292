"""Second, independent FMU importer: libcosim (Open Simulation Platform) through the PyPI
``libcosimpy`` wheel.  libcosim loads FMUs with Modelon's FMI Library (the loader PyFMI and
OMSimulator use), so an FMU that runs here and in FMPy is not tied to one importer."""
from __future__ import annotations

from pathlib import Path


def available() -> bool:
    try:
        import libcosimpy  # noqa: F401
        return True
    except ImportError:
        return False


def run(fmu, stop_time: float, step: float, outputs=(), real_values=None):
    """Load ``fmu`` as the only slave, set start values, step to ``stop_time`` on a
    fixed grid; return (time points, {name: values}) of the requested Real variables."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave
    nanos = int(round(step * 1e9))
    ex = CosimExecution.from_step_size(step_size=nanos)
    slave = CosimLocalSlave(fmu_path=str(Path(fmu).resolve()), instance_name="m")
    idx = ex.add_local_slave(local_slave=slave)
    variables = {v.name.decode(): v.reference for v in ex.slave_variables(slave_index=idx)}
    for name, val in (real_values or {}).items():
        ex.real_initial_value(slave_index=idx, variable_reference=variables[name], value=float(val))
    obs = CosimObserver.create_last_value()
    ex.add_observer(observer=obs)
    refs = [variables[n] for n in outputs]
    times, values = [], {n: [] for n in outputs}
    n_steps = int(round(stop_time / step))
    for k in range(n_steps):
        if not ex.step(step_count=1):
            raise RuntimeError(f"libcosim step {k} failed")
        times.append((k + 1) * step)
        if refs:
            vals = obs.last_real_values(slave_index=idx, variable_references=refs)
            for n, v in zip(outputs, vals):
                values[n].append(v)
    return times, values
