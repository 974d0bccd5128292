"""Second, independent FMU importer: libcosim (Open Simulation Platform) through the PyPI
``libcosimpy`` wheel.  libcosim loads FMUs with Modelon's FMI Library (the loader PyFMI and
OMSimulator use), so an FMU that runs here and in FMPy is not tied to one importer.

:func:`run` steps one FMU; :func:`run_ssp` runs a system (an ``.ssd``, a folder holding a
``SystemStructure.ssd``, or an ``.ssp``) with libcosim's master and returns a
:class:`wearcosim.fmi.results.CosimResult`; :func:`compare` compares two results.

libcosim's master (libcosimpy 0.0.6 installed; its repository's conanfile requires libcosimc
0.11.2; sources read:
``src/cosim/algorithm/fixed_step_algorithm.cpp``, ``src/cosim/slave_simulator.cpp``,
``src/cosim/execution.cpp``, ``src/cosim/fmi/v2/fmu.cpp`` of open-simulation-platform/libcosim)
is the ``fixed_step_algorithm``, a **Jacobi** scheme with outputs exchanged **after** the step:

* ``do_step``: every simulator (in parallel, thread pool) sets the input values cached for it
  (``set_variables``), calls fmi2DoStep(t, h) and right away reads its exposed outputs
  (``get_variables``) into a cache; only when all have finished does
  ``calculate_and_transfer`` copy each cached output to the connected inputs' caches, which
  are set at the next step.  So every component steps with the outputs of the previous
  communication point, held constant (order 0), and an output with direct feedthrough is the
  value computed with the inputs held during the step (it is not re-evaluated with the new
  inputs: a force element's force reaches the masses one step later than in a master that
  propagates it).
* initialisation: the SSD's parameter values are cached like inputs and set before the first
  exchange (in the instantiated state, ``initialize_start_values``, in the latest sources; in
  initialisation mode, by the first iteration, in older ones); fmi2SetupExperiment (no
  tolerance: our FMUs then use their DefaultExperiment tolerance, no stop time) and
  fmi2EnterInitializationMode; N = number
  of simulators iterations of (set cached inputs, get outputs, transfer);
  fmi2ExitInitializationMode, get outputs, transfer.
* time is counted in integer nanoseconds: step ``k`` runs from ``k*h`` to ``(k+1)*h`` ns,
  passed to the FMUs as doubles (round-off differences from ``t0 + k*h`` only).

What its SSP loader takes (``src/cosim/ssp/ssp_parser.cpp``, ``ssp_loader.cpp``; the same in
every release to 0.11 and on the main branch of 2025-08-27): the SSD's literal ``ssd:``,
``ssc:``, ``ssv:`` prefixes; per component its ``ssd:Connectors`` (a type element each) and
``ssd:ParameterBindings``, inline or a ``source`` ``.ssv`` relative to the SSD, of which the
first parameter set is applied, to variables of causality parameter or input (a failing value
is a warning); ``ssd:DefaultExperiment`` startTime and an OSP annotation for the algorithm.
Not read: system connectors, system-level bindings; a connection without ``startElement`` or
``endElement`` (to a system connector, valid SSP) stops the load with "No such node
(<xmlattr>.endElement)".  So libcosim runs what :func:`wearcosim.system.ssp.write_ssp` writes by
default and with ``container=True`` (the strongly coupled container as the one component:
``outputs=[(system name, "joint.Fn"), ...]``), not the ``interface=True`` form.

:data:`MASTER` (= :data:`wearcosim.system.cosim.LIBCOSIM`) are the settings of
:func:`wearcosim.system.cosim.run_cosim` that do the same: ``algorithm="jacobi"``,
``refresh_outputs=False``, ``extrapolation=0``, with the tolerance left undefined.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .results import CosimResult

import numpy as np


def available() -> bool:
    try:
        import libcosimpy  # noqa: F401
        return True
    except ImportError:
        return False


def run(fmu: str | Path, stop_time: float, step: float, outputs: Sequence[str] = (),
        real_values: dict[str, float] | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
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


#: run_cosim settings that reproduce libcosim's fixed_step_algorithm (module docstring); the
#: systems layer takes them from here (wearcosim.system.cosim.LIBCOSIM)
MASTER = {"algorithm": "jacobi", "refresh_outputs": False, "extrapolation": 0}


def _last_error() -> str:
    try:
        from libcosimpy._internal import get_last_error_message
        return get_last_error_message()
    except Exception:
        return ""


def run_ssp(ssd_path: str | Path, stop_time: float, step: float, outputs: Sequence[str] = ()) -> "CosimResult":
    """Run the system ``ssd_path`` (an ``.ssd`` file, a folder with ``SystemStructure.ssd``,
    or an ``.ssp`` archive; its FMUs where its ``source`` attributes say) with libcosim's
    fixed-step master from the SSD's start time (DefaultExperiment, else 0) to ``stop_time``,
    communication step ``step`` (a whole number of nanoseconds; the span a whole number of
    steps).  ``outputs``: ``[(component, variable), ...]`` (Real, Integer or Boolean).

    Returns a :class:`~wearcosim.fmi.results.CosimResult` with the points ``t0 + h, ...,
    stop`` (libcosim initialises inside its first step, so the start point is not
    observable), ``values`` named ``"<component>.<variable>"`` and ``stats`` with the number
    of macro steps.  Bad arguments and a system libcosim refuses raise ValueError (with
    libcosim's message); a failing step raises RuntimeError."""
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver

    from .results import CosimResult
    path = Path(ssd_path)
    if not path.exists():
        raise ValueError(f"{path}: no such file or folder")
    for name, v in (("step", step), ("stop_time", stop_time)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, not {v!r}")
    if not step > 0:
        raise ValueError(f"step must be > 0, not {step!r}")
    nanos = int(round(step * 1e9))
    if nanos < 1 or abs(nanos - step * 1e9) > 1e-6 * max(1.0, step * 1e9):
        raise ValueError(f"step = {step!r} s: libcosim counts time in integer nanoseconds; "
                         f"the step must be a whole number of them")
    outputs = [tuple(o) for o in outputs]
    ex = obs = None
    try:
        try:
            ex = CosimExecution.from_ssp_file(ssp_path=str(path), step_size=nanos)
        except AssertionError:
            raise ValueError(f"{path}: libcosim cannot load the system: {_last_error()}") from None
        t0 = ex.status().current_time * 1e-9
        if not stop_time > t0:
            raise ValueError(f"stop_time = {stop_time!r} must be after the start time {t0!r}")
        q = (stop_time - t0) / step
        n = int(round(q))
        if n < 1 or abs(q - n) > 1e-9 * max(1.0, q):
            raise ValueError(f"stop_time - start time = {stop_time - t0!r} is not a whole number of steps {step!r}")
        obs = CosimObserver.create_last_value()
        ex.add_observer(observer=obs)
        plan = []
        for comp, var in outputs:
            idx = ex.slave_index_from_instance_name(comp)
            if idx is None:
                names = [i.name.decode() for i in ex.slave_infos()]
                raise ValueError(f"outputs: no component {comp!r} in {path} (components: {', '.join(names)})")
            found = {v.name.decode(): v for v in ex.slave_variables(slave_index=idx)}
            if var not in found:
                raise ValueError(f"outputs: component {comp!r} has no variable {var!r}")
            typ = CosimVariableType(found[var].type)
            if typ == CosimVariableType.STRING:
                raise ValueError(f"outputs: {comp}.{var} is a String variable")
            plan.append((f"{comp}.{var}", idx, found[var].reference, typ))
        times = np.empty(n)
        cols = np.empty((n, len(plan)))
        for k in range(n):
            if not ex.step(step_count=1):
                raise RuntimeError(f"libcosim: step {k + 1} (t = {t0 + k * step:.9g}) failed: {_last_error()}")
            times[k] = ex.status().current_time * 1e-9
            for j, (_, idx, ref, typ) in enumerate(plan):
                if typ == CosimVariableType.REAL:
                    cols[k, j] = obs.last_real_values(slave_index=idx, variable_references=[ref])[0]
                elif typ == CosimVariableType.INTEGER:
                    cols[k, j] = obs.last_integer_values(slave_index=idx, variable_references=[ref])[0]
                else:
                    cols[k, j] = float(bool(obs.last_boolean_values(slave_index=idx, variable_references=[ref])[0]))
    finally:
        # the execution frees its FMU instances and removes its extraction folders
        del obs, ex
    values = {name: cols[:, j].copy() for j, (name, *_) in enumerate(plan)}
    return CosimResult(time=times, values=values, steps=np.full(n, step), stats={"macro_steps": n},
                       algorithm="libcosim fixed_step_algorithm (jacobi)", step=step,
                       settings={"master": "libcosim", **MASTER})


def compare(result: Any, reference: Any, names: Sequence[str] | None = None,
            rtol_time: float = 1e-9) -> dict[str, float]:
    """``{name: max |result - reference| / range of the reference}`` over the time points the
    two results share (equal within ``rtol_time`` of the time; a point missing in one is
    skipped: libcosim has no start point).  The range is the reference's peak-to-peak (its
    largest magnitude if it is constant, 1 if it is zero).  ``names``: the variables
    (default: those both recorded)."""
    ta, tb = np.asarray(result.time), np.asarray(reference.time)
    ia, ib = [], []
    j = 0
    for i, t in enumerate(ta):
        while j < len(tb) and tb[j] < t - rtol_time * max(1.0, abs(t)):
            j += 1
        if j < len(tb) and abs(tb[j] - t) <= rtol_time * max(1.0, abs(t)):
            ia.append(i)
            ib.append(j)
    if not ia:
        raise ValueError("the two results share no time point")
    names = [n for n in result.values if n in reference.values] if names is None else list(names)
    out = {}
    for n in names:
        a = np.asarray(result[n])[ia]
        b = np.asarray(reference[n])[ib]
        full = np.asarray(reference[n])
        scale = float(np.ptp(full)) or float(np.max(np.abs(full))) or 1.0
        out[n] = float(np.max(np.abs(a - b))) / scale
    return out
