"""A Co-Simulation master for systems of Co-Simulation FMUs (:class:`~.model.System`).

Each component is an FMU driven through FMPy's low-level ``FMU2Slave``, opened, extracted and
cleaned up like :class:`wearcosim.fmi.runner.FMPyRunner` does (every failing FMI call raises
:class:`~wearcosim.fmi.runner.FMIError`, which carries the FMI function and status; the last
log line names the component and the time).  :func:`run_cosim` is the entry point.

Communication
    The macro steps lie on a grid anchored at the start time: step ``K`` ends at
    ``t0 + K*h`` (the last one at the stop time), never at an accumulated sum.  A step that is
    split (rollback, step-size control) is split dyadically: its points are
    ``T_K + j*(H/2**m)``, computed from the integer ``j``, so the macro grid is always hit
    exactly.

    * ``algorithm="jacobi"``: every component steps from the values exchanged at ``t``;
    * ``algorithm="gauss-seidel"``: the components step one after the other in evaluation
      order (:func:`wearcosim.system.validate.evaluation_order`: a component whose output is
      needed, through direct feedthrough, by another comes first), each with the outputs the
      components before it have already computed at ``t + dt``;
    * ``algorithm="ijcsa"``: the implicit coupling step of :mod:`wearcosim.system.ijcsa`
      (Newton's method on the values feeding components with states, interface Jacobians,
      inputs interpolated over the step, always step-size controlled with rollback, events
      of a component located by bisection).

    After the steps, with ``refresh_outputs=True`` (default) the new values are propagated in
    evaluation order: each component gets its inputs at ``t + dt`` before its outputs are
    read, so that outputs with direct feedthrough (a force element) are consistent at the
    communication point.  ``refresh_outputs=False`` reads every output right after its own
    component's step (a feedthrough output then still reflects the inputs held during the
    step) and exchanges them only before the next step: what libcosim's
    ``fixed_step_algorithm`` does (:data:`LIBCOSIM`, see :mod:`wearcosim.fmi.libcosim`).

    Inputs are held constant over a step (the FMUs cannot interpolate inputs).  With
    ``extrapolation=0`` the held value is the last one exchanged; with ``extrapolation=1`` it
    is the mean over the step of the linear extrapolation through the last two exchanged
    values (``y + s*dt/2``), and, under Gauss-Seidel, the mean of the values at both ends for
    an output already computed at ``t + dt``.  The held mean has the integral of the linear
    input over the step, which makes the coupling second order.

Rollback and step-size control
    With ``rollback`` (default: on when ``step_control``) the master saves every component's
    FMU state (fmi2GetFMUstate) before each communication step; when a component returns
    fmi2Discard all components are restored (fmi2SetFMUstate), the step is halved and redone.
    With ``step_control`` the coupling error of an accepted step is estimated from the
    exchanged Real values: the difference between each value at the end of the step and its
    prediction from the values before it, of the extrapolation order (order 0: ``y(t)``, the
    value held; order 1: ``y(t) + s*dt``), relative to ``rtol_coupling*max|y| +
    atol_coupling`` (``max|y|`` over the run so far; ``atol_coupling`` defaults to
    ``rtol_coupling`` times the variable's nominal value, 1 when none).  A step whose largest
    ratio exceeds 1 is rejected, the states are restored and the step is redone with ``dt``
    divided by ``2**j``, ``j = ceil(log2(ratio**(1/(p+1))/0.8))`` (p = extrapolation order);
    an accepted step whose ratio is small enough doubles the next one (never beyond ``step``)
    when the grid allows.  A step inside a rejected one whose ratio has not shrunk at least
    like ``dt**((p+1)/2)`` holds a jump of an exchanged value (an event of a component: an
    impact reverses a velocity), which no step size removes: it is accepted and counted as a
    discontinuity (no extrapolation across it).  ``h_min`` bounds the step: a discard at
    ``h_min`` is raised, an error above the tolerance at ``h_min`` is accepted (counted, with
    a warning).  The control is local (per step); the global error grows with the number of
    periods of an oscillation (measured, extrapolation 1, rtol_coupling 1e-3, relative to the
    range: 1.5e-4 over 2.3 periods of the tests' event system, 5.5e-4 over 2.3 periods of the
    stiff one, 1.8e-3 over 11 periods of the stiff one).

Initialisation
    fmi2SetupExperiment; the components' ``parameters`` and then ``start_values`` set;
    fmi2EnterInitializationMode; passes in evaluation order (inputs set from the outputs
    known, outputs read) until the exchanged values no longer change (at most one pass per
    component, plus one); fmi2ExitInitializationMode; one more pass.

Result
    :class:`CosimResult`: the macro grid, the recorded variables (``"<component>.<variable>"``,
    or the name of a system output) as numpy arrays, the accepted step sizes and counters
    (macro steps, accepted steps, rejected steps, discarded steps, rollbacks, discontinuities,
    FMI calls in total and per function).

A component that ends the simulation (fmi2DoStep returns fmi2Discard with fmi2Terminated)
ends the run at the last grid point reached (``CosimResult.terminated``).

Checks
    Every run has the energy estimate (:mod:`wearcosim.system.estimate`); with
    ``check="refine"`` (the command line's default) it is also repeated finer and compared
    per connection (:mod:`wearcosim.system.refine`), the finer run being the result.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

from ..fmi.libcosim import MASTER
from ..fmi.results import CosimResult
from ..fmi.runner import FMIError, FMPyRunner
from .ijcsa import NotConverged
from .estimate import TOLERANCE as ESTIMATE_TOLERANCE, WARMUP_FRACTION, Violation
from .model import Connector, SSPError, System

ALGORITHMS = ("gauss-seidel", "jacobi", "ijcsa")
#: default coupling tolerance: of the explicit algorithms' step control, of the implicit step
#: (ijcsa: 1e-4 is what puts the hybrid mechanism's contact force within 1 % of the container,
#: with the refinement check's finer run at 1e-5)
RTOL_COUPLING = {"explicit": 1e-3, "ijcsa": 1e-4}
#: ijcsa locates an event of a component to a step of at most step * rtol_coupling**this (0.5:
#: the same contact forces as 1.0 on the hybrid mechanism and the pendulum, 10 % fewer steps)
EVENT_EXPONENT = 0.5
#: the global checks of a run: "energy" (the energy residual at the power bonds, always on),
#: "refine" (also the run repeated finer and compared, :mod:`wearcosim.system.refine`)
CHECKS = ("energy", "refine")
#: master settings that reproduce libcosim's fixed_step_algorithm (defined beside the libcosim
#: driver, the lower floor: wearcosim.fmi.libcosim.MASTER)
LIBCOSIM = MASTER
DISCARD = 2
SAFETY = 0.8           # step-size control: aim at 0.8 of the tolerance
MAX_SHRINK = 5         # a rejected step is redone with at least 1/32 of its size
GROW = 0.5             # double the step when the doubled step's predicted error ratio is below this
TYPES = ("Real", "Integer", "Boolean", "Enumeration")


class EstimateError(ValueError):
    """A co-simulation whose error estimate exceeds its tolerance (the run stops; with
    ``force=True`` it finishes flagged instead)."""

    def __init__(self, system: str, v: Violation):
        super().__init__(f"co-simulation of {system}: connection {v.connection}: energy residual {v.value:.3g} "
                         f"exceeds tolerance {v.tolerance:g} at t={v.time:.6g} (use a smaller --step, "
                         f"--algorithm ..., or --force to finish flagged)")
        self.system, self.violation = system, v


class CouplingError(ValueError):
    """The implicit coupling step does not converge even at the smallest step: the run stops."""

    def __init__(self, system: str, nc: Any, h: float):
        where = f"connection {nc.connection}: " if nc.connection else ""
        super().__init__(f"co-simulation of {system}: {where}the implicit coupling step at t={nc.t:.9g} did not "
                         f"converge at the smallest step {h:.3g} s (residual {nc.residual:.3g} x the coupling "
                         f"tolerance; use a smaller --step or a larger --coupling-tolerance)")
        self.system, self.connection, self.time = system, nc.connection, nc.t


class _Discard(Exception):
    def __init__(self, unit, exc):
        super().__init__(str(exc))
        self.unit, self.exc = unit, exc


class _Terminated(Exception):
    def __init__(self, unit, time):
        super().__init__(unit)
        self.unit, self.time = unit, time


# ----------------------------------------------------------------------------- one component

class _Unit:
    """One instantiated component: its FMPyRunner (extraction, instance, cleanup), the FMI
    calls the master makes (each counted), its inputs and outputs in the exchange."""

    def __init__(self, comp, calls: Counter, rollback: bool):
        self.name = comp.name
        self.calls = calls
        self.runner = FMPyRunner(comp.path, instance_name=comp.name)
        calls["fmi2Instantiate"] += 1
        self.slave = self.runner.slave
        self.vars = self.runner.vars
        self.no_prior = not rollback          # noSetFMUStatePriorToCurrentPoint of fmi2DoStep
        self.state = None
        self.time = float("nan")
        # exchange (filled by the master): per type, value references and table indices
        self.in_real_vr, self.in_real_src = [], np.zeros(0, dtype=int)
        self.out_real_vr, self.out_real_dst = [], np.zeros(0, dtype=int)
        self.in_other = []        # (type, vr, key)
        self.out_other = []       # (type, vr, key)
        self.rec = {}             # type -> ([vr], [column])
        self.last_in = None       # Real inputs last set (None: unknown, e.g. after a restore)
        self.last_other = {}      # vr -> Integer/Boolean input last set
        self.feedthrough = False  # some exchanged output depends directly on an input

    # -- FMI calls
    def call(self, fname: str, fn):
        self.calls[fname] += 1
        try:
            return self.runner._call(fname, fn)
        except FMIError as exc:
            where = f"component {self.name!r}" + (f" at t = {self.time:.17g}" if math.isfinite(self.time) else "")
            raise FMIError(exc.function, exc.status, list(exc.log) + [where]) from None

    def set_values(self, typ: str, vrs, values):
        if not vrs:
            return
        s = self.slave
        if typ == "Real":
            self.call("fmi2SetReal", lambda: s.setReal(list(vrs), [float(v) for v in values]))
        elif typ in ("Integer", "Enumeration"):
            self.call("fmi2SetInteger", lambda: s.setInteger(list(vrs), [int(v) for v in values]))
        elif typ == "Boolean":
            self.call("fmi2SetBoolean", lambda: s.setBoolean(list(vrs), [bool(v) for v in values]))
        else:
            raise TypeError(f"component {self.name!r}: cannot set {typ} variables")

    def get_values(self, typ: str, vrs):
        if not vrs:
            return []
        s = self.slave
        if typ == "Real":
            return self.call("fmi2GetReal", lambda: s.getReal(list(vrs)))
        if typ in ("Integer", "Enumeration"):
            return self.call("fmi2GetInteger", lambda: s.getInteger(list(vrs)))
        if typ == "Boolean":
            return [float(bool(v)) for v in self.call("fmi2GetBoolean", lambda: s.getBoolean(list(vrs)))]
        raise TypeError(f"component {self.name!r}: cannot get {typ} variables")

    def set_start(self, values: dict):
        by_type = {}
        for name, val in values.items():
            v = self.vars[name]
            by_type.setdefault(v.type, ([], []))
            by_type[v.type][0].append(v.valueReference)
            by_type[v.type][1].append(val)
        for typ, (vrs, vals) in by_type.items():
            self.set_values(typ, vrs, vals)

    def set_real_inputs(self, values: np.ndarray):
        """fmi2SetReal of the Real inputs, skipped when they are what was set last (the FMU
        would ignore equal values anyway: it restarts its solver only on a change)."""
        if not self.in_real_vr:
            return
        if self.last_in is not None and np.array_equal(values, self.last_in):
            return
        self.set_values("Real", self.in_real_vr, values)
        self.last_in = np.array(values, dtype=float)

    def do_step(self, t: float, dt: float):
        self.time = t
        s = self.slave
        from fmpy.fmi2 import fmi2False, fmi2True
        flag = fmi2True if self.no_prior else fmi2False
        try:
            self.call("fmi2DoStep", lambda: s.doStep(currentCommunicationPoint=t, communicationStepSize=dt,
                                                     noSetFMUStatePriorToCurrentPoint=flag))
        except FMIError as exc:
            if exc.status != DISCARD:
                raise
            if self._terminated():
                raise _Terminated(self.name, self._last_time(t)) from None
            raise _Discard(self, exc) from None
        self.time = t + dt

    def _terminated(self) -> bool:
        from fmpy.fmi2 import fmi2Terminated
        try:
            return bool(self.call("fmi2GetBooleanStatus", lambda: self.slave.getBooleanStatus(fmi2Terminated)))
        except Exception:
            return False

    def _last_time(self, t: float) -> float:
        from fmpy.fmi2 import fmi2LastSuccessfulTime
        try:
            return float(self.call("fmi2GetRealStatus", lambda: self.slave.getRealStatus(fmi2LastSuccessfulTime)))
        except Exception:
            return t

    # -- FMU state (one saved state per component, updated in place)
    def save(self):
        from ctypes import byref
        from fmpy.fmi2 import fmi2FMUstate
        if self.state is None:
            self.state = fmi2FMUstate()
        s, st = self.slave, self.state
        self.call("fmi2GetFMUstate", lambda: s.fmi2GetFMUstate(s.component, byref(st)))
        self.saved_time = self.time

    def restore(self):
        s, st = self.slave, self.state
        self.call("fmi2SetFMUstate", lambda: s.fmi2SetFMUstate(s.component, st))
        self.time = self.saved_time
        self.last_in = None
        self.last_other = {}

    def close(self):
        """Free the saved state, fmi2Terminate, free the instance, remove the extraction; every
        part also when the one before failed.  Raises the first failure."""
        first = None
        if self.state is not None and self.runner.slave is not None:
            try:
                from ctypes import byref
                s, st = self.slave, self.state
                self.call("fmi2FreeFMUstate", lambda: s.fmi2FreeFMUstate(s.component, byref(st)))
            except Exception as exc:
                first = exc
            self.state = None
        if self.runner.slave is not None:
            self.calls["fmi2Terminate"] += 1
            self.calls["fmi2FreeInstance"] += 1
        try:
            self.runner.terminate()
        except Exception as exc:
            first = first or exc
        if first is not None:
            raise first


# ----------------------------------------------------------------------------- set-up checks

def _number(name, value, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    value = float(value)
    if positive and not value > 0:
        raise ValueError(f"{name} must be > 0, not {value!r}")
    return value


def _interfaces(system: System) -> dict:
    from .validate import interface
    its = {}
    seen = set()
    for comp in system.components:
        if comp.name in seen:
            raise SSPError(f"{system.where}: two components are named {comp.name!r}")
        seen.add(comp.name)
        if comp.path is None:
            raise SSPError(f"{system.where}: component {comp.name!r}: FMU {comp.source!r} is not resolved (no path)")
        it = interface(comp.path)
        if it.error:
            raise SSPError(f"{system.where}: component {comp.name!r}: FMU {str(comp.path)!r}: {it.error}")
        if it.md.coSimulation is None:
            raise SSPError(f"{system.where}: component {comp.name!r}: {comp.path} has no Co-Simulation interface")
        its[comp.name] = it
    if not its:
        raise SSPError(f"{system.where}: the system has no components")
    return its


def _end(system, its, element, connector, conn):
    """(owner, kind, type) of one end of a connection; the kinds of a component's ends are the
    FMU's causalities."""
    if element is None:
        try:
            c = system.connector(connector)
        except KeyError:
            raise SSPError(f"{system.where}: connection {conn.start} -> {conn.end}: "
                           f"the system has no connector {connector!r}") from None
        return "System", c.kind, c.type
    if element not in its:
        raise SSPError(f"{system.where}: connection {conn.start} -> {conn.end}: no component {element!r}")
    v = its[element].variables.get(connector)
    if v is None:
        raise SSPError(f"{system.where}: connection {conn.start} -> {conn.end}: "
                       f"component {element!r} has no variable {connector!r}")
    return "Element", v.causality, v.type


