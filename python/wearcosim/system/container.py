"""Strong coupling of Model-Exchange FMUs: the container FMU.

:func:`build_container` turns a :class:`~wearcosim.system.model.System` whose components are
Model-Exchange FMUs into ONE FMU (FMI 2.0, Model Exchange + Co-Simulation) that integrates all
the components' continuous states as one ODE with the project's embedded, error-controlled
solvers (DOPRI5 / RODAS4 / auto, event location): a stiff contact across a component boundary
is integrated as stiffly coupled as inside one model.  The coupling runs in C: the container is
a hand-written model (``fmu/container/*.c``, contract ``fmu/runtime/model_api.h`` with its
optional hooks) compiled with the unchanged runtime (``fmu/runtime``); per right-hand side it
calls each component's ``fmi2*`` functions through pointers (the component binaries are loaded
with ``dlopen`` from the container's ``resources/components/<name>/``).

Fast entry points (``fast=True``, the default): a component FMU that carries its sources, made by
this exporter with this runtime and these compiler options (:func:`_fast_units`), is compiled
again with ``fmu/container/ct_fast.c`` into ``resources/components/<name>/fast/<platform>/``
(its own binaries stay in ``binaries/`` as shipped); in continuous time the container then moves
time, states, inputs, outputs, derivatives and indicators through those entry points, a few
calls per right-hand side without the per-call checks of the fmi2 functions, through the same
runtime code, so the results are bit-identical to the fmi2 path (``fmu/container/ct_fast.h``).
Components without suitable sources keep the fmi2 path.  What this module generates per
system:

* ``config.h``: the model_api.h macros of the container's ``v`` layout and the ``CT_*`` sizes;
* ``tables.c``: the variables (``mdl_var``), start values, state nominals (the components'
  ``nominal`` attributes), per component its folder, GUID, state/indicator slices, the values
  forwarded to it (parameters, start values) and read from it (outputs, calculated
  parameters), and the ACTION LIST: ``fmi2Set*`` of inputs and ``fmi2Get*`` of outputs in a
  topological order of the graph "input <- connected output" + "output <- input of the same
  component it depends on" (ModelStructure; no ``dependencies`` attribute = all inputs); a
  loop in that graph (an algebraic loop through direct feedthrough) is refused here;
* ``modelDescription.xml``: every component variable exposed as ``<component>.<variable>``
  (states, derivatives as ``der(<component>.<state>)``, parameters, calculated parameters,
  inputs that are not connected, outputs), the system's own connectors under their names, the
  six ``solver.*`` settings, ``_container.timing`` and the diagnostics ``_container.nRhs``,
  ``nEvents``, ``nPasses``, ``nCalls``, ``timeInComponents``, ``timeInContainer``;
  ModelStructure with every output, derivative and initial unknown (dependencies undeclared,
  i.e. "depends on everything", which is honest).

Derivatives: ``fmi2GetDirectionalDerivative`` of the container (state derivatives and outputs with
respect to states and inputs, ME and CS) goes through the action list like the Jacobian: each
output read is its component's directional derivative with respect to its states and connected
inputs (``mdl_ddir`` in ``fmu/container/ct_eval.c``); so ``providesDirectionalDerivative`` is
``true`` exactly when every component provides them.  The container is compiled with the same
runtime, so its Co-Simulation interface interpolates its Real inputs
(``canInterpolateInputs="true"``, ``fmi2SetRealInputDerivatives`` of order 1 and 2: the moving
input reaches its components at every right-hand side) and gives output derivatives of order 1
(from the directional derivatives when available, else by a difference along the trajectory).

Requirements on the components (refused with a one-line message naming the component and the
port otherwise): FMI 2.0, a Model Exchange interface with a binary for this platform,
``canGetAndSetFMUstate`` and ``canSerializeFMUstate`` (the container's FMU state, its rollback
and serialization include the components' states), no ``needsExecutionTool``; connected ports of
the same type; every input fed at most once; no feedthrough loop.

The order is computed here per variable, not per component
(:func:`wearcosim.system.validate.evaluation_order` orders whole components): a body whose
position feeds a contact whose force feeds the body is a cycle of components but not of
variables (the position is a state), and the action list then needs no extra evaluation of the
body.  Connections are oriented by the causality of their ends (SSP's start/end say nothing of
the direction).

Limits (see fmu/container/container.h): POSIX only (dlopen); the container never calls a
component's ``fmi2CompletedIntegratorStep`` (a warning for components that declare they need
it), so a ``terminate()`` outside a when-clause of a component is noticed at its next event;
time events of components not made by wearcosim become event indicators ``tNext - t`` of the
container (wearcosim FMUs have none); a tunable parameter set while the components are in
continuous time reaches them at the next event (in Co-Simulation: the start of the next
``fmi2DoStep``, whose event iteration the runtime runs after any change).
"""
from __future__ import annotations

import hashlib
import math
import re
import shutil
import tempfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from xml.sax.saxutils import escape, quoteattr

from ..export import package
from .model import System

from ..names import safe_stem
from ..resources import fmu_sources

CONTAINER_SRC = fmu_sources() / "container"
#: compiled into a component's binary, never into the container's (ct_fast.h)
FAST_UNIT, FAST_HEADER = "ct_fast.c", "ct_fast.h"
#: the runtime files whose internals ct_fast.c uses: a component whose sources carry other
#: versions of them keeps the fmi2 path
FAST_RUNTIME = ("model_api.h", "rt_core.h", "rt_ctx.h", "rt_impl.h", "rt_ode.h")

#: runtime log categories (fmu/runtime/rt_ctx.h order): bit k of CtCompInfo.logCats
LOG_CATEGORIES = ("logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logAll")
#: the container's own variables (diagnostics; names under the reserved prefix)
DIAGNOSTICS = [
    ("nRhs", "", "Right-hand side evaluations of the container (each calls every component)"),
    ("nEvents", "", "Event iterations completed (initialization included)"),
    ("nPasses", "", "Passes of the components' event protocol (fmi2NewDiscreteStates rounds)"),
    ("nCalls", "", "Calls into the components (fmi2 functions, or the fast entry points of ct_fast.h)"),
    ("timeInComponents", "s", "Wall-clock time spent inside component fmi2 calls "
                               "(measured only while _container.timing is true)"),
    ("timeInContainer", "s", "Wall-clock time of the container's evaluation outside the component "
                              "calls (measured only while _container.timing is true)"),
]
RESERVED = ("solver", "_container")
MT = {"Real": 0, "Integer": 1, "Boolean": 2}


