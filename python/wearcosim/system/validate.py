"""Checks of a system against its components' model descriptions, FMPy-validator style.

:func:`problems` returns a list of one-line problems (empty: fine), each starting with the
system's file and naming the component, connector or connection concerned:

* the SSD itself: the XSD findings of the reader (:mod:`.ssp`), duplicate component names,
  duplicate connector names (of the system or of a component);
* each component: FMU file missing or unreadable (archive limits of
  :mod:`wearcosim.fmi.archive`, ``modelDescription.xml`` read with
  :func:`wearcosim.fmi.runner.read_md`), ``implementation`` the FMU does not provide,
  connectors that are no variable of the FMU, whose kind is not the variable's causality
  (SSP 5.2.1: for FMI 2.0 they must be equal), whose type differs, or whose unit differs
  from the one the FMU declares; parameter bindings to an unknown variable, to one that
  cannot be set before initialisation (FMI 2.0: variability not constant and initial exact
  or approx, or an input), or with a value of the wrong type;
* connections: to an unknown component or connector, of kinds SSP does not allow (its table
  of allowed connections, 5.3.2.1: output -> input, system input -> component input,
  component output -> system output, parameters to parameters/inputs ...), of different
  types, of different units (names compared, then SI dimensions and factors: ``N.m`` and
  ``m.N`` are one unit); two connections driving one input;
* inputs of an FMU neither connected, nor bound to a value, nor with a start value (FMPy's
  validation already refuses an FMI 2.0 input without start), and inputs of the system
  without a start value (a system-level parameter binding of the connector: a top-level
  system's inputs are driven by nothing else);
* algebraic loops: a cycle through connections and direct feedthrough (an output depending
  on an input of its component, from ``ModelStructure/Outputs``; an output without a
  ``dependencies`` attribute depends on every input), named by its connections.

:func:`evaluation_order` gives the order in which the masters evaluate the components so that
every feedthrough output is computed from up-to-date inputs; :func:`flow` orients a
connection (source, destination), :func:`interface` is what one FMU says about its ports.
"""
from __future__ import annotations

import math
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path


from ..fmi.archive import FMUOpenError, check_archive
from ..names import path_problem
from .model import Connection, SSPError, System

#: SSP 1.0, 5.3.2.1: (source owner, source kind, destination owner, destination kind)
ALLOWED = {
    ("System", "parameter", "System", "calculatedParameter"),
    ("System", "parameter", "System", "output"),
    ("System", "input", "System", "output"),
    ("System", "parameter", "Element", "parameter"),
    ("System", "parameter", "Element", "input"),
    ("System", "parameter", "Element", "inout"),
    ("System", "input", "Element", "input"),
    ("System", "input", "Element", "inout"),
    ("Element", "calculatedParameter", "Element", "parameter"),
    ("Element", "calculatedParameter", "Element", "input"),
    ("Element", "calculatedParameter", "Element", "inout"),
    ("Element", "output", "Element", "input"),
    ("Element", "output", "Element", "inout"),
    ("Element", "inout", "Element", "input"),
    ("Element", "calculatedParameter", "System", "calculatedParameter"),
    ("Element", "calculatedParameter", "System", "output"),
    ("Element", "output", "System", "output"),
    ("Element", "inout", "System", "output"),
}
RULE = "a connection goes output -> input, system input -> component input or component output -> system output"


# ------------------------------------------------------------------------- FMU interfaces

@dataclass
class Interface:
    """What one FMU declares: its variables by name and, for each output, the inputs it
    depends on directly (feedthrough)."""
    fmu: Path
    md: object
    variables: dict
    feedthrough: dict = field(default_factory=dict)     # output name -> set of input names
    error: str = ""                                     # why the FMU could not be read ("" = fine)

    def unit(self, name: str) -> str:
        v = self.variables[name]
        u = getattr(v, "unit", None)
        if not u and getattr(v, "declaredType", None) is not None:
            u = getattr(v.declaredType, "unit", None)
        return u or ""


_cache = {}