def _orient(system, its):
    """[(source, destination, type)] with source/destination ``(element, name)`` (element
    None: the system's connector); every input driven at most once."""
    flows, driven = [], {}
    for c in system.connections:
        a = (c.start_element, c.start_connector)
        b = (c.end_element, c.end_connector)
        ea = _end(system, its, *a, c)
        eb = _end(system, its, *b, c)

        def source(e):
            return (e[0] == "Element" and e[1] == "output") or (e[0] == "System" and e[1] in ("input", "parameter"))

        def dest(e):
            return (e[0] == "Element" and e[1] == "input") or (e[0] == "System" and e[1] == "output")
        if source(ea) and dest(eb):
            src, dst = a, b
        elif source(eb) and dest(ea):
            src, dst = b, a
        else:
            raise SSPError(f"{system.where}: connection {c.start} -> {c.end} ({ea[1]} of {ea[0].lower()} and "
                           f"{eb[1]} of {eb[0].lower()}): the co-simulation master exchanges component outputs "
                           f"-> component inputs, system inputs -> component inputs, component outputs -> "
                           f"system outputs")
        if src[0] is None and dst[0] is None:
            raise SSPError(f"{system.where}: connection {c.start} -> {c.end}: joins two system connectors")
        ta, tb = ea[2], eb[2]
        ta = "Integer" if ta == "Enumeration" else ta
        tb = "Integer" if tb == "Enumeration" else tb
        if ta != tb:
            raise SSPError(f"{system.where}: connection {c.start} -> {c.end}: types differ ({ea[2]}, {eb[2]})")
        if ta not in ("Real", "Integer", "Boolean"):
            raise SSPError(f"{system.where}: connection {c.start} -> {c.end}: {ta} connections are not supported")
        if dst in driven:
            raise SSPError(f"{system.where}: {_name(dst)} is driven by two connections "
                           f"({_name(driven[dst])} and {_name(src)})")
        driven[dst] = src
        flows.append((src, dst, ta))
    return flows