class ContainerError(ValueError):
    """A system that cannot become a container FMU; the message is one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


# ------------------------------------------------------------------------------ components

@dataclass
class _Comp:
    name: str
    path: Path
    md: object
    index: int
    folder: str = ""
    prefix: str = ""
    states: list = field(default_factory=list)       # ModelVariable, state order
    ders: list = field(default_factory=list)
    state_vrs: dict = field(default_factory=dict)    # vr -> index in states
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    params: list = field(default_factory=list)
    calcs: list = field(default_factory=list)
    byname: dict = field(default_factory=dict)
    deps: dict = field(default_factory=dict)         # output name -> set of input names | None
    nz: int = 0
    wearcosim: bool = False
    bindings: dict = field(default_factory=dict)


def _vtype(var) -> str:
    t = var.type
    return "Integer" if t == "Enumeration" else t


def _num(x, typ="Real", default=0.0) -> float:
    if x is None or x == "":
        return float(default)
    if isinstance(x, str) and typ == "Boolean":
        return 1.0 if x.strip().lower() in ("true", "1") else 0.0
    try:
        return float(x)
    except (TypeError, ValueError):
        raise ContainerError(f"not a number: {x!r}") from None


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else \
        "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _read_component(comp, index: int) -> _Comp:
    from fmpy import platform, sharedLibraryExtension

    from .validate import interface
    where = f"component '{comp.name}'"
    if comp.path is None:
        raise ContainerError(f"{where}: no FMU file (source {comp.source!r} not resolved)")
    path = Path(comp.path)
    if not path.is_file():
        raise ContainerError(f"{where}: no such FMU file: {path}")
    it = interface(path)          # archive checks + modelDescription.xml, cached per file version
    if it.error:
        raise ContainerError(f"{where} ({path.name}): cannot read the FMU: {it.error}")
    md = it.md
    where = f"component '{comp.name}' ({path.name})"
    if not str(md.fmiVersion).startswith("2."):
        raise ContainerError(f"{where}: FMI {md.fmiVersion}; the container takes FMI 2.0 components")
    me = md.modelExchange
    if me is None:
        raise ContainerError(f"{where}: no Model Exchange interface; strong coupling integrates the "
                             f"components' Model-Exchange interfaces in one solver (a Co-Simulation-only FMU "
                             f"belongs in the Co-Simulation master)")
    if comp.implementation == "CoSimulation":
        raise ContainerError(f"{where}: the system asks for its Co-Simulation implementation; the container "
                             f"uses Model Exchange")
    if not me.canGetAndSetFMUstate:
        raise ContainerError(f"{where}: its Model Exchange interface does not declare canGetAndSetFMUstate; "
                             f"the container's FMU state (rollback, event recovery) includes the components' states")
    if not me.canSerializeFMUstate:
        raise ContainerError(f"{where}: its Model Exchange interface does not declare canSerializeFMUstate; "
                             f"the container's serialized FMU state includes the components' states")
    if me.needsExecutionTool:
        raise ContainerError(f"{where}: needs an execution tool, which a container cannot provide")
    if getattr(me, "needsCompletedIntegratorStep", False):     # (FMPy's reading of the attribute)
        warnings.warn(f"{where}: declares completedIntegratorStepNotNeeded=false; the container never calls "
                      f"its fmi2CompletedIntegratorStep", stacklevel=3)
    lib = f"binaries/{platform}/{me.modelIdentifier}{sharedLibraryExtension}"
    with zipfile.ZipFile(path) as z:
        if lib not in z.namelist():
            raise ContainerError(f"{where}: no Model Exchange binary for this platform ({lib} missing)")
    c = _Comp(comp.name, path, md, index)
    c.wearcosim = str(md.generationTool or "").startswith("wearcosim")
    c.byname = {v.name: v for v in md.modelVariables}
    for u in md.derivatives:
        der = u.variable
        st = der.derivative
        if st is None:
            raise ContainerError(f"{where}: derivative '{der.name}' names no state")
        c.state_vrs.setdefault(st.valueReference, len(c.states))
        c.states.append(st)
        c.ders.append(der)
    c.nz = int(md.numberOfEventIndicators or 0)
    for v in md.modelVariables:
        t = v.type
        if v.causality == "input" and t != "String":      # (a String input keeps its start value)
            c.inputs.append(v)
        elif v.causality == "output" and t != "String":
            c.outputs.append(v)
        elif v.causality == "parameter" and t != "String" and v.variability in ("fixed", "tunable"):
            if c.wearcosim and v.name.startswith("solver."):
                continue      # the components' own Co-Simulation solver settings: unused in ME
            c.params.append(v)
        elif v.causality == "calculatedParameter" and t != "String":
            c.calcs.append(v)
    in_names = {v.name for v in c.inputs}
    for u in md.outputs:
        if u.dependencies is None:
            c.deps[u.variable.name] = None
        else:
            c.deps[u.variable.name] = {d.name for d in u.dependencies if d.name in in_names}
    for name, value in (comp.parameters or {}).items():
        v = c.byname.get(name)
        if v is None:
            raise ContainerError(f"{where}: parameter binding '{name}': no such variable")
        if v.causality not in ("parameter", "input") and not (
                v.valueReference in c.state_vrs and v.initial in ("exact", "approx")):
            raise ContainerError(f"{where}: parameter binding '{name}': a {v.causality} variable cannot be "
                                 f"set before initialization")
        try:
            c.bindings[name] = _num(value, _vtype(v))
        except ContainerError:
            raise ContainerError(f"{where}: parameter binding '{name}' = {value!r} is not a value of "
                                 f"type {v.type}") from None
    return c


# ------------------------------------------------------------------------------ layout

@dataclass
class _Slot:
    name: Optional[str]              # None: internal (no ScalarVariable)
    type: str = "Real"
    kind: str = "MK_INTERNAL"
    start: float = 0.0
    min: float = -math.inf
    max: float = math.inf
    unit: str = ""
    description: str = ""
    causality: str = "local"
    variability: str = "continuous"
    initial: Optional[str] = None
    xml_start: bool = False          # write the start attribute
    derivative_of: int = -1          # DX: slot of its state
    nominal: Optional[float] = None


def _bound(x, default):
    try:
        return float(x) if x not in (None, "") else default
    except (TypeError, ValueError):
        return default


def _unit(var) -> str:
    u = var.unit
    if not u and var.declaredType is not None:
        u = getattr(var.declaredType, "unit", None)
    return u or ""


class _Layout:
    def __init__(self):
        self.slots: list = []
        self.off: dict = {}
        self.n: dict = {}

    def begin(self, key):
        self.off[key] = len(self.slots)

    def end(self, key):
        self.n[key] = len(self.slots) - self.off[key]

    def add(self, s: _Slot) -> int:
        self.slots.append(s)
        return len(self.slots) - 1


# ------------------------------------------------------------------------------ connections

def _sys_where(system: System) -> str:
    """How messages name the system: its file, else its name."""
    return str(system.file) if getattr(system, "file", None) is not None else (system.name or "system")


def _endpoint(system: System, comps: dict, elem, conn, text: str):
    """(role, where, type, payload): role 'source' or 'sink'; payload the component variable
    (with its _Comp) or the system connector."""
    if elem is None:
        c = next((x for x in system.connectors if x.name == conn), None)
        if c is None:
            raise ContainerError(f"{_sys_where(system)}: connection {text}: the system has no connector '{conn}'")
        if c.kind not in ("input", "output"):
            raise ContainerError(f"{_sys_where(system)}: connection {text}: system connector '{conn}' is a {c.kind}; "
                                 f"only inputs and outputs can be connected")
        return ("source" if c.kind == "input" else "sink"), conn, c.type, ("sys", c)
    comp = comps.get(elem)
    if comp is None:
        raise ContainerError(f"{_sys_where(system)}: connection {text}: no component '{elem}' in the system")
    var = comp.byname.get(conn)
    if var is None:
        raise ContainerError(f"{_sys_where(system)}: connection {text}: component '{elem}' ({comp.path.name}) has no "
                             f"variable '{conn}'")
    if var.causality not in ("input", "output"):
        raise ContainerError(f"{_sys_where(system)}: connection {text}: '{conn}' of component '{elem}' is a "
                             f"{var.causality}; only inputs and outputs can be connected")
    if var.type == "String":
        raise ContainerError(f"{_sys_where(system)}: connection {text}: '{elem}.{conn}' is a String; the container "
                             f"moves Real, Integer, Boolean and Enumeration values")
    return ("source" if var.causality == "output" else "sink"), f"{elem}.{conn}", _vtype(var), ("comp", comp, var)


def _orient(system: System, comps: dict):
    """[(source payload, sink payload)] for every connection, oriented by causality."""
    flows = []
    for cn in system.connections:
        text = f"{cn.start} -> {cn.end}"
        a = _endpoint(system, comps, cn.start_element, cn.start_connector, text)
        b = _endpoint(system, comps, cn.end_element, cn.end_connector, text)
        if a[0] == b[0]:
            two = "outputs" if a[0] == "source" else "inputs"
            raise ContainerError(f"{_sys_where(system)}: connection {text} joins two {two} ({a[1]} and {b[1]})")
        src, dst = (a, b) if a[0] == "source" else (b, a)
        if src[2] != dst[2]:
            raise ContainerError(f"{_sys_where(system)}: connection {text}: {src[1]} is {src[2]} but {dst[1]} is "
                                 f"{dst[2]}")
        flows.append((src, dst))
    return flows


# ------------------------------------------------------------------------------ the build

@dataclass
class _Plan:
    name: str
    identifier: str
    layout: _Layout
    comps: list
    comp_rows: list = field(default_factory=list)      # per component dict for ct_comp
    actions: list = field(default_factory=list)        # (op, type, comp, [(vr, slot)], discrete)
    outs: list = field(default_factory=list)           # (vr, slot, type)
    fwds: list = field(default_factory=list)           # (vr, slot, type, kind, the component's start)
    calcs: list = field(default_factory=list)          # (vr, slot, type)
    copies: list = field(default_factory=list)         # (dst, src)
    nominals: list = field(default_factory=list)
    n_z: int = 0
    experiment: dict = field(default_factory=dict)
    description: str = ""
    structured: bool = True
    slot_timing: int = 0
    slot_diag: int = 0


def _plan(system: System, name: str, identifier: str) -> _Plan:
    from ..export.codegen import SOLVER_PARAMS
    if not system.components:
        raise ContainerError(f"{_sys_where(system)}: the system has no components")
    seen = set()
    for c in system.components:
        if not c.name:
            raise ContainerError(f"{_sys_where(system)}: a component without a name")
        if c.name in seen:
            raise ContainerError(f"{_sys_where(system)}: two components are named '{c.name}'")
        if c.name in RESERVED:
            raise ContainerError(f"{_sys_where(system)}: component name '{c.name}' is reserved for the container's "
                                 f"own variables ({', '.join(RESERVED)})")
        seen.add(c.name)
    comps = [_read_component(c, i) for i, c in enumerate(system.components)]
    byname = {c.name: c for c in comps}
    used = set()
    for c in comps:
        c.prefix = _ident(c.name)
        folder = safe_stem(c.name, "component")         # wearcosim.names: the one rule
        base, k = folder, 2
        while folder.lower() in used:
            folder = f"{base}_{k}"
            k += 1
        used.add(folder.lower())
        c.folder = folder

    flows = _orient(system, byname)
    feed = {}            # (comp index, input name) -> source payload
    sys_out = {}         # system output name -> source payload
    for src, dst in flows:
        if dst[3][0] == "comp":
            key = (dst[3][1].index, dst[3][2].name)
            if key in feed:
                raise ContainerError(f"{_sys_where(system)}: input {dst[1]} is connected twice "
                                     f"(from {_where(feed[key])} and {src[1]})")
            feed[key] = src[3]
        else:
            if dst[1] in sys_out:
                raise ContainerError(f"{_sys_where(system)}: system output '{dst[1]}' is connected twice")
            sys_out[dst[1]] = src[3]
    for conn in system.connectors:
        if conn.kind == "output" and conn.name not in sys_out:
            raise ContainerError(f"{_sys_where(system)}: system output '{conn.name}' is not connected")
        if conn.kind in ("input", "output") and conn.type not in MT and conn.type != "Enumeration":
            raise ContainerError(f"{_sys_where(system)}: system connector '{conn.name}' is a {conn.type}; the "
                                 f"container moves Real, Integer, Boolean and Enumeration values")

    L = _Layout()
    P = _Plan(name, identifier, L, comps)
    P.structured = all(getattr(c.md, "variableNamingConvention", "flat") == "structured" for c in comps)

    # X, DX
    L.begin("X")
    xslot = {}                        # (comp, vr) -> slot of the state
    fwd_by_comp = {c.index: [] for c in comps}
    for c in comps:
        for s in c.states:
            settable = s.initial in ("exact", "approx")
            start = c.bindings.get(s.name, _num(s.start)) if s.start is not None or s.name in c.bindings else 0.0
            k = L.add(_Slot(f"{c.prefix}.{s.name}", "Real", "MK_STATE" if settable else "MK_COMPUTED", start,
                            unit=_unit(s), description=s.description or "", causality=s.causality or "local",
                            variability="continuous", initial=s.initial, xml_start=settable and s.start is not None,
                            nominal=_bound(s.nominal, None)))
            xslot[(c.index, s.valueReference)] = k
            if settable:
                fwd_by_comp[c.index].append((s.valueReference, k, "Real", 4, _bound(s.start, math.nan)))
            nom = _bound(s.nominal, 1.0)
            P.nominals.append(nom if math.isfinite(nom) and nom > 0 else 1.0)
    L.end("X")
    L.begin("DX")
    for c in comps:
        for s, d in zip(c.states, c.ders):
            L.add(_Slot(f"der({c.prefix}.{s.name})", "Real", "MK_DERIV", 0.0, unit=_unit(d),
                        description=d.description or f"Time derivative of {c.name}.{s.name}",
                        causality="local", initial="calculated",
                        derivative_of=xslot[(c.index, s.valueReference)]))
    L.end("DX")

    # P: parameters, calculated parameters, solver settings, container settings
    L.begin("P")
    for c in comps:
        for p in c.params:
            t = _vtype(p)
            kind = "MK_PARAM_TUNABLE" if p.variability == "tunable" else "MK_PARAM_FIXED"
            start = c.bindings.get(p.name, _num(p.start, t))
            k = L.add(_Slot(f"{c.prefix}.{p.name}", t, kind, start, _bound(p.min, -math.inf),
                            _bound(p.max, math.inf), _unit(p), p.description or "", "parameter", p.variability,
                            "exact", True))
            fwd_by_comp[c.index].append((p.valueReference, k, t, 2 if kind == "MK_PARAM_TUNABLE" else 1,
                                         _num(p.start, t) if p.start not in (None, "") else math.nan))
    calc_by_comp = {c.index: [] for c in comps}
    for c in comps:
        for p in c.calcs:
            t = _vtype(p)
            k = L.add(_Slot(f"{c.prefix}.{p.name}", t, "MK_CALC_PARAM", _num(p.start, t), unit=_unit(p),
                            description=p.description or "", causality="calculatedParameter",
                            variability=p.variability or "fixed", initial="calculated"))
            calc_by_comp[c.index].append((p.valueReference, k, t))
    off_solver = len(L.slots)
    for sname, typ, start, lo, hi, desc in SOLVER_PARAMS:
        L.add(_Slot(sname, typ, "MK_PARAM_TUNABLE", float(start), float(lo), float(hi), "", desc, "parameter",
                    "tunable", "exact", True))
    P.slot_timing = L.add(_Slot("_container.timing", "Boolean", "MK_PARAM_TUNABLE", 0.0, 0.0, 1.0, "",
                                "Measure the wall-clock time inside and outside the components "
                                "(_container.timeInComponents, _container.timeInContainer)", "parameter",
                                "tunable", "exact", True))
    L.end("P")

    # U: system inputs, unconnected component inputs
    L.begin("U")
    sys_in_slot = {}
    for conn in system.connectors:
        if conn.kind != "input":
            continue
        fed = [(c, v) for c in comps for v in c.inputs if feed.get((c.index, v.name)) == ("sys", conn)]
        t = "Integer" if conn.type == "Enumeration" else conn.type
        start = _num(fed[0][1].start, t) if fed and fed[0][1].start is not None else 0.0
        if fed:
            start = fed[0][0].bindings.get(fed[0][1].name, start)
        sys_in_slot[conn.name] = L.add(_Slot(conn.name, t, "MK_INPUT", start, unit=conn.unit or "",
                                             description=conn.description or "", causality="input",
                                             variability="continuous" if t == "Real" else "discrete",
                                             xml_start=True))
    own_in_slot = {}
    for c in comps:
        for v in c.inputs:
            if (c.index, v.name) in feed:
                continue
            t = _vtype(v)
            start = c.bindings.get(v.name, _num(v.start, t))
            own_in_slot[(c.index, v.name)] = L.add(_Slot(
                f"{c.prefix}.{v.name}", t, "MK_INPUT", start, _bound(v.min, -math.inf), _bound(v.max, math.inf),
                _unit(v), v.description or "", "input", "continuous" if t == "Real" else "discrete", None, True))
    L.end("U")

    # Y: outputs (not states), system outputs, diagnostics
    L.begin("Y")
    out_slot = {}                     # (comp, output name) -> slot holding its value
    out_by_comp = {c.index: [] for c in comps}
    for c in comps:
        for v in sorted(c.outputs, key=lambda v: MT[_vtype(v)]):
            t = _vtype(v)
            sx = xslot.get((c.index, v.valueReference)) if t == "Real" else None
            if sx is not None and L.slots[sx].name == f"{c.prefix}.{v.name}":
                out_slot[(c.index, v.name)] = sx          # the state itself is the output
                continue
            k = L.add(_Slot(f"{c.prefix}.{v.name}", t, "MK_COMPUTED", 0.0, unit=_unit(v),
                            description=v.description or "", causality="output",
                            variability=v.variability or ("continuous" if t == "Real" else "discrete"),
                            initial="calculated"))
            out_slot[(c.index, v.name)] = k
            if sx is not None:
                P.copies.append((k, sx))                  # an alias of a state
            else:
                out_by_comp[c.index].append((v.valueReference, k, t, t == "Real" and v.variability == "discrete"))
    for conn in system.connectors:
        if conn.kind != "output":
            continue
        src = sys_out[conn.name]
        t = "Integer" if conn.type == "Enumeration" else conn.type
        k = L.add(_Slot(conn.name, t, "MK_COMPUTED", 0.0, unit=conn.unit or "", description=conn.description or "",
                        causality="output", variability="continuous" if t == "Real" else "discrete",
                        initial="calculated"))
        P.copies.append((k, sys_in_slot[src[1].name] if src[0] == "sys" else out_slot[(src[1].index, src[2].name)]))
    P.slot_diag = len(L.slots)
    for dname, unit, desc in DIAGNOSTICS:
        L.add(_Slot(f"_container.{dname}", "Real", "MK_COMPUTED", 0.0, unit=unit, description=desc,
                    causality="local", initial="calculated"))
    L.end("Y")
    names = [s.name for s in L.slots if s.name]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ContainerError(f"{_sys_where(system)}: container variable name {dup[0]!r} occurs twice (a system "
                             f"connector named like a component variable?)")

    # M, MPRE (memories), ZV (indicators), TNEXT (time events)
    tev = {}
    n_z = sum(c.nz for c in comps)
    for c in comps:
        if not c.wearcosim:                   # wearcosim FMUs never have time events (G8)
            tev[c.index] = n_z
            n_z += 1
    P.n_z = n_z
    for key in ("M", "MPRE"):
        L.begin(key)
        for _ in range(n_z):
            L.add(_Slot(None, "Boolean"))
        L.end(key)
    L.begin("ZV")
    for _ in range(n_z):
        L.add(_Slot(None))
    L.end("ZV")
    L.begin("TNEXT")
    for _ in comps:
        L.add(_Slot(None, start=math.inf))
    L.end("TNEXT")

    # the action list
    def source_slot(payload):
        if payload[0] == "sys":
            return sys_in_slot[payload[1].name]
        sc, sv = payload[1], payload[2]
        if _vtype(sv) == "Real" and (sc.index, sv.valueReference) in xslot:
            return xslot[(sc.index, sv.valueReference)]      # a state (or its alias): no call
        return out_slot[(sc.index, sv.name)]

    P.actions = _action_list(system, comps, feed, own_in_slot, sys_in_slot, out_slot, xslot, source_slot)

    zoff = 0
    xoff = 0
    for c in comps:
        outs, fw, cl = out_by_comp[c.index], fwd_by_comp[c.index], calc_by_comp[c.index]
        cats = {cat.name for cat in (c.md.logCategories or [])}
        row = dict(name=c.name, folder=c.folder, identifier=c.md.modelExchange.modelIdentifier, guid=c.md.guid,
                   nx=len(c.states), xoff=xoff, nz=c.nz, zoff=zoff, tev=tev.get(c.index, -1),
                   outFirst=len(P.outs), outN=len(outs), fwdFirst=len(P.fwds), fwdN=len(fw),
                   calcFirst=len(P.calcs), calcN=len(cl),
                   dd=int(bool(c.md.modelExchange.providesDirectionalDerivative)),
                   n_in_real=sum(len(a[3]) for a in P.actions if a[0] == 0 and a[2] == c.index and a[1] == "Real" and not a[4]),
                   logCats=sum(1 << i for i, n in enumerate(LOG_CATEGORIES) if n in cats))
        P.outs += outs
        P.fwds += fw
        P.calcs += cl
        P.comp_rows.append(row)
        zoff += c.nz
        xoff += len(c.states)
    L.off["SOLVER"] = off_solver

    # experiment: the system's, else the components' (earliest start, latest stop, finest)
    exps = [c.md.defaultExperiment for c in comps if c.md.defaultExperiment is not None]

    def pick(attr, fn):
        vals = [float(getattr(e, attr)) for e in exps if getattr(e, attr) not in (None, "")]
        return fn(vals) if vals else None
    start = system.start_time if system.start_time is not None else pick("startTime", min)
    stop = system.stop_time if system.stop_time is not None else pick("stopTime", max)
    P.experiment = {k: v for k, v in (("startTime", start), ("stopTime", stop),
                                      ("tolerance", pick("tolerance", min)), ("stepSize", pick("stepSize", min)))
                    if v is not None}
    P.description = system.description or (f"Strongly coupled container of {', '.join(c.name for c in comps)} "
                                            f"(Model Exchange components, one solver)")
    return P


def _where(payload) -> str:
    return payload[1].name if payload[0] == "sys" else f"{payload[1].name}.{payload[2].name}"


def _action_list(system, comps, feed, own_in_slot, sys_in_slot, out_slot, xslot, source_slot):
    """Topological order of SET (inputs) and GET (outputs) nodes -> [(op, type, comp, [(vr, slot)])]."""
    nodes = {}        # key -> dict(op, comp, var, slot)
    succ = {}
    indeg = {}

    def node(key, **kw):
        if key not in nodes:
            nodes[key] = kw
            succ[key] = []
            indeg[key] = 0
        return key

    def edge(a, b):
        succ[a].append(b)
        indeg[b] += 1

    for c in comps:
        for v in c.inputs:
            src = feed.get((c.index, v.name))
            if src is None:
                slot = own_in_slot[(c.index, v.name)]
            else:
                slot = source_slot(src)
            n_in = node(("in", c.index, v.name), op=0, comp=c, var=v, slot=slot)
            if src is not None and src[0] == "comp":
                sc, sv = src[1], src[2]
                if (sc.index, sv.valueReference) in xslot and _vtype(sv) == "Real":
                    continue                      # a state: known from the start
                n_out = node(("out", sc.index, sv.name), op=1, comp=sc, var=sv, slot=out_slot[(sc.index, sv.name)])
                edge(n_out, n_in)
    # output <- inputs it depends on (ModelStructure; undeclared: all)
    for key in list(nodes):
        if key[0] != "out":
            continue
        c = nodes[key]["comp"]
        dep = c.deps.get(key[2], None)
        ins = [v.name for v in c.inputs] if dep is None else sorted(dep)
        for i in ins:
            edge(("in", c.index, i), key)
    # Kahn: all ready inputs first (setting them costs nothing), then the ready outputs of one component
    ready = [k for k in nodes if indeg[k] == 0]
    order = []
    while ready:
        ins = [k for k in ready if k[0] == "in"]
        if ins:
            batch = ins
        else:
            first = min(k[1] for k in ready)
            batch = [k for k in ready if k[1] == first]
        for k in batch:
            ready.remove(k)
        for k in sorted(batch, key=lambda k: (k[1], MT[_vtype(nodes[k]["var"])], nodes[k]["var"].valueReference)):
            order.append(k)
            for s in succ[k]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    ready.append(s)
    if len(order) < len(nodes):
        raise ContainerError(f"{_sys_where(system)}: feedthrough loop (algebraic loop across components): "
                             f"{_cycle(nodes, succ, indeg)}; break it with a component whose output does not depend "
                             f"directly on its input (a state) or put the loop inside one component")
    actions = []
    for k in order:
        nd = nodes[k]
        t = _vtype(nd["var"])
        disc = t != "Real" or nd["var"].variability == "discrete"
        entry = (nd["var"].valueReference, nd["slot"])
        last = actions[-1] if actions else None
        if last and last[0] == nd["op"] and last[1] == t and last[2] == nd["comp"].index and last[4] == disc:
            last[3].append(entry)
        else:
            actions.append((nd["op"], t, nd["comp"].index, [entry], disc))
    return actions


def _cycle(nodes, succ, indeg) -> str:
    left = {k for k in nodes if indeg[k] > 0}
    start = min(left)
    path, seen = [start], {start: 0}
    while True:
        nxt = min(s for s in succ[path[-1]] if s in left)
        if nxt in seen:
            loop = path[seen[nxt]:] + [nxt]
            break
        seen[nxt] = len(path)
        path.append(nxt)
    parts = []
    for k in loop:
        nd = nodes[k]
        parts.append(f"{'input' if k[0] == 'in' else 'output'} {nd['comp'].name}.{nd['var'].name}")
    return " -> ".join(parts)


# ------------------------------------------------------------------------------ rendering

def _cstr(s: str) -> str:
    out = []
    for b in (s or "").encode("utf-8"):
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= b < 127 and ch != "?":
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _cnum(x: float) -> str:
    x = float(x)
    if math.isinf(x):
        return "INFINITY" if x > 0 else "(-INFINITY)"
    if math.isnan(x):
        return "NAN"
    return repr(x)


def _render_config(P: _Plan, guid: str) -> str:
    L = P.layout
    nv = len(L.slots)
    off = dict(L.off)
    n = dict(L.n)
    end_y = off["Y"] + n["Y"]
    exp = P.experiment
    all_dd = int(all(r["dd"] for r in P.comp_rows))
    maxdd = max([r["nx"] + r["n_in_real"] for r in P.comp_rows] + [r["outN"] for r in P.comp_rows] +
                [len(a[3]) for a in P.actions] + [1])
    maxvals = max([len(a[3]) for a in P.actions] + [r["outN"] for r in P.comp_rows] +
                  [r["calcN"] for r in P.comp_rows] + [1])
    macros = [
        ("MODEL_IDENTIFIER", P.identifier), ("MODEL_GUID", f'"{guid}"'),
        ("MDL_HAS_HOOKS", "1"),
        ("NV", nv), ("N_X", n["X"]), ("OFF_X", off["X"]), ("OFF_DX", off["DX"]),
        ("OFF_P", off["P"]), ("N_P", n["P"]), ("N_P_INDEP", n["P"]), ("N_P_CALC", 0),
        ("OFF_U", off["U"]), ("N_U", n["U"]), ("OFF_Y", off["Y"]), ("N_Y", n["Y"]),
        ("OFF_D", end_y), ("N_D", 0), ("N_DALG", 0), ("OFF_DPRE", end_y),
        ("OFF_M", off["M"]), ("N_M", n["M"]), ("OFF_MPRE", off["MPRE"]),
        ("OFF_C", off["ZV"]), ("N_C", 0), ("OFF_CPRE", off["ZV"]), ("OFF_W", off["ZV"]), ("N_W", 0),
        ("N_Z", "N_M"),
        ("OFF_SOLVER", off["SOLVER"]),
        ("OFF_SOLVER_METHOD", "(OFF_SOLVER + 0)"), ("OFF_SOLVER_RTOL", "(OFF_SOLVER + 1)"),
        ("OFF_SOLVER_ATOL", "(OFF_SOLVER + 2)"), ("OFF_SOLVER_HMAX", "(OFF_SOLVER + 3)"),
        ("OFF_SOLVER_MAXSTEPS", "(OFF_SOLVER + 4)"), ("OFF_SOLVER_MAXSTEPTIME", "(OFF_SOLVER + 5)"),
        ("OFF_SOLVER_INPUTEXTRAPOLATION", "(OFF_SOLVER + 6)"),
        ("HAS_JACOBIAN", all_dd), ("CT_ALL_DD", all_dd), ("CT_MAXDD", maxdd),
        # mdl_deriv refuses NaN/Inf derivatives (ct_finish), the solver does not test them again
        ("MDL_DERIV_CHECKS_FINITE", 1),
        ("MDL_HAS_DDIR", all_dd), ("N_OUTLIST", len(_outlist(P))),
        ("DEFAULT_START_TIME", _cnum(exp.get("startTime", 0.0))),
        ("DEFAULT_STOP_TIME", _cnum(exp.get("stopTime", 1.0))),
        ("DEFAULT_TOLERANCE", _cnum(exp.get("tolerance", 1e-6))),
        ("OFF_ZV", off["ZV"]), ("OFF_TNEXT", off["TNEXT"]),
        ("CT_NCOMP", len(P.comps)), ("CT_N_ACT", len(P.actions)),
        ("CT_N_ACTVAL", sum(len(a[3]) for a in P.actions)), ("CT_N_OUT", len(P.outs)),
        ("CT_N_FWD", len(P.fwds)), ("CT_N_CALC", len(P.calcs)), ("CT_N_COPY", len(P.copies)),
        ("CT_MAXVALS", maxvals), ("CT_SLOT_TIMING", P.slot_timing), ("CT_SLOT_DIAG", P.slot_diag),
        ("CT_N_DIAG", len(DIAGNOSTICS)),
    ]
    lines = [f"/* Generated by wearcosim (system container {P.name}) -- do not edit. */",
             "/* The container of fmu/container/ (container.h): model_api.h macros + CT_* sizes. */",
             "#ifndef WEARCOSIM_CONFIG_H", "#define WEARCOSIM_CONFIG_H", ""]
    lines += [f"#define {k} {v}" for k, v in macros]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


def _outlist(P: _Plan) -> list:
    """The container's output slots the runtime differentiates (model_api.h mdl_outlist): the Real
    outputs outside the state slice (the states that are outputs are their own derivatives)."""
    L = P.layout
    x0, x1 = L.off["X"], L.off["X"] + L.n["X"]
    return [k for k, s in enumerate(L.slots)
            if s.name and s.causality == "output" and s.type == "Real" and not x0 <= k < x1]


def _render_tables(P: _Plan) -> str:
    L = P.layout
    out = [f"/* Generated by wearcosim (system container {P.name}) -- do not edit. */",
           "/* Tables of the container (fmu/container/container.h). */",
           "#include <math.h>", '#include "container.h"', ""]

    def arr(decl, rows, empty):
        out.append(f"{decl} = {{")
        out.extend(f"    {r}," for r in (rows or [empty]))
        out.append("};")
        out.append("")

    arr("const MdlVar mdl_var[NV]",
        [f"{{{_cstr(s.name) if s.name else '0'}, MT_{s.type.upper()}, {s.kind}, {_cnum(s.min)}, {_cnum(s.max)}}}"
         f"   /* {k} */" for k, s in enumerate(L.slots)], None)
    arr("const double mdl_x_nominal[N_X > 0 ? N_X : 1]", [_cnum(x) for x in P.nominals], "1.0")
    arr("const double ct_start[NV]", [_cnum(s.start) for s in L.slots], None)
    comp_rows = []
    for r in P.comp_rows:
        comp_rows.append("{" + ", ".join([_cstr(r["name"]), _cstr(r["folder"]), _cstr(r["identifier"]),
                                          _cstr(r["guid"])] +
                                         [str(r[k]) for k in ("nx", "xoff", "nz", "zoff", "tev", "outFirst", "outN",
                                                              "fwdFirst", "fwdN", "calcFirst", "calcN", "dd")] +
                                         [f"{r['logCats']}u"]) + "}")
    arr("const CtCompInfo ct_comp[]", comp_rows, None)
    acts, vals = [], []
    for op, t, ci, entries, disc in P.actions:
        contig = int(all(entries[i + 1][1] == entries[i][1] + 1 for i in range(len(entries) - 1)))
        acts.append(f"{{{'CT_GET' if op else 'CT_SET'}, MT_{t.upper()}, {int(disc)}, {contig}, {ci}, {len(vals)}, "
                    f"{len(entries)}}}   /* {P.comps[ci].name} */")
        vals += [f"{{{vr}u, {slot}, MT_{t.upper()}, 0}}   /* {L.slots[slot].name or slot} */" for vr, slot in entries]
    arr("const CtAction ct_act[]", acts, "{0, 0, 0, 0, 0, 0, 0}")
    arr("const CtVal ct_act_val[]", vals, "{0u, 0, 0, 0}")
    arr("const CtVal ct_out[]", [f"{{{vr}u, {slot}, MT_{t.upper()}, {int(disc)}}}   /* {L.slots[slot].name} */"
                                 for vr, slot, t, disc in P.outs], "{0u, 0, 0, 0}")
    arr("const int mdl_outlist[]", [f"{k}   /* {L.slots[k].name} */" for k in _outlist(P)], "-1")
    arr("const CtVal ct_fwd[]", [f"{{{vr}u, {slot}, MT_{t.upper()}, {kind}}}   /* {L.slots[slot].name} */"
                                 for vr, slot, t, kind, _ in P.fwds], "{0u, 0, 0, 0}")
    arr("const double ct_fwd_start[]", [_cnum(x) for *_, x in P.fwds], "0.0")
    arr("const CtVal ct_calc[]", [f"{{{vr}u, {slot}, MT_{t.upper()}, 0}}   /* {L.slots[slot].name} */"
                                  for vr, slot, t in P.calcs], "{0u, 0, 0, 0}")
    arr("const CtCopy ct_copy[]", [f"{{{d}, {s}}}" for d, s in P.copies], "{0, 0}")
    arr("const unsigned int ct_state_vr[]", [f"{s.valueReference}u" for c in P.comps for s in c.states], "0u")
    arr("const unsigned int ct_der_vr[]", [f"{d.valueReference}u" for c in P.comps for d in c.ders], "0u")
    return "\n".join(out)


def _fmt(x: float, typ: str) -> str:
    if typ == "Boolean":
        return "true" if x else "false"
    if typ == "Integer":
        return str(int(round(x)))
    return repr(float(x))


def _render_xml(P: _Plan, guid: str, sources) -> str:
    L = P.layout
    files = "    <SourceFiles>\n" + "\n".join(f'      <File name="{f}"/>' for f in sources) + "\n    </SourceFiles>"
    # directional derivatives: through the components' own (mdl_ddir), so only when all provide them
    all_dd = all(r["dd"] for r in P.comp_rows)
    caps = ('canGetAndSetFMUstate="true" canSerializeFMUstate="true" '
            f'providesDirectionalDerivative="{"true" if all_dd else "false"}" '
            'canNotUseMemoryManagementFunctions="true"')
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<!-- Generated by wearcosim (system container {escape(P.name)}): do not edit. -->',
           f'<fmiModelDescription fmiVersion="2.0" modelName={quoteattr(P.name)} guid={quoteattr(guid)} '
           f'description={quoteattr(P.description)} generationTool="wearcosim (container)" '
           f'variableNamingConvention="{"structured" if P.structured else "flat"}" '
           f'numberOfEventIndicators="{P.n_z}">',
           f'  <ModelExchange modelIdentifier={quoteattr(P.identifier)} {caps} '
           f'completedIntegratorStepNotNeeded="true">',
           files, '  </ModelExchange>',
           f'  <CoSimulation modelIdentifier={quoteattr(P.identifier)} {caps} '
           f'canHandleVariableCommunicationStepSize="true" canInterpolateInputs="true" maxOutputDerivativeOrder="1">',
           files, '  </CoSimulation>']
    units = sorted({s.unit for s in L.slots if s.name and s.unit and s.type == "Real"})
    if units:
        from ..export import units as _units
        out.append('  <UnitDefinitions>')
        for u in units:
            try:            # SI base-unit exponents; a component's unit outside the grammar stays bare
                base = _units.base_unit_attrs(u)
            except _units.UnitError:
                base = None
            if base is None:
                out.append(f'    <Unit name={quoteattr(u)}/>')
            else:
                out += [f'    <Unit name={quoteattr(u)}>', f'      <BaseUnit {base}/>'.replace(" />", "/>"),
                        '    </Unit>']
        out.append('  </UnitDefinitions>')
    out.append('  <LogCategories>')
    out += [f'    <Category name="{c}"/>' for c in LOG_CATEGORIES]
    out.append('  </LogCategories>')
    if P.experiment:
        attrs = " ".join(f'{k}="{P.experiment[k]!r}"' for k in ("startTime", "stopTime", "tolerance", "stepSize")
                         if k in P.experiment)
        out.append(f'  <DefaultExperiment {attrs}/>')
    out.append('  <ModelVariables>')
    exported = [k for k, s in enumerate(L.slots) if s.name]
    index = {k: i for i, k in enumerate(exported, 1)}
    for k in exported:
        s = L.slots[k]
        a = [f'name={quoteattr(s.name)}', f'valueReference="{k}"']
        if s.description:
            a.append(f'description={quoteattr(s.description)}')
        a.append(f'causality="{s.causality}"')
        a.append(f'variability="{s.variability}"')
        if s.initial and s.causality != "input":
            a.append(f'initial="{s.initial}"')
        t = []
        if s.type == "Real":
            if s.unit:
                t.append(f'unit={quoteattr(s.unit)}')
            if s.derivative_of >= 0:
                t.append(f'derivative="{index[s.derivative_of]}"')
            if s.nominal is not None and math.isfinite(s.nominal) and s.nominal > 0:
                t.append(f'nominal="{s.nominal!r}"')
        if s.type in ("Real", "Integer") and s.kind in ("MK_PARAM_FIXED", "MK_PARAM_TUNABLE", "MK_INPUT"):
            if math.isfinite(s.min):
                t.append(f'min="{_fmt(s.min, s.type)}"')
            if math.isfinite(s.max):
                t.append(f'max="{_fmt(s.max, s.type)}"')
        if s.xml_start:
            t.append(f'start="{_fmt(s.start, s.type)}"')
        out.append(f'    <ScalarVariable {" ".join(a)}>')
        out.append(f'      <{s.type} {" ".join(t)}/>')
        out.append('    </ScalarVariable>')
    out.append('  </ModelVariables>')
    out.append('  <ModelStructure>')
    outs = [k for k in exported if L.slots[k].causality == "output"]
    if outs:
        out.append('    <Outputs>')
        out += [f'      <Unknown index="{index[k]}"/>' for k in outs]
        out.append('    </Outputs>')
    ders = [k for k in exported if L.slots[k].kind == "MK_DERIV"]
    if ders:
        out.append('    <Derivatives>')
        out += [f'      <Unknown index="{index[k]}"/>' for k in ders]
        out.append('    </Derivatives>')
    init = [k for k in exported
            if (L.slots[k].causality == "output" and L.slots[k].initial in ("approx", "calculated"))
            or L.slots[k].causality == "calculatedParameter"
            or (L.slots[k].kind in ("MK_STATE", "MK_DERIV") and L.slots[k].initial in ("approx", "calculated"))
            or (L.off["X"] <= k < L.off["X"] + L.n["X"] and L.slots[k].initial in ("approx", "calculated"))]
    if init:
        out.append('    <InitialUnknowns>')
        out += [f'      <Unknown index="{index[k]}"/>' for k in sorted(init, key=lambda k: index[k])]
        out.append('    </InitialUnknowns>')
    out.append('  </ModelStructure>')
    out.append('</fmiModelDescription>')
    return "\n".join(out) + "\n"


def _identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name, flags=re.ASCII)
    if not ident or ident[0].isdigit():
        ident = "C_" + ident
    return ident


def _fast_units(comp: _Comp, src: Path) -> Optional[list]:
    """The compilation units of ``comp``'s Model Exchange binary when it can be rebuilt with the
    container's fast entry points (``fmu/container/ct_fast.c``), else None: its extracted
    ``sources/`` (``src``) hold a build description of that binary whose options and definitions
    are those this exporter compiles with (so the rebuilt binary computes what the original
    computes) and the runtime headers ct_fast.c relies on, byte for byte as this runtime's."""
    from ..export import builddesc
    ident = comp.md.modelExchange.modelIdentifier
    if not (src / "buildDescription.xml").is_file() or not str(comp.md.generationTool or "").startswith("wearcosim"):
        return None
    try:
        conf = builddesc.choose(builddesc.read(src / "buildDescription.xml"), ident)
    except (builddesc.BuildDescriptionError, OSError):
        return None
    if len(conf.file_sets) != 1:
        return None
    fs = conf.file_sets[0]
    if (fs.compiler_options or "").split() != list(package.COMPILER_OPTIONS) or \
            [(n, v) for n, v in fs.definitions] != package.definitions(src):
        return None
    runtime = fmu_sources() / "runtime"
    for h in FAST_RUNTIME:
        if not (src / h).is_file() or (src / h).read_bytes() != (runtime / h).read_bytes():
            return None
    units = [str(f) for f in fs.files]
    if not units or not all((src / u).is_file() for u in units) or FAST_UNIT in units:
        return None
    return units