def interface(path: str | Path) -> Interface:
    """The :class:`Interface` of the FMU file ``path`` (cached while the file is unchanged);
    ``.error`` says why it could not be read."""
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        return Interface(path, None, {}, error="no such file")
    except OSError as exc:
        return Interface(path, None, {}, error=f"cannot read: {exc.strerror or exc}")
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    if key in _cache:
        return _cache[key]
    if not path.is_file():
        return Interface(path, None, {}, error="not a file")
    problems = check_archive(path)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Interface(path, None, {}, error=problems[0] + more)
    from ..fmi.runner import read_md
    try:
        md = read_md(path)
    except FMUOpenError as exc:
        return Interface(path, None, {}, error=exc.reason)
    variables = {v.name: v for v in md.modelVariables}
    inputs = {v.name for v in md.modelVariables if v.causality == "input"}
    ft = {}
    for u in md.outputs or []:
        if u.dependencies is None:
            ft[u.variable.name] = set(inputs)
        else:
            ft[u.variable.name] = {d.name for d in u.dependencies if d.causality == "input"}
    it = Interface(path, md, variables, ft)
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = it
    return it


def _interfaces(system: System) -> dict:
    """component name -> Interface (None when the component has no resolved path)."""
    out = {}
    for comp in system.components:
        if comp.name not in out:
            out[comp.name] = interface(comp.path) if comp.path is not None else None
    return out


# ------------------------------------------------------------------------- units

def same_unit(a: str, b: str) -> bool:
    """One unit: equal names, or equal SI dimensions and factors (``N.m`` and ``m.N``)."""
    if a == b:
        return True
    from .ssp import base_unit
    ba, bb = base_unit(a), base_unit(b)
    return ba is not None and ba == bb


# ------------------------------------------------------------------------- connections

def _declared(system: System, element, connector):
    """The SSD connector (element None: the system's), or None."""
    if element is None:
        owners = [system.connectors]
    else:
        owners = [c.connectors for c in system.components if c.name == element]
    for conns in owners:
        for c in conns:
            if c.name == connector:
                return c
    return None


def flow(system: System, c: Connection) -> tuple[tuple[str | None, str], tuple[str | None, str]] | None:
    """``((element, connector) source, (element, connector) destination)`` of a connection,
    from the kinds of its connectors and SSP's table of allowed connections; None when a
    connector is unknown or the combination is not allowed."""
    a = _declared(system, c.start_element, c.start_connector)
    b = _declared(system, c.end_element, c.end_connector)
    if a is None or b is None:
        return None
    oa = "System" if c.start_element is None else "Element"
    ob = "System" if c.end_element is None else "Element"
    s, e = (c.start_element, c.start_connector), (c.end_element, c.end_connector)
    if (oa, a.kind, ob, b.kind) in ALLOWED:
        return s, e
    if (ob, b.kind, oa, a.kind) in ALLOWED:
        return e, s
    return None


def _name(end) -> str:
    return f"{end[0]}.{end[1]}" if end[0] is not None else end[1]


def _effective(system, its, end):
    """(type, unit) of a connection end: the SSD's, else the FMU's."""
    conn = _declared(system, *end)
    typ, unit = (conn.type, conn.unit) if conn is not None else ("", "")
    it = its.get(end[0]) if end[0] is not None else None
    if it is not None and not it.error and end[1] in it.variables:
        v = it.variables[end[1]]
        typ = typ or v.type
        unit = unit or (it.unit(end[1]) if v.type == "Real" else "")
    return typ, unit


# ------------------------------------------------------------------------- parameters

def _settable(v) -> bool:
    """FMI 2.0: may the variable be set before initialisation (a start value)?"""
    if v.variability == "constant" or v.causality == "independent":
        return False
    if v.causality == "input":
        return True
    initial = v.initial
    if initial is None:
        initial = {"parameter": "exact", "calculatedParameter": "calculated"}.get(v.causality, "calculated")
    return initial in ("exact", "approx")


def experiment_problems(system: System, start: float | None = None, stop: float | None = None) -> list:
    """The system's default experiment (or the ``start``/``stop`` given instead): finite
    times, stop after start."""
    W = system.where
    t0 = system.start_time if start is None else start
    t1 = system.stop_time if stop is None else stop
    P = []
    for what, t in (("startTime", t0), ("stopTime", t1)):
        if t is not None and not (isinstance(t, (int, float)) and math.isfinite(t)):
            P.append(f"{W}: DefaultExperiment {what} {t!r} is not a finite number")
    if not P and t1 is not None and not t1 > (t0 or 0.0):
        P.append(f"{W}: DefaultExperiment stopTime {t1!r} is not after startTime {t0 or 0.0!r}")
    return P


#: an FMI 2.0 Integer is a C int (fmi2Integer, 32 bits)
INT_RANGE = (-2**31, 2**31 - 1)