def _name(end) -> str:
    return f"{end[0]}.{end[1]}" if end[0] is not None else end[1]


def _order(system, its, flows) -> list:
    """validate.evaluation_order of the system, with every component connector used by a
    connection declared from the FMU (kinds = causalities), so that the order follows the
    FMUs even for a system built in code without connectors."""
    from .validate import evaluation_order
    ends = {}
    for src, dst, _ in flows:
        for el, cn in (src, dst):
            if el is not None:
                ends.setdefault(el, []).append(cn)
    comps = []
    for comp in system.components:
        names = list(dict.fromkeys(ends.get(comp.name, [])))
        declared = [c for c in comp.connectors if c.name not in names]
        derived = []
        for n in names:
            v = its[comp.name].variables[n]
            derived.append(Connector(n, v.causality, "Integer" if v.type == "Enumeration" else v.type))
        comps.append(dataclasses.replace(comp, connectors=declared + derived))
    return evaluation_order(dataclasses.replace(system, components=comps))


def _split(name: str, its: dict, system: System, what: str):
    """``"comp.var"`` -> (comp, var); a system connector name -> (None, name)."""
    for comp in its:
        if name.startswith(comp + "."):
            var = name[len(comp) + 1:]
            if var in its[comp].variables:
                return comp, var
            raise ValueError(f"{what}: unknown variable {name!r}: component {comp!r} has no variable {var!r}")
    if any(c.name == name for c in system.connectors):
        return None, name
    raise ValueError(f"{what}: unknown variable {name!r} (expected '<component>.<variable>' with a component "
                     f"of {', '.join(its)}, or a system connector)")