def _stage_component(comp: _Comp, dest: Path, fast: bool) -> bool:
    """The component FMU's binaries, resources and modelDescription.xml under dest; with
    ``fast``, its Model Exchange binary rebuilt from its sources with the container's fast
    entry points when it carries suitable ones (:func:`_fast_units`).  True if rebuilt."""
    from ..fmi.archive import FMUOpenError, safe_extract
    try:
        safe_extract(comp.path, dest)
    except FMUOpenError as exc:
        raise ContainerError(f"component '{comp.name}' ({comp.path.name}): cannot extract: {exc.reason}") from None
    src = dest / "sources"
    units = _fast_units(comp, src) if fast and src.is_dir() else None
    if units:
        ident = comp.md.modelExchange.modelIdentifier
        for f in (FAST_UNIT, FAST_HEADER):
            shutil.copy2(CONTAINER_SRC / f, src / f)
        # beside the component's own binaries, which stay as shipped (fmu/container/ct_load.c
        # loads fast/<platform>/ first)
        so = dest / "fast" / package.platform_dir() / (ident + package.shared_ext())
        try:
            with package.host_only():
                package.compile_binary(src, units + [FAST_UNIT], ident, so)
        except package.ExportError as exc:
            raise ContainerError(f"component '{comp.name}' ({comp.path.name}): rebuilding its binary with the "
                                 f"container's fast entry points failed: {exc}") from None
    for p in dest.iterdir():
        if p.name not in ("binaries", "fast", "resources", "modelDescription.xml"):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
    return bool(units)