def _bound(v, which: str):
    """The ``min``/``max`` of an FMU variable (its own or its declared type's), a float or None."""
    raw = getattr(v, which, None)
    if raw is None and getattr(v, "declaredType", None) is not None:
        raw = getattr(v.declaredType, which, None)
    try:
        x = float(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None
    return x if x is not None and math.isfinite(x) else None


def _range_problem(value, v) -> str | None:
    """Why a bound ``value`` is outside what the variable ``v`` accepts (None: it is inside):
    its ``min``/``max``, and for an Integer the C int's range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if v.type == "Integer" and isinstance(value, int) and not INT_RANGE[0] <= value <= INT_RANGE[1]:
        return f"{value} is outside the range of an FMI Integer ({INT_RANGE[0]} .. {INT_RANGE[1]})"
    lo, hi = _bound(v, "min"), _bound(v, "max")
    if lo is not None and value < lo:
        return f"{value!r} is below the minimum {lo:g} of variable {v.name!r}"
    if hi is not None and value > hi:
        return f"{value!r} is above the maximum {hi:g} of variable {v.name!r}"
    return None


def _type_ok(value, typ: str) -> bool:
    if typ == "Real":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if typ in ("Integer", "Enumeration"):
        return isinstance(value, int) and not isinstance(value, bool)
    if typ == "Boolean":
        return isinstance(value, bool)
    if typ == "String":
        return isinstance(value, str)
    return True


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _value_type(value) -> str:
    return {bool: "Boolean", int: "Integer", float: "Real", str: "String"}.get(type(value), type(value).__name__)


# ------------------------------------------------------------------------- loops

def _port_graph(system: System, its: dict):
    """Edges between (component, port) nodes: connections (output -> input) and
    feedthrough (input -> output of the same component); plus the connection of each
    connection edge (for messages)."""
    edges = defaultdict(list)
    via = {}
    for c in system.connections:
        f = flow(system, c)
        if f is None or f[0][0] is None or f[1][0] is None:
            continue
        edges[f[0]].append(f[1])
        via[(f[0], f[1])] = c
    for comp in system.components:
        it = its.get(comp.name)
        if it is None or it.error:
            continue
        for out, ins in it.feedthrough.items():
            for i in ins:
                edges[(comp.name, i)].append((comp.name, out))
    return edges, via


def _sccs(edges) -> list:
    """Strongly connected components (Tarjan, iterative)."""
    nodes = list(dict.fromkeys([n for n in edges] + [m for ms in edges.values() for m in ms]))
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _cycle(edges, scc) -> list:
    """One simple cycle (list of nodes) inside a strongly connected component."""
    members = set(scc)
    start = min(scc, key=lambda n: (n[0], n[1]))
    path, seen = [start], {start: 0}
    while True:
        nxt = min((w for w in edges.get(path[-1], ()) if w in members), key=lambda n: (n[0], n[1]))
        if nxt in seen:
            return path[seen[nxt]:]
        seen[nxt] = len(path)
        path.append(nxt)


def loops(system: System, its: dict[str, Interface] | None = None) -> list[list[Connection]]:
    """The algebraic loops, each as the list of its connections (source first)."""
    its = _interfaces(system) if its is None else its
    edges, via = _port_graph(system, its)
    out = []
    for scc in _sccs(edges):
        if len(scc) < 2:
            continue
        cyc = _cycle(edges, scc)
        pairs = list(zip(cyc, cyc[1:] + cyc[:1]))
        # start the description at a connection edge
        k = next((i for i, p in enumerate(pairs) if p in via), 0)
        pairs = pairs[k:] + pairs[:k]
        out.append([p for p in pairs if p in via])
    return out


def _loop_message(system: System, loop: list) -> str:
    conns = ", ".join(f"{_name(a)} -> {_name(b)}" for a, b in loop)
    comps = list(dict.fromkeys(a[0] for a, _ in loop))
    return (f"{system.where}: algebraic loop through direct feedthrough: {conns} "
            f"(components {', '.join(comps)}; every output on it depends directly on the input before it)")


# ------------------------------------------------------------------------- problems

def problems(system: System) -> list:
    """Every problem found (one line each; empty: the system is fine)."""
    W = system.where
    P = list(system.schema_problems)
    its = _interfaces(system)

    why = path_problem(system.name)
    if why:
        P.append(f"{W}: system name {system.name!r} cannot name the system's files: {why}")
    seen = set()
    for comp in system.components:
        why = path_problem(comp.name)
        if why:
            P.append(f"{W}: component name {comp.name!r} cannot name the component's files: {why}")
        if comp.name in seen:
            P.append(f"{W}: component name {comp.name!r} is used more than once")
        seen.add(comp.name)
    for owner, conns in [(f"system {system.name!r}", system.connectors)] + \
            [(f"component {c.name!r}", c.connectors) for c in system.components]:
        names = set()
        for c in conns:
            if c.name in names:
                P.append(f"{W}: {owner}: connector {c.name!r} is declared more than once")
            names.add(c.name)

    for comp in system.components:
        where = f"{W}: component {comp.name!r}"
        it = its.get(comp.name)
        if it is None:
            P.append(f"{where}: FMU {comp.source!r} not available")
            continue
        if it.error:
            P.append(f"{where}: FMU {comp.source!r}: {it.error}")
            continue
        fmu = Path(comp.source).name
        have = [k for k, ok in (("ModelExchange", it.md.modelExchange), ("CoSimulation", it.md.coSimulation)) if ok]
        if comp.implementation not in ("any", "ModelExchange", "CoSimulation"):
            P.append(f"{where}: implementation {comp.implementation!r} is not supported (any, ModelExchange, CoSimulation)")
        elif comp.implementation != "any" and comp.implementation not in have:
            P.append(f"{where}: implementation {comp.implementation!r} is not provided by {fmu} "
                     f"(it has: {', '.join(have) or 'none'})")
        for c in comp.connectors:
            v = it.variables.get(c.name)
            if v is None:
                P.append(f"{where}: connector {c.name!r} is not a variable of {fmu}")
                continue
            if c.kind != v.causality:
                P.append(f"{where}: connector {c.name!r} is declared {c.kind!r} but is {v.causality!r} in {fmu}")
            if c.type and c.type != v.type:
                P.append(f"{where}: connector {c.name!r} is declared {c.type} but is {v.type} in {fmu}")
            if c.type in ("Real", "") and v.type == "Real" and c.unit:
                fu = it.unit(c.name)
                if fu and not same_unit(c.unit, fu):
                    P.append(f"{where}: connector {c.name!r} has unit {c.unit!r} but {fmu} declares {fu!r}")
                elif not fu:
                    P.append(f"{where}: connector {c.name!r} has unit {c.unit!r} but {fmu} declares none")
        for name, value in comp.parameters.items():
            v = it.variables.get(name)
            if v is None:
                P.append(f"{where}: parameter binding {name!r}: no such variable in {fmu}")
            elif not _settable(v):
                P.append(f"{where}: parameter binding {name!r}: {v.causality} variable "
                         f"(variability {v.variability}, initial {v.initial or 'calculated'}) cannot be set before initialisation")
            elif not _type_ok(value, v.type):
                vt = _value_type(value)
                P.append(f"{where}: parameter binding {name!r}: {_a(vt)} {vt} value for {_a(v.type)} {v.type} variable")
            elif isinstance(value, float) and not math.isfinite(value):
                P.append(f"{where}: parameter binding {name!r}: {value!r} is not a finite number")
            else:
                why = _range_problem(value, v)
                if why:
                    P.append(f"{where}: parameter binding {name!r}: {why} of {fmu}")
    sysnames = {c.name for c in system.connectors}
    for name, value in system.parameters.items():
        if isinstance(value, float) and not math.isfinite(value):
            P.append(f"{W}: system parameter binding {name!r}: {value!r} is not a finite number")
    P.extend(experiment_problems(system))
    for name in system.parameters:
        if name not in sysnames:
            P.append(f"{W}: system parameter binding {name!r}: no component or system connector of that name")

    comps = {c.name for c in system.components}
    drivers = defaultdict(list)
    for c in system.connections:
        where = f"{W}: connection {c.start} -> {c.end}"
        bad = False
        for el, cn in ((c.start_element, c.start_connector), (c.end_element, c.end_connector)):
            if el is not None and el not in comps:
                P.append(f"{where}: no component {el!r}")
                bad = True
            elif _declared(system, el, cn) is None:
                owner = f"component {el!r}" if el is not None else f"system {system.name!r}"
                hint = ""
                it = its.get(el) if el is not None else None
                if it is not None and not it.error and cn in it.variables:
                    hint = f" (the FMU has a variable {cn!r}: declare it in the component's ssd:Connectors)"
                P.append(f"{where}: {owner} has no connector {cn!r}{hint}")
                bad = True
        if bad:
            continue
        f = flow(system, c)
        if f is None:
            ka = _declared(system, c.start_element, c.start_connector).kind
            kb = _declared(system, c.end_element, c.end_connector).kind
            sa = "system " if c.start_element is None else ""
            sb = "system " if c.end_element is None else ""
            P.append(f"{where}: {sa}{ka} to {sb}{kb} is not an allowed connection ({RULE})")
            continue
        src, dst = f
        (ts, us), (td, ud) = _effective(system, its, src), _effective(system, its, dst)
        if ts and td and ts != td:
            P.append(f"{where}: type mismatch, {ts} to {td}")
        elif ts == "Real" and td == "Real" and us and ud and not same_unit(us, ud):
            P.append(f"{where}: unit mismatch, {us!r} to {ud!r}")
        drivers[dst].append(src)
    for dst, srcs in drivers.items():
        if len(srcs) > 1:
            owner = f"component {dst[0]!r}: input" if dst[0] is not None else "system output"
            P.append(f"{W}: {owner} {dst[1]!r} is driven by {len(srcs)} connections "
                     f"(from {', '.join(_name(s) for s in srcs)})")

    for comp in system.components:
        it = its.get(comp.name)
        if it is None or it.error:
            continue
        for v in it.md.modelVariables:
            if v.causality != "input" or (comp.name, v.name) in drivers or v.name in comp.parameters:
                continue
            if v.start is None:
                P.append(f"{W}: component {comp.name!r}: input {v.name!r} is not connected and has no start value")
    for c in system.connectors:
        if c.kind == "input" and c.name not in system.parameters:
            P.append(f"{W}: system input {c.name!r} has no start value (nothing outside a top-level system "
                     f"drives it: bind one in the system's ssd:ParameterBindings)")

    for loop in loops(system, its):
        P.append(_loop_message(system, loop))
    return P


# ------------------------------------------------------------------------- order

def evaluation_order(system: System) -> list:
    """Component names in an order in which evaluating each one (setting its inputs from
    the outputs already computed, then getting its outputs) computes every feedthrough
    output from up-to-date inputs: ``A`` before ``B`` when an output of ``A`` feeds an input
    of ``B`` that some output of ``B`` depends on directly.  Ties keep the order of the
    SSD.  When no order of whole components exists although there is no algebraic loop (an
    output of ``A`` needs ``B`` and ``B`` needs another output of ``A``), a component is
    listed again where it must be re-evaluated.  Raises :class:`SSPError` for an algebraic
    loop or an FMU that cannot be read."""
    its = _interfaces(system)
    for comp in system.components:
        it = its.get(comp.name)
        if it is None or it.error:
            why = it.error if it is not None else "not available"
            raise SSPError(f"{system.where}: component {comp.name!r}: FMU {comp.source!r}: {why}")
    found = loops(system, its)
    if found:
        raise SSPError(_loop_message(system, found[0]))
    names = list(dict.fromkeys(c.name for c in system.components))
    feeds = {n: {i for ins in its[n].feedthrough.values() for i in ins} for n in names}
    after = defaultdict(set)                    # B -> {A: A must come before B}
    for c in system.connections:
        f = flow(system, c)
        if f is None or f[0][0] is None or f[1][0] is None or f[0][0] == f[1][0]:
            continue
        (a, _), (b, i) = f
        if i in feeds.get(b, ()):
            after[b].add(a)
    order, done = [], set()
    pending = list(names)
    while pending:
        ready = [n for n in pending if after[n] <= done]
        if not ready:
            return _staged_order(system, its, names)
        for n in ready:
            order.append(n)
            done.add(n)
        pending = [n for n in pending if n not in done]
    return order


def _staged_order(system: System, its: dict, names: list) -> list:
    """Order by the longest path to each output in the (acyclic) port graph: stage k
    evaluates the components having an output at depth k; consecutive repeats merged."""
    edges, _ = _port_graph(system, its)
    outputs = [(n, o) for n in names for o in its[n].feedthrough]
    preds = defaultdict(list)
    for a, bs in edges.items():
        for b in bs:
            preds[b].append(a)
    depth = {}

    def d(node):
        stack = [node]
        while stack:
            v = stack[-1]
            todo = [p for p in preds[v] if p not in depth]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            depth[v] = max((depth[p] + 1 for p in preds[v]), default=0)
        return depth[node]

    stages = defaultdict(list)
    for n, o in outputs:
        stages[d((n, o))].append(n)
    order = []
    for k in sorted(stages):
        for n in dict.fromkeys(stages[k]):
            if not order or order[-1] != n:
                order.append(n)
    for n in names:                              # components without outputs: last
        if n not in order:
            order.append(n)
    return order