# ----------------------------------------------------------------------------- the master

class _Master:
    def __init__(self, system, its, flows, order, units, algorithm, refresh, extrapolation,
                 step_control, rollback, rtol, atol, calls, estimate_tolerance):
        self.system, self.its, self.flows = system, its, flows
        self.units = units
        self.by_name = {u.name: u for u in units}
        self.order = [self.by_name[n] for n in order]
        self.gs = algorithm == "gauss-seidel"
        self.algorithm = algorithm
        self.refresh = refresh
        self.p = 1 if algorithm == "ijcsa" else extrapolation
        self.step_control = step_control
        self.rollback = rollback
        self.calls = calls
        # Real exchange table: one slot per source (component output or system input)
        real_src = list(dict.fromkeys(src for src, _, typ in flows if typ == "Real"))
        self.index = {k: i for i, k in enumerate(real_src)}
        n = len(real_src)
        self.y = np.zeros(n)
        self.coupled = np.zeros(n, dtype=bool)       # feeds a component input (enters the error estimate)
        self.other = {}                              # (element, name) -> value of Integer/Boolean sources
        ins_r = {u.name: ([], []) for u in units}
        for src, dst, typ in flows:
            if dst[0] is None:
                continue
            u = self.by_name[dst[0]]
            vr = u.vars[dst[1]].valueReference
            if typ == "Real":
                ins_r[u.name][0].append(vr)
                ins_r[u.name][1].append(self.index[src])
                self.coupled[self.index[src]] = True
            else:
                u.in_other.append((typ, vr, src))
        # the Real inputs as set for the current step, all components in one vector (the energy
        # estimate reads what each side held)
        self.held_at = {}
        off = 0
        for u in units:
            u.in_real_vr, u.in_real_src = ins_r[u.name][0], np.array(ins_r[u.name][1], dtype=int)
            u.held_off = off
            for vr in u.in_real_vr:
                self.held_at[(u.name, vr)] = off
                off += 1
            outs = [(k, i) for k, i in self.index.items() if k[0] == u.name]
            u.out_real_vr = [u.vars[k[1]].valueReference for k, _ in outs]
            u.out_real_dst = np.array([i for _, i in outs], dtype=int)
            others = list(dict.fromkeys((src, typ) for src, _, typ in flows if src[0] == u.name and typ != "Real"))
            u.out_other = [(typ, u.vars[src[1]].valueReference, src) for src, typ in others]
            ft = its[u.name].feedthrough
            u.feedthrough = any(ft.get(k[1]) for k, _ in outs) or any(ft.get(src[1]) for src, _ in others)
        # scales of the error estimate
        self.rtol = rtol
        self.atol = np.zeros(n)
        for k, i in self.index.items():
            if isinstance(atol, dict):
                a = atol.get(_name(k))
            else:
                a = atol
            if a is None:
                nominal = 1.0
                if k[0] is not None:
                    v = its[k[0]].variables[k[1]]
                    nominal = abs(float(v.nominal)) if getattr(v, "nominal", None) not in (None, "") else 1.0
                a = rtol * nominal
            self.atol[i] = float(a)
        self.yprev = np.zeros(n)
        self.hprev = 0.0
        self.have_prev = False
        self.runmax = np.zeros(n)
        self.stats = Counter()
        self.held = np.zeros(off)
        self.estimator = self._estimator(estimate_tolerance)
        self.implicit = None
        if algorithm == "ijcsa":
            from .ijcsa import Implicit
            self.implicit = Implicit(self)

    def _estimator(self, tolerance):
        from .estimate import Estimator, bonds
        bl, rest = bonds(self.flows, lambda c, v: self.its[c].unit(v))

        def at(dst):
            return self.held_at[(dst[0], self.by_name[dst[0]].vars[dst[1]].valueReference)]
        return Estimator(bl, np.array([self.index[b.e_src] for b in bl], dtype=int),
                         np.array([self.index[b.f_src] for b in bl], dtype=int),
                         np.array([at(b.e_dst) for b in bl], dtype=int),
                         np.array([at(b.f_dst) for b in bl], dtype=int),
                         rest, np.array([self.index[s] for s, _ in rest], dtype=int),
                         np.array([at(d) for _, d in rest], dtype=int), tolerance=tolerance)

    # -- the exchange
    def _inputs(self, u, table, other):
        if u.in_real_vr:
            u.set_real_inputs(table[u.in_real_src])
        for typ, vr, src in u.in_other:
            self._set_other(u, typ, vr, other[src])

    @staticmethod
    def _set_other(u, typ, vr, val):
        if vr in u.last_other and u.last_other[vr] == val:
            return
        u.set_values(typ, [vr], [val])
        u.last_other[vr] = val

    @staticmethod
    def _outputs(u, table, other):
        if u.out_real_vr:
            table[u.out_real_dst] = u.get_values("Real", u.out_real_vr)
        for typ, vr, src in u.out_other:
            other[src] = u.get_values(typ, [vr])[0]

    def propagate(self, table, passes: int) -> None:
        """Passes in evaluation order (set inputs, read outputs) until no exchanged value
        changes (initialisation)."""
        for k in range(max(1, passes)):
            before = table.copy(), dict(self.other)
            for u in self.order:
                self._inputs(u, table, self.other)
                self._outputs(u, table, self.other)
            if k > 0 and np.array_equal(before[0], table) and before[1] == self.other:
                break

    def advance(self, t: float, t1: float):
        """One communication step from t to t1: returns the exchanged values at t1, Real (an
        array) and the others (a dict); the components have stepped, nothing of the master's
        own state is changed (a rejected step leaves it as it was)."""
        if self.implicit is not None:
            return self.implicit.advance(t, t1)
        dt = t1 - t
        y = self.y
        new = y.copy()
        onew = dict(self.other)
        stepped = np.zeros(len(y), dtype=bool)
        order1 = self.p == 1 and self.have_prev
        held = y + (y - self.yprev) / self.hprev * (dt / 2) if order1 else y
        done = set()
        for u in self.order:
            if u.name in done:                      # listed again: a refresh (Gauss-Seidel only)
                if self.gs:
                    self._inputs(u, new, onew)
                    self._outputs(u, new, onew)
                continue
            done.add(u.name)
            if u.in_real_vr:
                src = u.in_real_src
                if self.gs:
                    fresh = stepped[src]
                    now = (y[src] + new[src]) / 2 if order1 else new[src]
                    vals = np.where(fresh, now, held[src])
                else:
                    vals = held[src]
                u.set_real_inputs(vals)
                self.held[u.held_off:u.held_off + len(src)] = vals
            if u.in_other:
                src_vals = onew if self.gs else self.other
                for typ, vr, src in u.in_other:
                    self._set_other(u, typ, vr, src_vals[src])
            u.do_step(t, dt)
            self._outputs(u, new, onew)
            stepped[u.out_real_dst] = True
        if self.refresh:
            for u in self.order:
                if u.in_real_vr or u.in_other:
                    self._inputs(u, new, onew)
                    if u.feedthrough:
                        self._outputs(u, new, onew)
        return new, onew

    def error(self, new: np.ndarray, dt: float) -> float:
        """Largest ratio of coupling error estimate to tolerance over the exchanged Real values
        that feed component inputs."""
        if self.implicit is not None:
            return self.implicit.error(new, dt)
        if not self.coupled.any():
            return 0.0
        y = self.y
        pred = y + (y - self.yprev) / self.hprev * dt if (self.p == 1 and self.have_prev) else y
        c = self.coupled
        e = np.abs(new[c] - pred[c])
        scale = self.rtol * np.maximum(self.runmax[c], np.abs(new[c])) + self.atol[c]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(e == 0, 0.0, e / scale)
        return float(np.max(r))

    def accept(self, new: np.ndarray, onew: dict, dt: float, t1: float = math.nan):
        self.estimator.step(self.y, new, self.held, dt, t1)
        self.yprev, self.hprev, self.have_prev = self.y, dt, True
        self.y, self.other = new, onew
        self.runmax = np.maximum(self.runmax, np.abs(new))

    def jump_exponent(self, pe: int) -> float:
        """A smaller step inside a rejected one whose error ratio has shrunk less than
        (size ratio)**this holds a jump.  Explicit coupling: half the order of its error,
        (p+1)/2; the implicit step: 0 -- only an error that did not shrink at all is a jump;
        the onset of a contact (a kink of the force, its error shrinking like h**1.5) is
        resolved by smaller steps, not accepted with the error of a large one."""
        return 0.0 if self.implicit is not None else (pe + 1) / 2

    def save(self):
        if self.implicit is not None:
            if self.implicit.save():
                return
            self.implicit.state_sync = True      # saved one by one: the pointers may be new
        for u in self.units:
            u.save()

    def restore(self):
        for u in self.units:
            u.restore()
        self.stats["rollbacks"] += 1