def build_container(system: System, out_fmu: str | Path, name: str | None = None,
                    keep_dir: str | Path | None = None, fast: bool = True) -> Path:
    """Build the container FMU of ``system`` (components: Model-Exchange FMUs, ``Component.path``
    set) at ``out_fmu`` and return its path.  ``name`` (default: the system's) is the model name;
    the model identifier is its C-identifier form.  ``keep_dir``: also copy the staged FMU tree
    there (debugging).  ``fast``: rebuild the components that carry suitable sources with the
    container's fast entry points (:func:`_fast_units`; one compilation of each such component,
    for a container that runs its right-hand sides at a fraction of the fmi2 path's overhead with
    the same results); False: every component through its fmi2 functions, its binaries as
    shipped.  Raises :class:`ContainerError` (one line, naming the component and port) for
    systems the container cannot take, or when a component's rebuild fails."""
    out_fmu = Path(out_fmu)
    name = name or system.name or "Container"
    ident = _identifier(name)
    P = _plan(system, name, ident)
    with tempfile.TemporaryDirectory(prefix="wearcosim-container-") as tmp:
        tmp = Path(tmp)
        gen = tmp / "generated"
        gen.mkdir()
        for f in sorted(CONTAINER_SRC.iterdir()):
            if f.suffix in (".c", ".h") and f.name != FAST_UNIT:
                shutil.copy2(f, gen / f.name)
        tables = _render_tables(P)
        digest = hashlib.sha256()
        digest.update(tables.encode())
        digest.update(_render_config(P, "").encode())
        for c in P.comps:
            digest.update(f"{c.name}\0{c.md.guid}\0".encode())
        h = digest.hexdigest()
        guid = f"{{{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}}}"
        (gen / "tables.c").write_text(tables)
        (gen / "config.h").write_text(_render_config(P, guid))
        stage = tmp / "fmu"
        units = package.copy_sources(gen, stage / "sources")
        (stage / "modelDescription.xml").write_text(_render_xml(P, guid, units))
        so = stage / "binaries" / package.platform_dir() / (ident + package.shared_ext())
        package.compile_binary(stage / "sources", units, ident, so)
        for c in P.comps:
            _stage_component(c, stage / "resources" / "components" / c.folder, fast)
        if keep_dir:
            kd = Path(keep_dir)
            if kd.exists():
                shutil.rmtree(kd)
            shutil.copytree(stage, kd)
        package.write_fmu(stage, out_fmu)
    return out_fmu