def run_cosim(system: System, stop_time: float, step: float, algorithm: str = "gauss-seidel",
              record: Optional[Sequence[str]] = None, tolerance: Optional[float] = None, step_control: bool = False,
              rtol_coupling: Optional[float] = None, atol_coupling: "Optional[float | dict[str, float]]" = None, h_min: Optional[float] = None,
              start_values: Optional[dict] = None, start_time: Optional[float] = None,
              extrapolation: int = 0, refresh_outputs: bool = True,
              rollback: Optional[bool] = None, estimate_tolerance: Optional[float] = None,
              force: bool = False, check: str = "energy", check_tolerance: Optional[float] = None) -> CosimResult:
    """Co-simulate ``system`` (every component a Co-Simulation FMU at its ``path``) from
    ``start_time`` (default: the system's, else 0) to ``stop_time`` with communication step
    ``step`` (the macro grid t0 + k*step, the last step ending at ``stop_time``).

    ``algorithm``: ``"gauss-seidel"`` or ``"jacobi"``; ``record``: names
    ``"<component>.<variable>"`` (any variable of a component) or of system outputs
    (default: every output of every component); ``tolerance``: the components' relative
    tolerance (fmi2SetupExperiment; None: undefined, each FMU's default); ``step_control``:
    coupling error control with rollback (``rtol_coupling``, ``atol_coupling``: a number or
    {"<component>.<output>": number}, ``h_min``: smallest step, default ``step*1e-6``);
    ``start_values``:
    ``{"<component>.<variable>": value}`` set before initialisation after the components'
    ``parameters`` (and values of system inputs by their names); ``extrapolation``: 0 or 1
    (module docstring); ``refresh_outputs``: see the module docstring; ``rollback``: save
    the FMU states before every step to redo a step a component discards (default: when
    ``step_control``); ``estimate_tolerance``: the largest energy estimate of a power bond
    (:mod:`wearcosim.system.estimate`) a run may reach; beyond it the run stops with
    :class:`EstimateError` (the first time it is exceeded), or, with ``force``, finishes
    flagged.  Without ``estimate_tolerance`` the estimate is only reported, against
    :data:`wearcosim.system.estimate.TOLERANCE` (``wearcosim system run`` always gives one).
    The estimate's table is ``stats["estimate"]`` (one row per connection), the first
    exceedance ``stats["flagged"]`` (None: none).

    Errors: ValueError for bad arguments (unknown variables, ``step <= 0``, ``stop_time`` not
    after the start time, ...), :class:`~.model.SSPError` (a ValueError) for a system that
    cannot be co-simulated (unknown connector, algebraic loop, ...), FMUOpenError for an FMU
    that cannot be opened, FMIError for a failing FMI call.  Every FMU instance and
    extraction folder is released on all paths."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if check not in CHECKS:
        raise ValueError(f"check must be one of {', '.join(CHECKS)}, not {check!r}")
    if algorithm == "ijcsa":
        step_control = True                 # the implicit step is always error-controlled
    if rtol_coupling is None:
        rtol_coupling = RTOL_COUPLING.get(algorithm, RTOL_COUPLING["explicit"])
    if check == "refine":
        return _refined(system, stop_time, step, dict(
            algorithm=algorithm, record=record, tolerance=tolerance, step_control=step_control,
            rtol_coupling=rtol_coupling, atol_coupling=atol_coupling, h_min=h_min, start_values=start_values,
            start_time=start_time, extrapolation=extrapolation, refresh_outputs=refresh_outputs, rollback=rollback,
            estimate_tolerance=estimate_tolerance, force=force), check_tolerance)
    if extrapolation not in (0, 1) or isinstance(extrapolation, bool):
        raise ValueError(f"extrapolation must be 0 or 1, not {extrapolation!r}")
    step = _number("step", step)
    if not step > 0:
        raise ValueError(f"step must be > 0, not {step!r}")
    stop_time = _number("stop_time", stop_time)
    t0 = _number("start_time", start_time if start_time is not None else (system.start_time or 0.0))
    if not stop_time > t0:
        raise ValueError(f"stop_time = {stop_time!r} must be after the start time {t0!r}")
    if tolerance is not None:
        tolerance = _number("tolerance", tolerance, positive=True)
    rtol_coupling = _number("rtol_coupling", rtol_coupling, positive=True)
    if atol_coupling is not None and not isinstance(atol_coupling, dict):
        atol_coupling = _number("atol_coupling", atol_coupling)
        if atol_coupling < 0:
            raise ValueError(f"atol_coupling must be >= 0, not {atol_coupling!r}")
    h_min = step * 1e-6 if h_min is None else _number("h_min", h_min, positive=True)
    if h_min > step:
        raise ValueError(f"h_min = {h_min!r} is larger than the step {step!r}")
    stop_on_estimate = estimate_tolerance is not None and not force
    estimate_tolerance = _number("estimate_tolerance", ESTIMATE_TOLERANCE if estimate_tolerance is None
                                 else estimate_tolerance, positive=True)
    rollback = bool(step_control or algorithm == "ijcsa") if rollback is None else bool(rollback)
    if algorithm == "ijcsa" and not rollback:
        raise ValueError("algorithm 'ijcsa' needs rollback (rollback=False given): its Newton iterations restore "
                         "the components' states")
    if step_control and not rollback:
        raise ValueError("step_control needs rollback (rollback=False given)")

    its = _interfaces(system)
    flows = _orient(system, its)
    order = _order(system, its, flows)
    if rollback:
        for name, it in its.items():
            if not it.md.coSimulation.canGetAndSetFMUstate:
                raise SSPError(f"{system.where}: component {name!r} cannot get and set its FMU state "
                               f"(canGetAndSetFMUstate=false): rollback and step-size control need it")
    record = _record_names(record, its, system)
    rec = [_split(n, its, system, "record") for n in record]
    for (el, var), n in zip(rec, record):
        if el is None:
            kind = system.connector(var).kind
            if kind != "output":
                raise ValueError(f"record: {n!r} is a system {kind}; only system outputs can be recorded")
            if not any(dst == (None, var) for _, dst, _ in flows):
                raise ValueError(f"record: system output {n!r} is not connected")
        elif its[el].variables[var].type not in TYPES:
            raise ValueError(f"record: {n!r} is a {its[el].variables[var].type} variable (Real, Integer, "
                             f"Boolean or Enumeration only)")
    starts = {c.name: dict(c.parameters) for c in system.components}
    # a system input's value: its system-level binding, unless start_values gives one
    names = {c.name for c in system.connectors if c.kind in ("input", "parameter")}
    sys_inputs = {k: v for k, v in (getattr(system, "parameters", None) or {}).items() if k in names}
    for n, val in (start_values or {}).items():
        el, var = _split(n, its, system, "start_values")
        if el is None:
            sys_inputs[var] = val
        else:
            starts[el][var] = val
    for comp, vals in starts.items():
        for var in vals:
            if var not in its[comp].variables:
                raise ValueError(f"parameters of component {comp!r}: unknown variable {var!r}")
    for src, dst, typ in flows:
        if src[0] is None and src[1] not in sys_inputs:
            raise ValueError(f"system input {src[1]!r} feeds {_name(dst)} but has no value: give it in start_values")
    M = max(0, int(math.floor(math.log2(step / h_min) + 1e-9)))

    calls = Counter()
    units = []
    master = None
    result = None
    try:
        comps = {c.name: c for c in system.components}
        for name in its:
            units.append(_Unit(comps[name], calls, rollback))
        master = _Master(system, its, flows, order, units, algorithm, refresh_outputs, extrapolation,
                         step_control, rollback, rtol_coupling, atol_coupling, calls, estimate_tolerance)
        master.force = not stop_on_estimate
        result = _run(master, units, rec, record, t0, stop_time, step, tolerance, starts, sys_inputs, M)
        result.settings = {"algorithm": algorithm, "refresh_outputs": refresh_outputs, "extrapolation": extrapolation,
                           "step_control": step_control, "rollback": rollback, "rtol_coupling": rtol_coupling,
                           "h_min": h_min, "tolerance": tolerance, "order": order,
                           "estimate_tolerance": estimate_tolerance, "stop_on_estimate": stop_on_estimate}
    finally:
        if master is not None and getattr(master, "seterr", None):
            np.seterr(**master.seterr)
        first = None
        for u in units:
            try:
                u.close()
            except Exception as exc:
                first = first or exc
        if first is not None and result is not None and result.terminated is None:
            raise first
    result.stats["fmi_calls"] = sum(calls.values())
    result.stats["fmi_calls_by_function"] = dict(sorted(calls.items()))
    return result


def _run(master: _Master, units, rec, record, t0, stop, h, tolerance, starts, sys_inputs, M) -> CosimResult:
    # -- grid
    q = (stop - t0) / h
    n = int(round(q))
    if n < 1 or abs(q - n) > 1e-9 * max(1.0, q):
        n = int(math.ceil(q))
        grid = [t0 + k * h for k in range(n)] + [stop]
    else:
        grid = [t0 + k * h for k in range(n + 1)]
    grid = np.array(grid)
    cols = np.full((len(grid), len(rec)), np.nan)
    rec_plan = {}
    sys_rec = []
    for j, (el, var) in enumerate(rec):
        if el is None:
            src = next(s for s, d, _ in master.flows if d == (None, var))
            sys_rec.append((j, src))
        else:
            u = master.by_name[el]
            v = u.vars[var]
            typ = "Integer" if v.type == "Enumeration" else v.type
            plan = rec_plan.setdefault(u.name, {})
            plan.setdefault(typ, ([], []))
            plan[typ][0].append(v.valueReference)
            plan[typ][1].append(j)

    def record_at(k):
        for name, plan in rec_plan.items():
            u = master.by_name[name]
            for typ, (vrs, js) in plan.items():
                cols[k, js] = u.get_values(typ, vrs)
        for j, src in sys_rec:
            cols[k, j] = master.y[master.index[src]] if src in master.index else float(master.other[src])

    # -- initialisation
    for u in units:
        u.time = t0
        u.call("fmi2SetupExperiment", lambda u=u: u.slave.setupExperiment(tolerance=tolerance, startTime=t0, stopTime=stop))
        if starts.get(u.name):
            u.set_start(starts[u.name])
    for k, i in master.index.items():
        if k[0] is None:
            master.y[i] = float(sys_inputs[k[1]])
    for src, _, typ in master.flows:
        if src[0] is None and typ != "Real":
            master.other[src] = sys_inputs[src[1]]
        elif typ != "Real":
            master.other.setdefault(src, 0)
    for u in units:
        u.call("fmi2EnterInitializationMode", u.slave.enterInitializationMode)
    master.propagate(master.y, len(units) + 1)
    for u in units:
        u.call("fmi2ExitInitializationMode", u.slave.exitInitializationMode)
    master.propagate(master.y, 1)
    master.runmax = np.abs(master.y)
    master.estimator.start(master.y)
    if master.implicit is not None:
        master.implicit.start(t0)
    record_at(0)

    # -- time stepping
    est = master.estimator
    est.warmup = max(est.warmup, int(math.ceil(WARMUP_FRACTION * (len(grid) - 1))))
    est.t_live = t0 + WARMUP_FRACTION * (stop - t0)     # under step control: a share of the time, too
    stats = master.stats
    steps = []
    h_event = max(h * master.rtol ** EVENT_EXPONENT, h / 2 ** M)    # the step an event is located to (ijcsa)
    terminated = None
    m = 0
    warned = False
    rejected_at = None          # (t, t1, error ratio, dt) of the last rejected step still ahead
    last = 0
    p = master.p
    # a diverging run's overflow is the estimates' business, not a warning's (restored after the
    # loop, and by run_cosim when it raises)
    master.seterr = np.seterr(invalid="ignore", over="ignore", divide="ignore")
    for K in range(len(grid) - 1):
        TK, TK1 = float(grid[K]), float(grid[K + 1])
        unit = (TK1 - TK) / 2 ** M
        full = 2 ** M
        pos = 0
        if not master.step_control:
            m = 0
        try:
            while pos < full:
                size = 2 ** (M - m)
                t = TK if pos == 0 else TK + pos * unit
                t1 = TK1 if pos + size == full else TK + (pos + size) * unit
                if master.rollback:
                    master.save()
                try:
                    new, onew = master.advance(t, t1)
                except NotConverged as nc:
                    master.restore()
                    if m >= M:
                        raise CouplingError(master.system.name, nc, t1 - t) from None
                    m += 1
                    continue
                except _Discard as d:
                    stats["discarded_steps"] += 1
                    if not master.rollback:
                        raise FMIError(d.exc.function, d.exc.status, list(d.exc.log) + [
                            "rollback is off (rollback=False; on the command line --rollback or --step-control): "
                            "the step cannot be redone"]) from None
                    master.restore()
                    if m >= M:
                        raise FMIError(d.exc.function, d.exc.status, list(d.exc.log) + [
                            f"discarded at the smallest step {t1 - t:.6g} (h_min)"]) from None
                    m += 1
                    continue
                err = 0.0
                jump = False
                imp = master.implicit
                event = imp is not None and imp.event_in_step()
                if event and t1 - t > h_event and m < M:
                    # a component's event inside the step: bisected until the step holding it is
                    # at most h_event long (the event is located to that; a contact's captured
                    # impact velocity comes from inputs interpolated over that step)
                    master.restore()
                    stats["event_bisections"] += 1
                    m += 1
                    continue
                if event:
                    # the located event's step is taken as it is (a value may jump at the event:
                    # no interpolation error is defined across it), and no history crosses it
                    stats["events_located"] += 1
                elif master.step_control:
                    err = master.error(new, t1 - t)
                    pe = p if master.have_prev else 0
                    if err > 1 and rejected_at is not None and rejected_at[0] <= t and t1 <= rejected_at[1]:
                        # a smaller step inside a step rejected before: a smooth coupling error
                        # shrinks like dt**(p+1); one that does not shrink at least like
                        # dt**((p+1)/2) is a jump of an exchanged value (an event of a
                        # component) in this step, which no step size removes: accept
                        ratio, shrink = err / rejected_at[2], (t1 - t) / rejected_at[3]
                        jump = ratio > shrink ** master.jump_exponent(pe)
                    if err > 1 and m < M and not jump:
                        master.restore()
                        stats["rejected_steps"] += 1
                        rejected_at = (t, t1, err, t1 - t)
                        up = math.ceil(math.log2(err ** (1.0 / (pe + 1)) / SAFETY))
                        m = min(M, m + min(MAX_SHRINK, max(1, up)))
                        continue
                    if jump:
                        stats["discontinuities"] += 1
                    elif err > 1:
                        stats["accepted_above_tolerance"] += 1
                        if not warned:
                            warnings.warn(f"co-simulation: coupling error estimate {err:.3g} x the tolerance at the "
                                          f"smallest step {t1 - t:.3g} (h_min) at t = {t:.6g}; accepted",
                                          RuntimeWarning, stacklevel=3)
                            warned = True
                if rejected_at is not None and (jump or t1 >= rejected_at[1]):
                    rejected_at = None
                master.accept(new, onew, t1 - t, t1)
                if imp is not None:
                    imp.accepted(t1, new)
                if master.estimator.first is not None and not master.force:
                    raise EstimateError(master.system.name, master.estimator.first)
                if jump or event:
                    master.have_prev = False        # no extrapolation across the jump
                steps.append(t1 - t)
                pos += size
                if master.step_control and m > 0 and pos % (2 * size) == 0 and not jump \
                        and err * 2 ** ((p if master.have_prev else 0) + 1) <= GROW:
                    m -= 1
        except _Terminated as term:
            terminated = (term.unit, term.time)
            break
        record_at(K + 1)
        last = K + 1
    np.seterr(**master.seterr)
    master.seterr = None
    stats["macro_steps"] = last
    stats["accepted_steps"] = len(steps)
    for key in ("rejected_steps", "discarded_steps", "rollbacks", "discontinuities", "accepted_above_tolerance"):
        stats.setdefault(key, 0)
    master.estimator.finish()
    if master.estimator.first is not None and not master.force and terminated is None:
        raise EstimateError(master.system.name, master.estimator.first)
    stats["estimate"] = master.estimator.rows()
    first = master.estimator.first
    stats["flagged"] = None if first is None else dataclasses.asdict(first)
    names = list(record)
    values = {nme: cols[: last + 1, j].copy() for j, nme in enumerate(names)}
    return CosimResult(time=grid[: last + 1].copy(), values=values, steps=np.array(steps), stats=dict(stats),
                       algorithm=master.algorithm, step=h, terminated=terminated)


def _record_names(record: "Optional[Sequence[str] | str]", its: dict, system: System) -> list:
    """The names to record: ``record`` (one name or several, duplicates dropped), or every
    output of every component and of the system."""
    if record is None:
        record = [f"{c}.{v.name}" for c, it in its.items() for v in it.md.modelVariables
                  if v.causality == "output" and v.type in TYPES]
        record += [c.name for c in system.connectors if c.kind == "output"]
    elif isinstance(record, str):
        record = [record]
    return list(dict.fromkeys(record))


def _is_real(name: str, its: dict, system: System) -> bool:
    """Whether a recorded name is a Real variable (a system output: its source's type)."""
    el, var = _split(name, its, system, "record")
    if el is None:
        return True
    v = its[el].variables[var]
    return v.type == "Real"


def _refined(system: System, stop_time: float, step: float, kw: dict, tolerance: Optional[float]) -> CosimResult:
    """run_cosim with check="refine": the run, the run refined, the comparison per connection
    (:mod:`wearcosim.system.refine`); the refined run's values on the run's grid are the result."""
    from . import refine
    tol = refine.TOLERANCE if tolerance is None else _number("check_tolerance", tolerance, positive=True)
    its = _interfaces(system)
    flows = _orient(system, its)
    conns = list(dict.fromkeys((_name(s), _name(d)) for s, d, typ in flows if typ == "Real" and s[0] is not None))
    user = _record_names(kw.pop("record"), its, system)
    names = list(dict.fromkeys(user + [s for s, _ in conns]))
    a = run_cosim(system, stop_time, step, record=names, **kw)
    over, how = refine.refined(step, bool(kw["step_control"]), float(kw["rtol_coupling"]))
    kb = dict(kw)
    h = step
    over = dict(over)
    if "step_divisor" in over:
        h = step / over.pop("step_divisor")
        if kb.get("h_min") is not None:
            kb["h_min"] = min(kb["h_min"], h)
    kb.update(over)
    b = run_cosim(system, stop_time, h, record=names, **kb)
    factor = refine.reduction(bool(kw["step_control"]), int(kw["extrapolation"]))
    # every connection, and every recorded Real signal that is not one (a contact force the user
    # records, computed from the exchanged values, can be further off than any of them)
    sources = {src for src, _ in conns}
    real = {k for k in user if k not in sources and _is_real(k, its, system)}
    pairs = conns + [(k, "(recorded)") for k in user if k in real]
    rows = refine.compare(a.time, a.values, b.time, b.values, pairs, tol, factor)
    worst = refine.first_flagged(rows)
    if worst is not None and not kw["force"]:
        raise refine.RefinementError(system.name, worst, how)
    values = {k: refine.on_grid(a.time, b.time, b.values[k]) for k in user}
    stats = refine.merge_stats(a.stats, b.stats)
    stats["estimate"] = list(b.stats.get("estimate") or []) + rows
    stats["refinement"] = {"how": how, "tolerance": tol, "worst": max(rows, key=lambda r: r["estimate"]) if rows else None}
    if worst is not None and stats.get("flagged") is None:
        stats["flagged"] = {"time": worst["at"], "connection": worst["connection"], "value": worst["estimate"],
                            "tolerance": tol, "check": "refinement"}
    settings = dict(b.settings)
    settings.update(check="refine", check_tolerance=tol, refinement=how)
    return CosimResult(time=a.time.copy(), values=values, steps=b.steps, stats=stats, algorithm=b.algorithm,
                       step=step, terminated=b.terminated or a.terminated, settings=settings)
