"""Pass 3 (causal blocks -> C): lay out the value array, build the CasADi functions the
runtime needs, generate their C code, render ``config.h``, ``model.c``,
``modelDescription.xml`` and ``documentation/index.html``.

Everything generated here is stamped "do not edit"; the FMI runtime in ``fmu/runtime``
is shared and hand-written.  The contract between the two is ``fmu/runtime/model_api.h``.

CasADi functions (all take ``(v[NV], t, initial)``):

``eval``    derivatives, algebraic Reals, discrete-valued variables defined by equations
``deriv``   the derivatives and the event indicators (what the embedded solver's stages need;
            outputs and other algebraics are evaluated when read, by ``eval``)
``zc``      event indicators (relations with hysteresis, see ``events.py``)
``rel``     relation values from the continuous values (event mode)
``cond``    when-condition values
``fire``    new discrete values and re-initialised states of the firing when-branches,
            plus flags (reinit, terminate); the when-equations of one event are solved
            together (each sees the new values of the others, ``simultaneous_when_equations``)
``asserts`` assert conditions (1 = holds)
``jac``     dense d(der x)/dx (only without nonlinear loops; else the runtime differences)
``nlres``/``nljac``  residuals/Jacobian of the nonlinear loops in the Newton unknowns w
            (which start from their variables' start values: ``wc_start`` and ``init``)
``params``  calculated parameters
``init``    initial values of states and discrete variables (start expressions, initial
            equations), then the start values of the Newton unknowns
``ires``/``ijac``  residuals/Jacobian of the initialisation problem that the runtime solves by
            Newton (nonlinear, or reading nonlinear loops; see ``initial_values``)
"""
from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence
from string import Template
from xml.sax.saxutils import quoteattr, escape

import casadi as ca
import numpy as np

from . import units as _units
from ..resources import fmu_sources
from .causalize import Causal, check_balance, incidence, match
from .dae import symvar_deep, unhide_gathers
from .errors import ExportError
from . import symbolic
from .symbolic import to_num

TEMPLATES = fmu_sources() / "templates"

# generated functions compiled in their own unit (model_jac.c)
SEPARATE_UNIT = ("jac", "dd")

# options of every generated CasADi function: common subexpression elimination.  The model
# equations repeat subexpressions that CasADi's expression graph keeps as separate nodes (the
# same sin/cos of a joint angle in every term of a mechanism's kinematics: the hybrid
# mechanism's derivatives call sin/cos 22 times without it, 8 with it); gcc cannot merge
# libm calls itself (they may set errno).
_FOPTS = {"cse": True}

SOLVER_PARAMS = [
    # name, type, start, min, max, description
    ("solver.method", "Integer", 0, 0, 3,
     "Co-Simulation solver: 0 = auto (Adams or Dormand-Prince by measured cost, RODAS4 where stiff), 1 = Dormand-Prince 5(4) (explicit), 2 = implicit (L-stable, uses the Jacobian), "
     "3 = Adams (explicit multistep, variable order 1-12)"),
    ("solver.rtol", "Real", 0.0, 0.0, 1.0,
     "Relative tolerance of the embedded solver; 0 = tolerance of fmi2SetupExperiment, else 1e-6"),
    ("solver.atol", "Real", 0.0, 0.0, 1e10,
     "Absolute tolerance of the embedded solver; 0 = runtime default"),
    ("solver.hmax", "Real", 0.0, 0.0, 1e100,
     "Maximum step of the embedded solver [s]; 0 = at most 16 communication steps"),
    # work budget of one fmi2DoStep (fmu/runtime/rt_cs.c): exceeded -> fmi2Discard at the
    # last accepted point, with a message naming the parameter
    ("solver.maxSteps", "Integer", 1000000, 1, 2147483647,
     "Work budget: maximum number of solver steps in one fmi2DoStep (exceeded: fmi2Discard); a step "
     "longer than solver.maxSteps*solver.hmax is refused before integrating"),
    ("solver.maxStepTime", "Real", 0.0, 0.0, 1e100,
     "Wall-clock budget of one fmi2DoStep [s] (exceeded: fmi2Discard, checked every 256 solver "
     "steps); 0 = no limit, so that results never depend on the machine's load"),
    # (fmu/runtime/rt_eval.c "input extrapolation")
    ("solver.inputExtrapolation", "Integer", 0, 0, 1,
     "Co-Simulation, for importers that hold inputs constant over a step: 1 = each continuous input "
     "that the importer gives no derivatives for moves over the step along the line through its "
     "values at the last two communication points (its value at the step's start, as the importer "
     "set it, and the slope since the previous point); 0 = inputs held (FMI 2.0's default)"),
]

#: units of the solver parameters that have one (the tolerances are relative or in the
#: states' own units)
SOLVER_UNITS = {"solver.hmax": "s", "solver.maxStepTime": "s"}


@dataclass
class Slot:
    name: str
    kind: str           # fmi-facing kind (see model_api.h MK_*)
    type: str           # Real | Integer | Boolean
    sym: object         # SX symbol in the input vector
    scalar: object = None  # ScalarVar or None
    start: object = None
    causality: str = "local"
    variability: str = "continuous"
    initial: str = ""
    description: str = ""
    unit: str = ""
    min: float = -math.inf
    max: float = math.inf
    derivative_of: int = -1   # index (slot) of the state for derivatives
    nominal: float = None     # Modelica nominal attribute (number, see _nominal), for states' error weights
    quantity: str = ""        # Modelica quantity attribute (of the declared type)
    display_unit: str = ""    # Modelica displayUnit attribute
    reinit: bool = False      # a state that a when-equation re-initialises (reinit)
    enum: object = None       # build.EnumType of an enumeration-typed Integer (FMI <Enumeration>)


@dataclass
class Layout:
    slots: list = field(default_factory=list)
    off: dict = field(default_factory=dict)     # slice name -> offset
    n: dict = field(default_factory=dict)       # slice name -> count

    def add_slice(self, name: str, items: Sequence[Any]) -> None:
        self.off[name] = len(self.slots)
        self.n[name] = len(items)
        self.slots.extend(items)

    @property
    def NV(self) -> int:
        return len(self.slots)


def _num(x, default=0.0):
    n = to_num(x)
    if n is None:
        return None
    return float(n)


def _lit(e):
    """Numeric value of a literal min/max attribute (None if not a literal)."""
    from . import ir
    if isinstance(e, ir.Lit) and not isinstance(e.value, str):
        return float(e.value)
    if isinstance(e, ir.Un) and e.op == "-":
        v = _lit(e.a)
        return -v if v is not None else None
    return None


def _bounds(sv):
    lo = _lit(sv.base.min) if sv.base.min is not None else None
    hi = _lit(sv.base.max) if sv.base.max is not None else None
    return (-math.inf if lo is None else lo), (math.inf if hi is None else hi)


def _nominal(sv, dae):
    """The Modelica ``nominal`` of scalar ``sv`` as a number: a literal, a parameter (its
    default value), or the element of a literal array (``nominal = {1, 1e-3}``); None when
    not given or not one of these."""
    from . import ir
    e = sv.base.nominal
    if isinstance(e, ir.Arr) and sv.index:
        for i in sv.index:
            if not isinstance(e, ir.Arr) or i >= len(e.elems):
                return None
            e = e.elems[i]
    if isinstance(e, ir.Ref) and not e.subs:
        if e.name in dae.param_values:
            return dae.param_values[e.name]
        if sv.index:        # an array parameter, element by element
            return dae.param_values.get(f"{e.name}[{','.join(str(i + 1) for i in sv.index)}]")
        return None
    return _lit(e) if e is not None else None


def layout(causal: Causal, expose_protected: bool = False) -> Layout:
    """Slots of the value vector, in slices.  Protected parameters are not ScalarVariables
    unless ``expose_protected``: evaluated ones (folded into the code) get no slot, the
    others keep their slot as internal (their values are still computed at initialisation)."""
    dae = causal.dae

    def hidden(sv):
        return sv.base.protected and not expose_protected
    L = Layout()
    S = list(dae.scalars.values())

    def mk(sv, kind, **kw):
        lo, hi = _bounds(sv)
        kw.setdefault("causality", "output" if sv.base.causality == "output" else "local")
        nom = _nominal(sv, dae)
        return Slot(sv.name, kind, sv.type, sv.sym, sv, sv.start,
                    description=sv.base.description, unit=sv.base.unit, min=lo, max=hi,
                    nominal=abs(nom) if nom else None, quantity=sv.base.quantity,
                    display_unit=sv.base.display_unit, enum=dae.enums.get(sv.base.name), **kw)

    states = [s for s in S if s.kind == "state"]
    L.add_slice("X", [mk(s, "MK_STATE") for s in states])
    L.add_slice("DX", [Slot(f"der({s.name})", "MK_DERIV", "Real", dae.der[s.name], None, None,
                            description=f"Time derivative of {s.name}",
                            unit=_units.derivative(s.base.unit), derivative_of=k)
                       for k, s in enumerate(states)])
    params = [mk(s, "MK_INTERNAL" if hidden(s) else "MK_PARAM_FIXED", causality="parameter")
              for s in S if s.kind == "param" and not s.structural]
    for p in params:
        p.causality = "parameter"
    # the parameters that the initial equations determine (fixed=false) last: wc_init's values
    # of them go to the end of the calculated parameters (N_P_INIT in model.c)
    calcs = [mk(s, "MK_INTERNAL" if hidden(s) else "MK_CALC_PARAM")
             for s in sorted((s for s in S if s.kind == "calc" and not s.structural), key=lambda s: s.by_initial)]
    for s in S:
        if s.by_initial and s.structural:
            raise ExportError(f"parameter '{s.name}' has fixed=false (the initial equations determine it) but "
                              f"fixes a size, range or subscript, which must be known at build time",
                              s.base.loc, "structure")
    for p in calcs:
        p.causality = "calculatedParameter"
    consts = []
    for s in S:
        if hidden(s) and (s.kind == "const" or s.structural):
            continue     # its value is folded into the code; nothing reads the slot
        if s.kind == "const" or (s.kind in ("param", "calc") and s.structural):
            val = s.value if s.kind == "const" else dae.param_values.get(s.name)
            sl = mk(s, "MK_CALC_PARAM")
            sl.sym = ca.SX.sym(f"$const_{s.name}")
            sl.start = val
            sl.variability = "constant"
            consts.append(sl)
    solver = []
    for name, typ, start, lo, hi, desc in SOLVER_PARAMS:
        solver.append(Slot(name, "MK_PARAM_TUNABLE", typ, ca.SX.sym(name), None, start,
                           causality="parameter", variability="tunable", initial="exact",
                           description=desc, min=lo, max=hi, unit=SOLVER_UNITS.get(name, ""),
                           quantity="Time" if name in SOLVER_UNITS else ""))
    L.add_slice("P", params + calcs + consts + solver)
    L.n["P_INDEP"] = len(params)
    L.n["P_CALC"] = len(calcs)
    L.n["P_INIT"] = sum(1 for c in calcs if c.scalar.by_initial)
    L.off["SOLVER"] = L.off["P"] + len(params) + len(calcs) + len(consts)
    L.add_slice("U", [mk(s, "MK_INPUT", causality="input") for s in S if s.kind == "input"])
    for u in L.slots[L.off["U"]:]:
        u.causality = "input"
    newton = {n for n, _ in causal.w}
    ys = [mk(s, "MK_COMPUTED") for s in S if s.kind == "alg"]
    dalg = [mk(s, "MK_COMPUTED") for s in S if s.kind == "dalg"]
    for sl in ys + dalg:
        if sl.name in newton:   # the symbol belongs to the W slot; the Y slot is an output copy
            sl.sym = ca.SX.sym("$y." + sl.name)
    L.add_slice("Y", ys)
    # the hidden counters of sample() ('$sample0', dae._add_samplers) are internal
    disc = [mk(s, "MK_INTERNAL" if s.name.startswith("$") else "MK_DISCRETE") for s in S if s.kind == "disc"]
    L.add_slice("D", dalg + disc)
    L.n["DALG"] = len(dalg)
    L.add_slice("DPRE", [Slot(f"pre({s.name})", "MK_INTERNAL", s.type, dae.pre[s.name])
                         for s in dalg + disc])
    rels = dae.events.relations
    L.add_slice("M", [Slot(f"$rel{k}", "MK_INTERNAL", "Boolean", r.m) for k, r in enumerate(rels)])
    L.add_slice("MPRE", [Slot(f"$relpre{k}", "MK_INTERNAL", "Boolean", ca.SX.sym(f"$relpre{k}")) for k in range(len(rels))])
    conds = []
    for wi, w in enumerate(dae.whens):
        for bi, (cs, _) in enumerate(w.branches):
            for ci, _c in enumerate(cs):
                conds.append(Slot(f"$when{wi}.{bi}.{ci}", "MK_INTERNAL", "Boolean", ca.SX.sym(f"$when{wi}.{bi}.{ci}")))
    L.add_slice("C", conds)
    L.add_slice("CPRE", [Slot(s.name + ".pre", "MK_INTERNAL", "Boolean", ca.SX.sym(s.name + ".pre")) for s in conds])
    # Newton unknowns start from the Modelica start values of their variables (the runtime's
    # Newton takes the content of v[OFF_W..] as its initial guess: the start value at
    # initialisation, the previous solution afterwards); numeric starts are in wc_start,
    # starts that depend on parameters are set by wc_init (initial_values)
    L.add_slice("W", [Slot(f"$w.{n}", "MK_INTERNAL", "Real", sy, start=_w_start(dae, n)) for n, sy in causal.w])
    return L


def _w_start(dae, name):
    """Start value (number or expression of parameters) of Newton unknown ``name``; 0 for
    the derivatives in a loop and for variables without a start value."""
    sv = dae.scalars.get(name)
    st = sv.start if sv is not None and sv.kind in ("alg", "dalg") else None
    if st is None:
        return 0.0
    n = to_num(st)
    return float(n) if n is not None else st


@dataclass
class Generated:
    layout: Layout
    functions: dict          # name -> casadi.Function
    n_asserts: int
    assert_msgs: list
    has_jac: bool
    init_exprs: dict         # info for XML (which states are calculated)
    guid: str
    model_name: str
    identifier: str
    deps: dict = None        # slot -> [slots of states/inputs it depends on] (ModelStructure)
    split_eval: bool = False # wc_eval holds y and the discrete algebraics only; dx from wc_deriv
    out_slots: list = None   # slots wc_out computes (the outputs), None: no wc_out (nonlinear loops)
    out_cheap: list = None   # indices (in out_slots) of the outputs wc_out_cheap computes
    init_slots: list = None  # slots solved by Newton at initialisation (wc_ires/wc_ijac), see InitialSystem
    #: String parameters and constants (dae.StringVar) exported as FMI String variables, their
    #: value references 0..n-1 (FMI 2.0 2.2.7: unique per base type; model.c's mdl_str)
    strings: list = field(default_factory=list)
    #: FMI 2.0 aliases (alias.eliminate): [(alias ScalarVar, slot index of its representative)],
    #: ScalarVariables sharing the representative's valueReference
    aliases: list = field(default_factory=list)
    #: homotopy() in the nonlinear loops' residuals (symbolic.Evaluator.homotopy): the runtime
    #: follows its path at initialisation (config.h HAS_HOMOTOPY, rt_newton.c "Homotopy")
    has_homotopy: bool = False


#: above this many operations, wc_eval leaves the derivatives to wc_deriv (see build_functions)
EVAL_SPLIT_INSTRUCTIONS = 40000
#: an output is "cheap" (computed by wc_out_cheap too) when its own expression graph costs at
#: most this fraction of wc_out (all outputs and the indicators)
CHEAP_FRACTION = 0.25


def build_functions(causal: Causal, expose_protected: bool = False) -> Generated:
    dae = causal.dae
    L = layout(causal, expose_protected)
    V = ca.vertcat(*[s.sym for s in L.slots])
    t, INIT = dae.t, dae.init_flag
    inputs = [V, t, INIT]
    sol = causal.solution

    # unknowns with a solution expression (Newton unknowns stay symbols), stacked once
    solved_names = [n for n in causal.unknowns
                    if not (sol[n].is_symbolic() and sol[n].name() == causal.sym[n].name())]
    solved_from = ca.vertcat(*[causal.sym[n] for n in solved_names]) if solved_names else None
    solved_to = ca.vertcat(*[sol[n] for n in solved_names]) if solved_names else None

    def solved(x):
        """Substitute every unknown by its solution (knowns + w only)."""
        return x if solved_from is None else ca.substitute(x, solved_from, solved_to)

    states = L.slots[L.off["X"]:L.off["X"] + L.n["X"]]
    dx = [sol[f"der({s.name})"] for s in states]
    ys = [sol[s.name] for s in L.slots[L.off["Y"]:L.off["Y"] + L.n["Y"]]]
    dalg = [sol[s.name] for s in L.slots[L.off["D"]:L.off["D"] + L.n["DALG"]]]
    # structural params that got folded late: substitute their values everywhere
    consts = [s for s in L.slots[L.off["P"]:L.off["P"] + L.n["P"]]
              if s.variability == "constant" and s.scalar is not None and s.scalar.sym is not None]
    fold_from = ca.vertcat(*[s.scalar.sym for s in consts]) if consts else None
    fold_to = ca.vertcat(*[float(s.start) for s in consts]) if consts else None

    def fold_consts(x):
        if x.numel() == 0 or fold_from is None:
            return x
        return ca.substitute(x, fold_from, fold_to)

    # the indexed loads of dynamic subscripts go in for their placeholders here, after the
    # passes' derivatives (symbolic.gather)
    g_from, g_to = gather_loads(dae, lambda x: fold_consts(solved(x)))

    def fold(x):
        x = ca.vertcat(*x) if isinstance(x, list) else x
        x = fold_consts(x)
        if g_from is not None and x.numel() and ca.depends_on(x, g_from):
            x = ca.substitute(x, g_from, g_to)
        return x

    eval_out = fold(ca.vertcat(*(dx + ys + dalg))) if (dx or ys or dalg) else ca.SX(0, 1)
    # dependencies of derivatives and continuous outputs on states and inputs (structural
    # sparsity of the generated expressions), for modelDescription's ModelStructure
    deps = {}
    known = [k for k in range(L.off["X"], L.off["X"] + L.n["X"])] + [k for k in range(L.off["U"], L.off["U"] + L.n["U"])]
    if known and eval_out.numel():
        sp = ca.jacobian(eval_out, ca.vertcat(*[L.slots[k].sym for k in known])).sparsity()
        rows = [L.off["DX"] + i for i in range(L.n["X"])] + [L.off["Y"] + i for i in range(L.n["Y"])] + \
               [L.off["D"] + i for i in range(L.n["DALG"])]
        colind, row = sp.colind(), sp.row()
        for j in range(len(known)):
            for r in row[colind[j]:colind[j + 1]]:
                deps.setdefault(rows[r], []).append(known[j])
    if known and eval_out.numel() and causal.w:
        # through the nonlinear loops: a row that reads a Newton unknown depends on every known
        # the residuals of its loop read, and those of the loops that loop reads in turn (the
        # unknowns' own symbols are not knowns: without this the dependencies stopped at them)
        for r_, ks in _loop_dependencies(causal, eval_out, [L.slots[k].sym for k in known]).items():
            row_slot = ([L.off["DX"] + i for i in range(L.n["X"])] + [L.off["Y"] + i for i in range(L.n["Y"])] +
                        [L.off["D"] + i for i in range(L.n["DALG"])])[r_]
            have = deps.setdefault(row_slot, [])
            have.extend(known[j] for j in sorted(ks) if known[j] not in have)
            have.sort()
    for r in [L.off["DX"] + i for i in range(L.n["X"])] + [L.off["Y"] + i for i in range(L.n["Y"])]:
        deps.setdefault(r, [])
    for k in range(L.off["X"], L.off["X"] + L.n["X"]):
        deps[k] = [k]
    F = {}
    F["eval"] = ca.Function("wc_eval", inputs, [eval_out], _FOPTS)
    # a large model's mdl_eval takes its derivatives from wc_deriv (which computes them anyway)
    # and wc_eval computes the other outputs only, so the derivative code is generated and
    # compiled once instead of twice (the 33-element rotor: 74 000 operations each); below the
    # threshold both stay whole, as before (examples unchanged)
    split_eval = bool(states) and F["eval"].n_instructions() > EVAL_SPLIT_INSTRUCTIONS
    if split_eval:
        F["eval"] = ca.Function("wc_eval", inputs, [eval_out[len(states):] if eval_out.numel() > len(states)
                                                    else ca.SX(0, 1)], _FOPTS)
    rels = dae.events.relations
    zc_out = fold(solved(ca.vertcat(*[r.indicator() for r in rels]))) if rels else ca.SX(0, 1)
    # the solver's stages: derivatives, then the event indicators at the same point (they share
    # most of their subexpressions; the runtime takes the indicators of a step's end from the
    # last stage instead of evaluating wc_zc again)
    F["deriv"] = ca.Function("wc_deriv", inputs, [ca.vertcat(eval_out[:len(states)] if states else ca.SX(0, 1), zc_out)],
                             _FOPTS)
    F["zc"] = ca.Function("wc_zc", inputs, [zc_out], _FOPTS)
    # the outputs alone, with the event indicators (mdl_out): what an importer coupling this FMU
    # to others reads at every right-hand side before it can set this FMU's inputs; without
    # nonlinear loops only (the outputs would need the Newton solve that mdl_eval does)
    out_slots, outs_e, out_cheap = [], ca.SX(0, 1), []
    if not causal.w:
        out_slots = [k for k in list(range(L.off["Y"], L.off["Y"] + L.n["Y"])) + list(range(L.off["D"], L.off["D"] + L.n["DALG"]))
                     if L.slots[k].causality == "output"]
        if out_slots:
            outs_e = fold(ca.vertcat(*[sol[L.slots[k].name] for k in out_slots]))
        F["out"] = ca.Function("wc_out", inputs, [ca.vertcat(outs_e, zc_out)], _FOPTS)
        out_cheap, f_cheap = cheap_outputs(inputs, outs_e, F["out"].n_instructions())
        if f_cheap is not None:
            F["out_cheap"] = f_cheap
            if rels:
                # the indicators with the cheap outputs (mdl_zc_cheap): at a communication point
                # inside a solver step the runtime needs the indicators, and an importer that
                # reads the cheap outputs there pays for the shared kinematics once
                F["zc_cheap"] = ca.Function("wc_zc_cheap", inputs, [ca.vertcat(zc_out, *[outs_e[i] for i in out_cheap])],
                                            _FOPTS)
    F["rel"] = ca.Function("wc_rel", inputs, [fold(solved(ca.vertcat(*[r.value() for r in rels]))) if rels else ca.SX(0, 1)], _FOPTS)

    # when-clauses
    cond_exprs = []
    fire_disc = {s.name: s.sym for s in L.slots[L.off["D"] + L.n["DALG"]:L.off["D"] + L.n["D"]]}
    new_disc = dict(fire_disc)
    new_x = {s.name: s.sym for s in states}
    reinit_flag = ca.SX(0)
    term_flag = ca.SX(0)
    when_asserts = []
    when_eqs = []           # (target or None for reinit, value, loc, activation) of every when-equation
    reinit_targets = set()  # states re-initialised by reinit() (modelDescription: reinit="true")
    ci = 0
    cslots = L.slots[L.off["C"]:L.off["C"] + L.n["C"]]
    cpres = L.slots[L.off["CPRE"]:L.off["CPRE"] + L.n["CPRE"]]
    for w in dae.whens:
        taken = ca.SX(0)
        for conds, eqs in w.branches:
            fire = ca.SX(0)
            for c in conds:
                cond_exprs.append(c)
                fire = ca.logic_or(fire, ca.logic_and(cslots[ci].sym, ca.logic_not(cpres[ci].sym)))
                ci += 1
            active = ca.logic_and(fire, ca.logic_not(taken))
            taken = ca.logic_or(taken, fire)
            # branches with the same conditions are always active together
            activation = tuple(str(c) for c in conds)
            for kind, target, value, msg, loc in eqs:
                if kind == "assign":
                    new_disc[target] = ca.if_else(active, value, new_disc[target])
                    when_eqs.append((target, value, loc, activation))
                elif kind == "reinit":
                    reinit_targets.add(target)
                    new_x[target] = ca.if_else(active, value, new_x[target])
                    when_eqs.append((None, value, loc, activation))
                    reinit_flag = ca.logic_or(reinit_flag, active)
                elif kind == "terminate":
                    term_flag = ca.logic_or(term_flag, active)
                elif kind == "assert":
                    when_asserts.append((ca.logic_or(ca.logic_not(active), value), msg, loc))
    for s in states:
        s.reinit = s.name in reinit_targets
    # pre() of states inside when bodies means the value before reinit: that is x itself
    F["cond"] = ca.Function("wc_cond", inputs, [fold(solved(ca.vertcat(*cond_exprs))) if cond_exprs else ca.SX(0, 1)], _FOPTS)
    fire_out = [new_disc[n] for n in fire_disc] + [new_x[s.name] for s in states] + [reinit_flag, term_flag]
    fire_vec = simultaneous_when_equations(fold(solved(ca.vertcat(*fire_out))), fire_disc, when_eqs, solved, causal)
    F["fire"] = ca.Function("wc_fire", inputs, [fire_vec], _FOPTS)
    asserts = [(c, m, lvl, loc) for c, m, lvl, loc in dae.asserts] + [(c, m, "error", loc) for c, m, loc in when_asserts]
    F["asserts"] = ca.Function("wc_asserts", inputs, [fold(solved(ca.vertcat(*[a[0] for a in asserts]))) if asserts else ca.SX(0, 1)], _FOPTS)
    xs = ca.vertcat(*[s.sym for s in states]) if states else ca.SX(0, 1)
    has_jac = not causal.w
    # the Jacobians keep CasADi's sparsity: the generated functions return only the structural
    # nonzeros (CCS order), so their code grows with the nonzeros, not with n^2; the pattern
    # goes into model.c as constant arrays (mdl_jac_colind/mdl_jac_row) and mdl_jac scatters
    if states and has_jac:
        jac = ca.jacobian(eval_out[:len(states)], xs)
    else:
        jac = ca.SX(0, 1)
    F["jac"] = ca.Function("wc_jac", inputs, [jac], _jac_opts(jac))
    if causal.w:
        wv = ca.vertcat(*[sy for _, sy in causal.w])
        r = fold(ca.vertcat(*causal.nl_residuals))
        F["nlres"] = ca.Function("wc_nlres", inputs, [r], _FOPTS)
        nlj = ca.jacobian(r, wv)
        F["nljac"] = ca.Function("wc_nljac", inputs, [nlj], _jac_opts(nlj))
        has_homotopy = bool(getattr(dae.events, "has_homotopy", False)) and ca.depends_on(r, INIT)
    else:
        has_homotopy = False
    # directional derivatives (fmi2GetDirectionalDerivative): the Jacobian of the derivatives and
    # the outputs (rows: dx, then out_slots) with respect to the states and the inputs (columns:
    # x, then every input slot), sparse, WITHOUT the block d(dx)/dx that wc_jac computes already
    # (the runtime adds it from mdl_jac_nz); for models without nonlinear loops whose derivative
    # code is not split
    if "out" in F and has_jac and not split_eval and (states or L.n["U"]):
        us = ca.vertcat(*[s.sym for s in L.slots[L.off["U"]:L.off["U"] + L.n["U"]]]) if L.n["U"] else ca.SX(0, 1)
        top = ca.horzcat(ca.SX(len(states), len(states)),
                         ca.jacobian(eval_out[:len(states)], us) if states else ca.SX(0, us.shape[0]))
        dd = ca.vertcat(top, ca.jacobian(outs_e, ca.vertcat(xs, us)))
        F["dd"] = ca.Function("wc_dd", inputs, [dd], _jac_opts(dd))
    calcs = L.slots[L.off["P"] + L.n["P_INDEP"]:L.off["P"] + L.n["P_INDEP"] + L.n["P_CALC"]]
    # calculated parameters may depend on each other: substitute to a fixed point
    # (a parameter that the initial equations determine keeps its value here: wc_init sets it)
    bound = [s for s in calcs if not s.scalar.by_initial]
    by_init = [s for s in calcs if s.scalar.by_initial]
    calc_expr = [s.start for s in bound]
    if by_init and bound:
        isyms = ca.vertcat(*[s.sym for s in by_init])
        for s in bound:
            if isinstance(s.start, ca.SX) and ca.depends_on(s.start, isyms):
                dep = next(q.name for q in by_init if ca.depends_on(s.start, q.sym))
                raise ExportError(f"calculated parameter '{s.name}' depends on '{dep}', which has fixed=false (the "
                                  f"initial equations determine it): not supported; make '{s.name}' a parameter "
                                  f"with fixed=false determined by an initial equation too",
                                  s.scalar.base.loc, "unsupported")
    if calcs:
        ce = ca.vertcat(*[c if isinstance(c, ca.SX) else ca.SX(float(c)) for c in calc_expr]) if bound else ca.SX(0, 1)
        if bound:
            csyms = ca.vertcat(*[s.sym for s in bound])
            for _ in range(len(bound) + 1):
                if not ca.depends_on(ce, csyms):
                    break
                ce = ca.substitute(ce, csyms, ce)
            if ca.depends_on(ce, csyms):
                raise ExportError("calculated parameters depend on each other cyclically", dae.model.loc, "structure")
        ce = ca.vertcat(ce, *[s.sym for s in by_init])
        F["params"] = ca.Function("wc_params", inputs, [fold(ce)], _FOPTS)
    else:
        F["params"] = ca.Function("wc_params", inputs, [ca.SX(0, 1)], _FOPTS)

    init = initial_values(causal, L, solved, fold)
    calc_states = init.calculated
    F["init"] = ca.Function("wc_init", inputs, [init.values], _FOPTS)
    if init.newton_slots:
        F["ires"] = ca.Function("wc_ires", inputs, [init.residual], _FOPTS)
        F["ijac"] = ca.Function("wc_ijac", inputs, [init.jacobian], _jac_opts(init.jacobian))
    for s in states:
        s.initial = "calculated" if s.name in calc_states else "exact"
    model_name = dae.model.name
    ident = model_name.replace(".", "_")
    strings = [sv for sv in dae.strings if not (sv.base.protected and not expose_protected)]
    guid = "{" + str(uuid.UUID(hashlib.md5(("wearcosim:" + model_name + str(L.NV) + "".join(s.name for s in L.slots)
                                            + "".join("$str:" + sv.name for sv in strings)).encode()).hexdigest())) + "}"
    slot_of = {s.name: k for k, s in enumerate(L.slots) if s.kind != "MK_INTERNAL"}
    aliases = [(sv, slot_of[rep]) for n, (rep, sg, sv) in dae.aliases.items() if sg > 0 and rep in slot_of]
    return Generated(L, F, len(asserts), asserts, has_jac, {"calc_states": calc_states}, guid, model_name, ident, deps,
                     split_eval, out_slots if "out" in F else None, out_cheap, init.newton_slots, strings, aliases,
                     has_homotopy)


def cheap_outputs(inputs: list, outs: ca.SX, full: int) -> tuple:
    """The outputs cheap to compute on their own, and one function computing them together:
    (indices, wc_out_cheap), or ([], None) when there are none, or all outputs are cheap, or
    together they cost more than half of ``full`` (wc_out's instruction count).  An output is
    cheap when its own expression graph costs at most :data:`CHEAP_FRACTION` of ``full``.  A
    master reading a few kinematic outputs at every communication point (a joint's orbit:
    ~20 operations each, against ~540 for all of the hybrid mechanism's outputs with their
    contact forces) then does not pay for the contact law.  One function, not one per output:
    the outputs share their sines and cosines.  Its values are those of wc_out bit for bit
    (the same expressions; CasADi does not reassociate)."""
    n = outs.numel()
    idx = [i for i in range(n)
           if ca.Function("wc_probe", inputs, [outs[i]], _FOPTS).n_instructions() <= CHEAP_FRACTION * full]
    if not idx or len(idx) == n:
        return [], None
    f = ca.Function("wc_out_cheap", inputs, [ca.vertcat(*[outs[i] for i in idx])], _FOPTS)
    return (idx, f) if f.n_instructions() <= 0.5 * full else ([], None)


def simultaneous_when_equations(fire_vec: ca.SX, targets: dict[str, ca.SX], when_eqs: Sequence[Any],
                                solved: Callable[[ca.SX], ca.SX], causal: Causal) -> ca.SX:
    """The equations of the when-clauses active at an event, solved together (MLS 8.3.5).

    ``fire_vec`` holds, for each when-assigned variable ``v`` (in the order of ``targets``:
    name -> symbol), ``if active then expr else v`` and then the re-initialised states, in terms
    of the values before the event.  A when-equation is an equation
    ``v = if edge(c) then expr else pre(v)`` of the event's system: where ``expr`` uses another
    variable assigned at the same event (directly, or through the continuous equations that
    ``solved`` substitutes), it must see that variable's new value, whatever the textual order
    of the equations or clauses.  The when-equations are sorted by these dependencies (each
    defines its left-hand side) and each new value is substituted into the equations that use
    it; ``reinit`` values see the new values too.  Only ``pre(v)`` denotes the value before the
    event.

    A cycle among equations that are always active together (same clause, or clauses with the
    same condition: ``a = a + 1``, ``a = b + 1; b = a``) is an algebraic loop and is refused.
    A cycle through clauses with different conditions (``when c1 then a = b + 1``, ``when c2
    then b = a``) is resolved at each event by substituting the cycle into itself once per
    member: exact whenever the equations active at that event do not form a cycle themselves;
    if they do (both conditions fire at one instant) the values become NaN and the event
    iteration fails with an error instead of returning wrong values.
    """
    from .causalize import tarjan
    names = list(targets)
    index = {sym.name(): k for k, sym in enumerate(targets.values())}
    if not index:
        return fire_vec

    def uses(value):
        v = value if isinstance(value, ca.SX) else ca.SX(float(value))
        return {index[s.name()] for s in symvar_deep(causal.dae, solved(v)) if s.name() in index}

    n = len(names)
    deps = [set() for _ in names]
    together = [set() for _ in names]      # dependencies on equations always active together
    locs = [[] for _ in names]
    assigned_in = {}                        # activation -> targets assigned there
    for target, value, loc, act in when_eqs:
        if target is not None:
            assigned_in.setdefault(act, set()).add(names.index(target))
    reinit_uses = set()
    for target, value, loc, act in when_eqs:
        u = uses(value)
        if target is None:
            reinit_uses |= u
            continue
        k = names.index(target)
        deps[k] |= u
        together[k] |= u & assigned_in.get(act, set())
        locs[k].append(loc)
    if not reinit_uses and not any(deps):
        return fire_vec            # no when-equation uses a value assigned at an event
    if causal.w:
        nl = ca.vertcat(*causal.nl_residuals)
        wv = ca.vertcat(*[sy for _, sy in causal.w])
        if any(ca.depends_on(nl, targets[nm]) for nm in names):
            for target, value, loc, act in when_eqs:
                v = value if isinstance(value, ca.SX) else ca.SX(float(value))
                if ca.depends_on(solved(v), wv):
                    raise ExportError("a when-equation uses a variable of a nonlinear algebraic loop that "
                                      "depends on variables assigned at events: solving the loop at the "
                                      "event together with the when-equations is not supported", loc,
                                      "unsupported")

    def where(k):
        return f"{names[k]} ({locs[k][0] if locs[k] else '?'})"
    for comp in tarjan(n, [sorted(d) for d in together]):
        if len(comp) > 1 or comp[0] in together[comp[0]]:
            loop = sorted(comp)
            raise ExportError(
                "when-equations active at the same event form an algebraic loop: "
                + ", ".join(where(k) for k in loop)
                + f"; the variables assigned at an event have their new values in every equation "
                  f"of the event, write pre({names[loop[0]]}) for the value before it",
                locs[loop[0]][0] if locs[loop[0]] else None, "structure")
    out = ca.vertsplit(fire_vec)

    def substitute(exprs, ks):
        ks = sorted(ks)
        frm = ca.vertcat(*[targets[names[j]] for j in ks])
        return ca.vertsplit(ca.substitute(ca.vertcat(*exprs), frm, ca.vertcat(*[out[j] for j in ks])))

    for comp in tarjan(n, [sorted(d) for d in deps]):       # dependencies first
        inner = set(comp)
        outer = set().union(*[deps[k] for k in comp]) - inner
        if outer:
            for k, e in zip(comp, substitute([out[k] for k in comp], outer)):
                out[k] = e
        if len(comp) == 1 and comp[0] not in deps[comp[0]]:
            continue
        # a cycle through clauses with different conditions: Gauss-Seidel sweeps from the
        # values before the event, one per member, reach the solution when the active
        # equations are acyclic; one more sweep must not change it
        step = [out[k] for k in comp]
        for _ in range(len(comp)):
            new = substitute(step, inner)
            for k, e in zip(comp, new):
                out[k] = e
        again = substitute([out[k] for k in comp], inner)
        ok = ca.SX(1)
        for k, e in zip(comp, again):
            ok = ca.logic_and(ok, e == out[k])
        for k in comp:
            out[k] = ca.if_else(ok, out[k], ca.SX(float("nan")))
    if reinit_uses:
        rest = substitute(out[n:], reinit_uses)
        out[n:] = rest
    return ca.vertcat(*out)


def gather_loads(dae: Any, known: Callable[[ca.SX], ca.SX]) -> tuple:
    """(placeholders, loads) of the model's dynamic subscripts (``Dae.gathers``), or (None,
    None): each load's index and vector in knowns (``known`` substitutes the solutions of the
    unknowns), loads inside them resolved first.  A load whose index or vector needs its own
    result (an algebraic loop through an array index) is an error."""
    gathers = list(dae.gathers.values())
    if not gathers:
        return None, None
    frm = ca.vertcat(*[p for p, _, _ in gathers])
    defs = [(known(k0), known(vec)) for _, k0, vec in gathers]
    loads = [None] * len(gathers)
    for _ in range(len(gathers)):
        done = [i for i, g in enumerate(loads) if g is not None]
        sub = (ca.vertcat(*[gathers[i][0] for i in done]), ca.vertcat(*[loads[i] for i in done])) if done else None
        for j, g in enumerate(loads):
            if g is None:
                k0, vec = defs[j] if sub is None else (ca.substitute(defs[j][0], *sub), ca.substitute(defs[j][1], *sub))
                defs[j] = (k0, vec)
                if not ca.depends_on(ca.vertcat(k0, vec), frm):
                    loads[j] = symbolic.gather(k0, vec)
    if any(g is None for g in loads):
        raise ExportError("a dynamic array subscript depends on its own result (an algebraic loop through "
                          "an array index): not supported", dae.model.loc, "unsupported")
    return frm, ca.vertcat(*loads)


@dataclass
class InitialSystem:
    """What :func:`initial_values` gives the code generator."""
    values: ca.SX            # wc_init: states, discrete values, Newton starts, fixed=false parameters
    calculated: set          # names of the states the initial equations determine
    #: slots of v that the runtime solves for by Newton at initialisation (empty: none), with
    #: the residuals (in v) and their Jacobian with respect to those slots
    newton_slots: list = field(default_factory=list)
    residual: ca.SX = None
    jacobian: ca.SX = None


def _guess(s: Slot) -> ca.SX:
    """A slot's start: its start expression when that depends on parameters, else the slot
    itself (the number in v: wc_start or the value the user set)."""
    st = s.start
    return st if isinstance(st, ca.SX) and not st.is_constant() else s.sym


def _loop_dependencies(causal: Causal, rows: ca.SX, knowns: Sequence[ca.SX]) -> dict[int, set]:
    """For each row of ``rows`` that reads a Newton unknown: the indices (into ``knowns``) of
    the knowns it depends on through the nonlinear loops -- those the residuals of the loops
    it reads, and of the loops those read in turn, depend on (structural sparsity)."""
    ranges, k = [], 0
    for b in causal.blocks:
        if b.kind == "nonlinear":
            ranges.append(range(k, k + len(b.vars)))
            k += len(b.vars)
    block_of = {i: bi for bi, rg in enumerate(ranges) for i in rg}
    wv = ca.vertcat(*[sy for _, sy in causal.w])
    res = ca.vertcat(*causal.nl_residuals)
    kv = ca.vertcat(*knowns)

    def pattern(expr, of):
        sp = ca.jacobian(expr, of).sparsity()
        colind, row = sp.colind(), sp.row()
        out: dict[int, set] = {}
        for j in range(sp.size2()):
            for r in row[colind[j]:colind[j + 1]]:
                out.setdefault(r, set()).add(j)
        return out
    res_known, res_w, rows_w = pattern(res, kv), pattern(res, wv), pattern(rows, wv)
    direct = [set().union(*[res_known.get(i, set()) for i in rg]) for rg in ranges]
    reads = [{block_of[j] for i in rg for j in res_w.get(i, ())} for rg in ranges]
    closed = []
    for b in range(len(ranges)):
        seen, todo = set(), {b}
        while todo:
            c = todo.pop()
            seen.add(c)
            todo |= reads[c] - seen
        closed.append(set().union(*[direct[c] for c in seen]))
    return {r: set().union(*[closed[block_of[j]] for j in ws]) for r, ws in rows_w.items()}


def loops_read(causal: Causal, exprs: Sequence[ca.SX]) -> list[int]:
    """Indices (into ``causal.w``) of the Newton unknowns of the nonlinear loops that ``exprs``
    read, and of the loops that those loops read in turn: whole loops, in BLT order."""
    ranges, k = [], 0
    for b in causal.blocks:
        if b.kind == "nonlinear":
            ranges.append(range(k, k + len(b.vars)))
            k += len(b.vars)
    block_of = {causal.w[i][0]: bi for bi, rg in enumerate(ranges) for i in rg}

    def read(xs):
        return {block_of[y.name()] for x in xs for y in symvar_deep(causal.dae, x) if y.name() in block_of}
    todo, seen = read(exprs), set()
    while todo:
        bi = todo.pop()
        seen.add(bi)
        todo |= read([causal.nl_residuals[i] for i in ranges[bi]]) - seen
    return [i for bi in sorted(seen) for i in ranges[bi]]


def initial_values(causal: Causal, L: Layout, solved: Callable[[ca.SX], ca.SX],
                   fold: Callable[[ca.SX], ca.SX]) -> InitialSystem:
    """The initialisation problem (MLS 8.6): the initial equations together with the model's
    equations, the states with fixed=true at their start values (expressions of the
    parameters), the states and the parameters with fixed=false its unknowns.

    The model's equations are in the initial equations through ``solved`` (every unknown of
    the causalised model replaced by its solution in the knowns and the Newton unknowns of
    the nonlinear loops); the loops that they read (``loops_read``) join them with their
    residuals and unknowns.  The unknowns are matched to the equations with the loops'
    own matching kept (an initial equation may determine a state through a loop).  Without
    such loops and linear in its unknowns, the system is solved symbolically in wc_init
    (the start expressions of the states and discrete variables that keep them put in);
    otherwise wc_init gives the start values (the guesses) and the runtime solves the
    system by Newton in mdl_initialize (``newton_slots``, wc_ires/wc_ijac), from the
    content of v that wc_init's values were written into."""
    dae = causal.dae
    states = L.slots[L.off["X"]:L.off["X"] + L.n["X"]]
    dslots = L.slots[L.off["D"]:L.off["D"] + L.n["D"]]
    x0 = {s.name: _guess(s) for s in states}
    calc = {s.name for s in states if x0[s.name] is not s.sym}
    d0 = [_guess(s) for s in dslots]
    # parameters with fixed=false (MLS 8.6): unknowns of the initial equations, first in the
    # matching (nothing else determines them); their values go after the Newton starts
    pinit = [s for s in L.slots[L.off["P"] + L.n["P_INDEP"]:L.off["P"] + L.n["P_INDEP"] + L.n["P_CALC"]]
             if s.scalar is not None and s.scalar.by_initial]
    p0 = {s.name: _guess(s) for s in pinit}
    if pinit and not dae.initial_equations:
        s = pinit[0]
        raise ExportError(f"parameter '{s.name}' has fixed=false but no initial equation determines it: add "
                          f"an initial equation for it, or give it a value (fixed=true)", s.scalar.base.loc, "balance")
    newton = InitialSystem(ca.SX(0, 1), calc)
    if dae.initial_equations:
        res = [solved(r) for r, _ in dae.initial_equations]
        free = pinit + [s for s in states if s.scalar.base.fixed is not True]
        nd = L.n["DALG"]
        disc, dalg = dslots[nd:], dslots[:nd]
        if disc:
            # MLS 8.6: a when-clause not active at the initialisation keeps its variables,
            # v = pre(v): pre() of a when-assigned variable in an initial equation is the variable
            pres = [k for k, s in enumerate(disc) if dae.pre[s.name].name() in _symnames(res)]
            if pres:
                frm = ca.vertcat(*[dae.pre[disc[k].name] for k in pres])
                to = ca.vertcat(*[disc[k].sym for k in pres])
                res = [ca.substitute(r, frm, to) for r in res]
        # the discrete unknowns of the initialisation (MLS 8.6), after the states (models
        # without them are unchanged): a when-assigned variable without a fixed start that an
        # initial equation names (MSL's BooleanPulse: pulseStart = startTime), and pre() of a
        # discrete variable defined by an equation (MSL's OnOffController: pre(y) = pre_y_start)
        named = _symnames(res)
        dfree = [s for s in disc if s.scalar.base.fixed is not True and s.sym.name() in named]
        dpre = L.slots[L.off["DPRE"]:L.off["DPRE"] + nd]
        dfree += [q for s, q in zip(dalg, dpre) if q.sym.name() in named]
        free = free + dfree
        loops = loops_read(causal, res)
        wres = [causal.nl_residuals[k] for k in loops]
        syms = {s.name: s.sym for s in free} | {causal.w[k][0]: causal.w[k][1] for k in loops}
        nf, nl = len(free), len(loops)
        # the loops' residuals first, each matched to its own unknown (as the causalisation did)
        inc = incidence(wres + res, syms, dae)
        var_of_eq, eq_of_var = match(inc, nf + nl, [nf + k for k in range(nl)] + [-1] * len(res))
        # an initial equation left without an unknown is redundant if the others satisfy it
        # (MSL's HeatTransfer GenerationOfFMUs: two capacitors with fixed temperatures held
        # equal); it is checked at the default values below and dropped
        spare = [i for i in range(len(res)) if var_of_eq[nl + i] < 0]
        for k, s in enumerate(pinit):
            if eq_of_var[k] < 0:
                raise ExportError(f"parameter '{s.name}' has fixed=false but no initial equation determines it "
                                  f"({len(res)} initial equations for {len(free)} unknowns)", s.scalar.base.loc,
                                  "balance")
        chosen = [free[v] for v in var_of_eq if 0 <= v < nf]
        Vv = ca.vertcat(*[s.sym for s in chosen])
        ids = {id(s) for s in chosen}
        calc |= {s.name for s in chosen if s.name not in p0 and id(s) not in ids_of(dfree)}
        # the states and discrete variables that keep their start values, where those are
        # expressions of the parameters (v does not hold them when wc_init runs)
        kept = [(s.sym, x0[s.name]) for s in states if id(s) not in ids and x0[s.name] is not s.sym] + \
               [(s.sym, e) for s, e in zip(dslots, d0) if id(s) not in ids and e is not s.sym]
        used = [r for i, r in enumerate(res) if i not in spare]
        R = ca.vertcat(*used) if used else ca.SX(0, 1)
        if kept:
            ks = ca.vertcat(*[a for a, _ in kept])
            R = ca.substitute(unhide_gathers(dae, R, ca.vertcat(Vv, ks)), ks, ca.vertcat(*[e for _, e in kept]))
        R = unhide_gathers(dae, R, Vv)
        J = ca.jacobian(R, Vv)
        linear = not loops and not ca.depends_on(J, Vv) and not any(id(s) in ids_of(dpre) for s in chosen)
        sol = None
        if linear:
            sol = ca.vertsplit(ca.solve(J, -ca.substitute(R, Vv, ca.DM.zeros(Vv.shape[0])))) if chosen else []
        unknowns = ca.vertcat(Vv, *[causal.w[k][1] for k in loops])
        for i in spare:
            _redundant(dae, res[i], dae.initial_equations[i][1], kept, unknowns, sol, len(res), len(free))
        if linear:
            dindex = {id(s): k for k, s in enumerate(dslots)}
            for s, e in zip(chosen, sol):
                if s.name in p0:
                    p0[s.name] = e
                elif id(s) in dindex:
                    d0[dindex[id(s)]] = e
                else:
                    x0[s.name] = e
        else:
            # Newton at run time, on v: the start expressions are in v by then
            W = [causal.w[k][1] for k in loops]
            Z = ca.vertcat(Vv, *W)
            R = unhide_gathers(dae, ca.vertcat(*used, *wres), Z)
            slot = {id(s): k for k, s in enumerate(L.slots)}
            newton.newton_slots = [slot[id(s)] for s in chosen] + [L.off["W"] + k for k in loops]
            newton.residual = fold(R)
            newton.jacobian = fold(ca.jacobian(R, Z))
    if pinit:
        # a discrete start in terms of a parameter that the initial equations determine (the
        # counter of sample(t0 + T, T) after t0 = time): its value from the initial equations
        psyms = ca.vertcat(*[s.sym for s in pinit])
        pvals = ca.vertcat(*[p0[s.name] for s in pinit])
        d0 = [ca.substitute(e, psyms, pvals) if e is not s.sym and ca.depends_on(e, psyms) else e
              for s, e in zip(dslots, d0)]
    out = [x0[s.name] for s in states] + d0
    # start values of the Newton unknowns (the initial guesses of the nonlinear loops)
    out += [s.start if isinstance(s.start, ca.SX) else ca.SX(float(s.start))
            for s in L.slots[L.off["W"]:L.off["W"] + L.n["W"]]]
    out += [p0[s.name] for s in pinit]
    newton.values = fold(ca.vertcat(*out)) if out else ca.SX(0, 1)
    return newton


def ids_of(slots: "list") -> set:
    return {id(s) for s in slots}


def _symnames(exprs) -> set:
    return {q.name() for r in exprs for q in ca.symvar(r)}


#: an initial equation that the others already determine is dropped if it holds to this
#: fraction of the largest value in it (at the default values: parameters, start values)
REDUNDANT_TOL = 1e-9


def _redundant(dae: Any, r: ca.SX, loc: Any, kept: list, unknowns: ca.SX, solution: list | None,
               n_eq: int, n_free: int) -> None:
    """Check an initial equation that the matching left without an unknown: with the solution of
    the others put in (``solution``: the expressions of ``unknowns``; None: they are solved by
    Newton at run time, so it must not read them), it must hold at the default values of what
    it reads (parameters, start values, the start time), else it over-determines the start:
    an error at its line."""
    from .causalize import _nominal
    x = r
    if kept:
        ks = ca.vertcat(*[a for a, _ in kept])
        x = ca.substitute(x, ks, ca.vertcat(*[e for _, e in kept]))
    if solution is not None and unknowns.numel():
        x = ca.substitute(x, unknowns, ca.vertcat(*solution))
    ok, val = False, math.nan
    if solution is not None or not ca.depends_on(x, unknowns):
        syms = ca.symvar(x)
        vals = [_nominal(dae, q.name()) for q in syms]
        try:
            val = float(ca.Function("wc_redundant", syms, [x]).call(vals)[0])
        except Exception:      # noqa: BLE001 -- not evaluable at the defaults
            val = math.nan
        ok = math.isfinite(val) and abs(val) <= REDUNDANT_TOL * (1.0 + max([abs(v) for v in vals], default=0.0))
    if ok:
        return
    why = (f"; the others determine everything it reads, and it does not hold then (residual {val:.6g} at the "
           f"default values)" if math.isfinite(val) else "")
    if n_eq > n_free:
        raise ExportError(f"{n_eq} initial equations but only {n_free} unknowns of the initialisation "
                          f"(states with fixed=false and parameters with fixed=false): the initial equations "
                          f"over-determine the start{why}", loc, "balance")
    raise ExportError(f"initial equation does not determine any state or parameter with fixed=false{why}", loc,
                      "balance")


# ----------------------------------------------------------------------------- C code
def _cstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _cnum(x) -> str:
    if x is None:
        return "0.0"
    x = float(x)
    if math.isinf(x):
        return "INFINITY" if x > 0 else "(-INFINITY)"
    if math.isnan(x):
        return "NAN"
    return repr(x)


_ARG_READ = re.compile(r"arg\[(\d+)\]\? arg\[\1\]\[(\d+)\] : 0")


def _no_null_checks(code: str) -> str:
    """CasADi guards every read of an input with ``arg[i]? arg[i][k] : 0`` (a caller may pass
    NULL for an input it does not have).  The wrappers in model.c always pass all three inputs
    (v, &t, &init), so the reads become plain loads: a compare and a branch less per read, ~2 %
    of a right-hand side that reads a 36-sector wear profile."""
    return _ARG_READ.sub(r"arg[\1][\2]", code)


#: CasADi's definition of a gather (symbolic.py's wc_gather<n>: one bounds-checked load),
#: after the comment that names it
_GATHER_DEF = re.compile(r"(/\* wc_gather\d+:[^\n]*\*/\n)static int ")


def _inline_gathers(code: str) -> str:
    """The gathers declared ``static inline``: called from up to a dozen places of a right-hand
    side (the wear profile's sector lookups), gcc kept them out of line, and each call cost more
    than its load (hybrid mechanism, sensitivity study case: 2 % of the instructions in the
    stepping).  The same load, the same values."""
    return _GATHER_DEF.sub(r"\1static inline int ", code)


CHUNK_INSTRUCTIONS = 2000
# CasADi's common-subexpression elimination on a Jacobian takes time and memory quadratic in
# its nonzeros (6000 nonzeros: 9 s, 2.2 GB); above this many it is skipped (CSE only merges
# equal nodes: the values are the same either way)
JAC_CSE_MAX_NNZ = 2000
UNIT_INSTRUCTIONS = 40000


def _dense_jac_cost(f):
    """Operation count of f's output densified (CasADi: one constant 0 + one assignment per
    structural zero)."""
    sp = f.sparsity_out(0)
    zeros = sp.numel() - sp.nnz()
    return f.n_instructions() + zeros + (1 if zeros else 0)


def _jac_opts(J):
    return _FOPTS if J.nnz() <= JAC_CSE_MAX_NNZ else dict(_FOPTS, cse=False)


def _chunks(f):
    """Cut SX function f (one output) into functions computing consecutive ranges of the
    output's nonzeros (CCS order), each of at most ~CHUNK_INSTRUCTIONS operations: a list
    of (function, offset of its first nonzero)."""
    xin = f.sx_in()
    out = f.call(xin)[0]
    nnz = out.nnz()
    parts = max(2, -(-f.n_instructions() // CHUNK_INSTRUCTIONS))
    step = max(1, -(-nnz // parts))
    res = []
    for i, k0 in enumerate(range(0, nnz, step)):
        k1 = min(nnz, k0 + step)
        res.append((ca.Function(f"{f.name()}_c{i}", xin, [out.nz[k0:k1]], _FOPTS), k0))
    return res


#: model.c and config.h of a model with homotopy() in its loops (Generated.has_homotopy; the
#: sources of every other model are those of before, to the byte): the loops' residuals and
#: dense Jacobian at a given value of the initial() flag, which carries the homotopy
#: parameter (INIT = 2 - lambda, symbolic.Evaluator.homotopy) along rt_newton.c's path
HOMOTOPY_WRAPPERS = """
static void wc_scatter(int n, const int *colind, const int *row, double *J);

int mdl_nl_res_hom(const double *v, double t, double init, double *r) {
    return call_nlres(v, t, init, r);
}

int mdl_nl_jac_hom(const double *v, double t, double init, double *J) {
    int rc = call_nljac(v, t, init, J);
    wc_scatter(N_W, mdl_nl_colind, mdl_nl_row, J);
    return rc;
}
"""
HOMOTOPY_CONFIG = """
/* homotopy() in the nonlinear loops: the initialisation follows the path from the simplified
   to the actual expressions (rt_newton.c "Homotopy"; mdl_nl_res_hom / mdl_nl_jac_hom) */
#define HAS_HOMOTOPY 1"""


#: the generated unit holding the start values (``wc_start``), apart from model.c
START_UNIT = "model_start.c"


def render_c(gen: Generated, outdir: Path, experiment: dict[str, Any]) -> None:
    L = gen.layout
    outdir.mkdir(parents=True, exist_ok=True)
    # CasADi code: the Jacobian (the largest function, ~half of the code of a big model) goes
    # to a compilation unit of its own, model_jac.c, which package.compile_binary compiles in
    # parallel with model.c; each generator prefixes its static helpers with its own name
    stamp = f"/* Generated by wearcosim build from {gen.model_name} -- do not edit. */\n"
    cg_opts = {"with_header": False, "with_export": False, "casadi_real": "double",
               "casadi_int": "long long int", "main": False, "verbose": False, "mex": False, "cpp": False}
    split = {k for k in SEPARATE_UNIT if k in gen.functions}
    # Large functions are cut into chunks of at most CHUNK_INSTRUCTIONS operations (each
    # computing a contiguous range of the output's nonzeros) and the chunks are grouped
    # into units of at most UNIT_INSTRUCTIONS (model_<key>_<i>.c): gcc -O2's time grows
    # faster than linearly with the size of one C function (2000 oscillators: one 20 000-
    # operation function took 106 s and 0.5 GB), so bounded functions in bounded units keep
    # the build linear and parallel.  Functions below the chunk size are generated exactly
    # as before (model.c / model_jac.c).
    chunked = {}     # key -> [(casadi.Function, nonzero offset)]
    for k, f in gen.functions.items():
        if f.n_instructions() > CHUNK_INSTRUCTIONS and f.sparsity_out(0).nnz() > 1:
            chunked[k] = _chunks(f)
    units = {"wc_casadi": [gen.functions[k] for k in gen.functions if k not in split and k not in chunked],
             "wc_casadi_jac": [gen.functions[k] for k in sorted(split) if k not in chunked]}
    extra_units, stems = [], []
    for k, parts in chunked.items():
        group, size = [], 0
        for f, _ in parts:
            if group and size + f.n_instructions() > UNIT_INSTRUCTIONS:
                extra_units.append(group)
                stems.append(k)
                group, size = [], 0
            group.append(f)
            size += f.n_instructions()
        if group:
            extra_units.append(group)
            stems.append(k)
    # the chunks of the directional derivatives go to units named model_dd<i>.c, which
    # package.compile_binary compiles at -O1 (package.COLD_UNIT: off the simulation's path)
    stems = [f"{'dd' if k == 'dd' else 'u'}{i}" for i, k in enumerate(stems)]
    for stem, group in zip(stems, extra_units):
        units[f"wc_casadi_{stem}"] = group
    for name, funcs in units.items():
        cg = ca.CodeGenerator(name + ".c", cg_opts)
        for f in funcs:
            cg.add(f)
        (outdir / (name + ".inc")).write_text(stamp + _inline_gathers(_no_null_checks(cg.dump())))
    shutil.copy2(TEMPLATES / "wc_math.h", outdir / "wc_math.h")
    (outdir / "model_jac.c").write_text(Template((TEMPLATES / "model_jac.c.in").read_text()).substitute(
        STAMP=stamp.strip(), MODEL_NAME=gen.model_name, INCLUDE="wc_casadi_jac.inc"))
    for stem in stems:
        (outdir / f"model_{stem}.c").write_text(Template((TEMPLATES / "model_jac.c.in").read_text()).substitute(
            STAMP=stamp.strip(), MODEL_NAME=gen.model_name, INCLUDE=f"wc_casadi_{stem}.inc"))
    decl = "int {}(const casadi_real** arg, casadi_real** res, casadi_int* iw, casadi_real* w, int mem);   /* {} */"
    extern_decls = "\n".join([decl.format(f.name(), "model_jac.c") for f in units["wc_casadi_jac"]] +
                             [decl.format(f.name(), f"model_{stem}.c") for stem, g in zip(stems, extra_units) for f in g])

    def wrapper(key, f):
        if key in chunked:
            parts = chunked[key]
            calls = "".join(f"    res[0] = out + {off};\n    if ((rc = {g.name()}(arg, res, iw, w, 0)) != 0) return rc;\n"
                            for g, off in parts)
            return (f"static int call_{key}(const double *v, double t, double init, double *out) {{\n"
                    f"    const casadi_real *arg[{max(max(g.sz_arg() for g, _ in parts), 3)}] = {{v, &t, &init}};\n"
                    f"    casadi_real *res[{max(max(g.sz_res() for g, _ in parts), 1)}] = {{out}};\n"
                    f"    casadi_int iw[{max(max(g.sz_iw() for g, _ in parts), 1)}];\n"
                    f"    casadi_real w[{max(max(g.sz_w() for g, _ in parts), 1)}];\n"
                    f"    int rc;\n{calls}    return 0;\n}}\n")
        return (f"static int call_{key}(const double *v, double t, double init, double *out) {{\n"
                f"    const casadi_real *arg[{max(f.sz_arg(), 3)}] = {{v, &t, &init}};\n"
                f"    casadi_real *res[{max(f.sz_res(), 1)}] = {{out}};\n"
                f"    casadi_int iw[{max(f.sz_iw(), 1)}];\n"
                f"    casadi_real w[{max(f.sz_w(), 1)}];\n"
                f"    return {f.name()}(arg, res, iw, w, 0);\n}}\n")
    wrappers = "\n".join(wrapper(k, f) for k, f in gen.functions.items())
    if gen.has_homotopy:
        wrappers += HOMOTOPY_WRAPPERS
    kinds = []
    for s in L.slots:
        nm = _cstr(s.name) if s.kind != "MK_INTERNAL" else "NULL"
        ty = {"Real": "MT_REAL", "Integer": "MT_INTEGER", "Boolean": "MT_BOOLEAN"}[s.type]
        kinds.append(f"    {{{nm}, {ty}, {s.kind}, {_cnum(s.min)}, {_cnum(s.max)}}}")
    starts = []
    for s in L.slots:
        st = s.start
        n = to_num(st) if st is not None else 0.0
        if isinstance(st, (bool, np.bool_)):
            n = float(st)
        starts.append(_cnum(n if n is not None else 0.0))
    def pattern(key, n):
        """CCS pattern (colind[n+1], row[nnz]) of the sparse output of function key."""
        if key in gen.functions and gen.functions[key].sparsity_out(0).size()[1] == n:
            sp = gen.functions[key].sparsity_out(0)
            return list(sp.colind()), list(sp.row())
        return [0] * (n + 1), []

    def ints(a):
        return ",".join(str(int(i)) for i in a) if a else "0"
    jac_colind, jac_row = pattern("jac", L.n["X"]) if gen.has_jac else ([0] * (L.n["X"] + 1), [])
    nl_colind, nl_row = pattern("nljac", L.n["W"])
    dd_colind, dd_row = pattern("dd", L.n["X"] + L.n["U"])
    iz = gen.init_slots or []
    ijac_colind, ijac_row = pattern("ijac", len(iz))
    amsgs = []
    for c, m, lvl, loc in gen.assert_msgs:
        amsgs.append(f"    {{{_cstr(m)}, {_cstr(str(loc))}, {1 if lvl == 'error' else 0}}}")
    subs = dict(
        MODEL_NAME=gen.model_name, STAMP=stamp.strip(),
        VAR_TABLE=",\n".join(kinds) if kinds else "    {NULL, 0, 0, 0, 0}",
        WRAPPERS=wrappers, EXTERN_DECLS=extern_decls,
        ASSERT_TABLE=",\n".join(amsgs) if amsgs else "    {NULL, NULL, 0}",
        N_ASSERT=str(gen.n_asserts),
        OUT_SLOTS=ints(gen.out_slots or []),
        OUT_CHEAP=ints(gen.out_cheap or []),
        DD_COLIND=ints(dd_colind), DD_ROW=ints(dd_row),
        N_DISC=str(L.n["D"] - L.n["DALG"]), N_P_INIT=str(L.n["P_INIT"]),
        JAC_COLIND=ints(jac_colind), JAC_ROW=ints(jac_row),
        NL_COLIND=ints(nl_colind), NL_ROW=ints(nl_row),
        N_IZ=str(len(iz)), IZ_SLOTS=ints(iz), IJAC_NNZ=str(len(ijac_row)),
        IZ_NAMES=", ".join(_cstr(L.slots[k].name.removeprefix("$w.")) for k in iz) or "0",
        IJAC_COLIND=ints(ijac_colind), IJAC_ROW=ints(ijac_row),
        X_NOMINAL=", ".join(_cnum(s.nominal or 1.0) for s in L.slots[L.off["X"]:L.off["X"] + L.n["X"]]) or "1.0",
        STR_TABLE=", ".join(_cstr(sv.value) for sv in gen.strings) or "0",
    )
    tpl = Template((TEMPLATES / "model.c.in").read_text())
    (outdir / "model.c").write_text(tpl.substitute(subs))
    exp = experiment or {}
    # the start values (parameter defaults among them), the cost counts and the experiment in
    # a unit of their own, which includes nothing of the model: a rebuild after a default, the
    # stop time or the size of the generated code changed compiles this table (milliseconds)
    # and takes the runtime's objects from the build cache (package.ObjectCache)
    # (the dense mdl_jac also writes the n^2 - nnz structural zeros: its cost is the count the
    # dense generated function had, so the auto method's switching is unchanged; the sparse
    # path, banded LU, costs the nonzeros' operations only)
    costs = (gen.functions["deriv"].n_instructions(), _dense_jac_cost(gen.functions["jac"]) if gen.has_jac else 0,
             gen.functions["jac"].n_instructions() if gen.has_jac else 0)
    (outdir / START_UNIT).write_text(
        f"{stamp}/* Start values of the variables of {gen.model_name} (model.c's mdl_set_start copies them), the\n"
        f"   cost model's instruction counts and the experiment (config.h's MDL_COST_*, DEFAULT_*). */\n"
        f"#include <math.h>\n"
        f"const double wc_start[{max(L.NV, 1)}] = {{{', '.join(starts) if starts else '0.0'}}};\n"
        f"const double mdl_costs[3] = {{{', '.join(_cnum(c) for c in costs)}}};\n"
        f"const double mdl_experiment[3] = {{{_cnum(exp.get('StartTime', 0.0))}, {_cnum(exp.get('StopTime', 1.0))}, "
        f"{_cnum(exp.get('Tolerance', 1e-6))}}};\n")
    cfg = dict(
        STAMP=stamp.strip(), IDENT=gen.identifier, GUID=gen.guid, NV=str(L.NV),
        N_X=str(L.n["X"]), OFF_X=str(L.off["X"]), OFF_DX=str(L.off["DX"]),
        OFF_P=str(L.off["P"]), N_P=str(L.n["P"]), N_P_INDEP=str(L.n["P_INDEP"]), N_P_CALC=str(L.n["P_CALC"]),
        OFF_U=str(L.off["U"]), N_U=str(L.n["U"]), OFF_Y=str(L.off["Y"]), N_Y=str(L.n["Y"]),
        OFF_D=str(L.off["D"]), N_D=str(L.n["D"]), N_DALG=str(L.n["DALG"]), OFF_DPRE=str(L.off["DPRE"]),
        OFF_M=str(L.off["M"]), N_M=str(L.n["M"]), OFF_MPRE=str(L.off["MPRE"]),
        OFF_C=str(L.off["C"]), N_C=str(L.n["C"]), OFF_CPRE=str(L.off["CPRE"]),
        OFF_W=str(L.off["W"]), N_W=str(L.n["W"]),
        OFF_SOLVER=str(L.off["SOLVER"]), HAS_JACOBIAN="1" if gen.has_jac else "0",
        EVAL_SPLIT="1" if gen.split_eval else "0",
        HAS_OUT="1" if gen.out_slots is not None else "0", N_OUT=str(len(gen.out_slots or [])),
        HAS_OUT_CHEAP="1" if gen.out_cheap else "0", N_OUT_CHEAP=str(len(gen.out_cheap or [])),
        HAS_ZC_CHEAP="1" if "zc_cheap" in gen.functions else "0",
        HAS_DD="1" if "dd" in gen.functions else "0", DD_NNZ=str(len(dd_row)),
        JAC_NNZ=str(len(jac_row)), NL_NNZ=str(len(nl_row)),
        N_STR=str(len(gen.strings)),
        HOMOTOPY=HOMOTOPY_CONFIG if gen.has_homotopy else "",
    )
    tpl = Template((TEMPLATES / "config.h.in").read_text())
    (outdir / "config.h").write_text(tpl.substitute(cfg))


# ----------------------------------------------------------------------------- XML
#: the log categories of the runtime (fmu/runtime/rt_instance.c, rt_log_categories, in its
#: order) with what each one reports; fmi2SetDebugLogging takes these names
LOG_CATEGORIES = (
    ("logEvents", "Events: state events located by the embedded solver, states re-initialised "
                  "and terminate() at events"),
    ("logStatusWarning", "Warnings (status fmi2Warning): asserts of level warning, terminate() "
                         "during initialization"),
    ("logStatusDiscard", "Discarded steps and evaluations (status fmi2Discard, always reported): "
                         "values that are not finite, the work budget of fmi2DoStep exceeded"),
    ("logStatusError", "Errors (status fmi2Error, always reported): failed asserts and Newton "
                       "solves, invalid calls and arguments"),
    ("logAll", "Every message, with the solver chosen and its statistics"),
)

#: fmiModelDescription attributes taken from the library's annotations (FMI 2.0, 2.2.1)
META_ATTRS = ("author", "version", "copyright", "license")


def render_xml(gen: Generated, experiment: dict[str, Any], description: str = "",
               source_files: Sequence[str] = ("model.c",),
               meta: dict[str, Any] | None = None) -> str:
    """modelDescription.xml.  ``meta``: author, version, copyright, license (the
    fmiModelDescription attributes of the same names), each given only when not empty."""
    L = gen.layout
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<!-- Generated by wearcosim build from {escape(gen.model_name)}: do not edit. -->']
    n_ev = L.n["M"]
    meta_attrs = "".join(f'{k}={quoteattr(" ".join(str(meta[k]).split()))} '
                         for k in META_ATTRS if meta and meta.get(k))
    out.append(f'<fmiModelDescription fmiVersion="2.0" modelName={quoteattr(gen.model_name)} '
               f'guid={quoteattr(gen.guid)} description={quoteattr(description or gen.model_name)} '
               f'{meta_attrs}generationTool="wearcosim" variableNamingConvention="structured" '
               f'numberOfEventIndicators="{n_ev}">')
    caps = ('canGetAndSetFMUstate="true" canSerializeFMUstate="true" '
            f'providesDirectionalDerivative="{"true" if "dd" in gen.functions else "false"}" '
            'canNotUseMemoryManagementFunctions="true"')
    out.append(f'  <ModelExchange modelIdentifier={quoteattr(gen.identifier)} {caps} '
               f'completedIntegratorStepNotNeeded="true">')
    out.append(_source_files(source_files))
    out.append('  </ModelExchange>')
    out.append(f'  <CoSimulation modelIdentifier={quoteattr(gen.identifier)} {caps} '
               f'canHandleVariableCommunicationStepSize="true" canInterpolateInputs="true" '
               f'maxOutputDerivativeOrder="1">')
    out.append(_source_files(source_files))
    out.append('  </CoSimulation>')
    out.extend(unit_definitions(L))
    out.extend(type_definitions(L))
    out.append('  <LogCategories>')
    out.extend(f'    <Category name="{n}" description={quoteattr(d)}/>' for n, d in LOG_CATEGORIES)
    out.append('  </LogCategories>')
    if experiment:
        attrs = " ".join(f'{k}="{experiment[k]!r}"' for k in ("startTime", "stopTime", "tolerance", "stepSize") if k in experiment)
        out.append(f'  <DefaultExperiment {attrs}/>')
    out.append('  <ModelVariables>')
    index = {}
    exported = [k for k, s in enumerate(L.slots) if s.kind != "MK_INTERNAL"]
    for pos, k in enumerate(exported, 1):
        index[k] = pos
    for k in exported:
        s = L.slots[k]
        caus, var, init, start = _fmi_attrs(s, L, k)
        s.causality, s.variability, s.initial = caus, var, init
        a = [f'name={quoteattr(fmi_name(s.name))}', f'valueReference="{k}"']
        if s.description:
            a.append(f'description={quoteattr(s.description)}')
        a.append(f'causality="{caus}"')
        a.append(f'variability="{var}"')
        if init:
            a.append(f'initial="{init}"')
        t_attr = []
        if s.type == "Real":
            t_attr += _unit_attrs(s)
            if s.derivative_of >= 0:
                t_attr.append(f'derivative="{index[L.off["X"] + s.derivative_of]}"')
            if s.kind == "MK_STATE" and s.reinit:
                t_attr.append('reinit="true"')
        if s.type == "Real" and s.nominal:
            t_attr.append(f'nominal="{s.nominal!r}"')
        if s.type in ("Real", "Integer"):
            if math.isfinite(s.min):
                t_attr.append(f'min="{_fmt(s.min, s.type)}"')
            if math.isfinite(s.max):
                t_attr.append(f'max="{_fmt(s.max, s.type)}"')
        if start is not None:
            t_attr.append(f'start="{_fmt(start, s.type)}"')
        tag = s.type
        if s.enum is not None and s.type == "Integer":
            tag = "Enumeration"
            t_attr.insert(0, f'declaredType={quoteattr(s.enum.name)}')
        out.append(f'    <ScalarVariable {" ".join(a)}>')
        out.append(f'      <{tag} {" ".join(t_attr)}/>')
        out.append('    </ScalarVariable>')
    for sv, k in gen.aliases:
        # an alias equal to its representative: same valueReference, value computed (FMI 2.0
        # 2.2.7); the start value and the unit attributes are the representative's
        s = L.slots[k]
        a = [f'name={quoteattr(sv.name)}', f'valueReference="{k}"']
        if sv.base.description:
            a.append(f'description={quoteattr(sv.base.description)}')
        a.append('causality="local" variability="continuous" initial="calculated"')
        t_attr = _unit_attrs(s)
        out.append(f'    <ScalarVariable {" ".join(a)}>')
        out.append(f'      <Real {" ".join(t_attr)}/>')
        out.append('    </ScalarVariable>')
    for vr, sv in enumerate(gen.strings):
        const = sv.base.variability == "constant"
        a = [f'name={quoteattr(sv.name)}', f'valueReference="{vr}"']
        if sv.base.description:
            a.append(f'description={quoteattr(sv.base.description)}')
        a.append('causality="local" variability="constant"' if const else 'causality="parameter" variability="fixed"')
        a.append('initial="exact"')
        out.append(f'    <ScalarVariable {" ".join(a)}>')
        out.append(f'      <String start={quoteattr(sv.value)}/>')
        out.append('    </ScalarVariable>')
    out.append('  </ModelVariables>')
    out.append('  <ModelStructure>')
    def unknown(k):
        d = (gen.deps or {}).get(k)
        if d is None or L.slots[k].type != "Real":
            return f'      <Unknown index="{index[k]}"/>'
        dl = " ".join(str(index[j]) for j in sorted(set(d), key=lambda j: index[j]))
        kinds = " ".join("dependent" for _ in sorted(set(d)))
        return f'      <Unknown index="{index[k]}" dependencies="{dl}" dependenciesKind="{kinds}"/>'
    outs = [k for k in exported if L.slots[k].causality == "output"]
    if outs:
        out.append('    <Outputs>')
        out.extend(unknown(k) for k in outs)
        out.append('    </Outputs>')
    ders = [k for k in exported if L.slots[k].kind == "MK_DERIV"]
    if ders:
        out.append('    <Derivatives>')
        out.extend(unknown(k) for k in ders)
        out.append('    </Derivatives>')
    init_unknowns = []
    for k in exported:
        s = L.slots[k]
        if (s.causality == "output" and s.initial in ("approx", "calculated")) or s.causality == "calculatedParameter" \
                or (s.kind in ("MK_STATE", "MK_DERIV") and s.initial in ("approx", "calculated")):
            init_unknowns.append(k)
    if init_unknowns:
        out.append('    <InitialUnknowns>')
        out.extend(f'      <Unknown index="{index[k]}"/>' for k in sorted(init_unknowns, key=lambda k: index[k]))
        out.append('    </InitialUnknowns>')
    out.append('  </ModelStructure>')
    out.append('</fmiModelDescription>')
    return "\n".join(out) + "\n"


def unit_definitions(L: Layout) -> list:
    """Lines of ``<UnitDefinitions>``: every unit of an exported Real variable with its
    ``<BaseUnit>`` (SI base-unit exponents, factor, offset) and the ``<DisplayUnit>``s the
    variables of that unit name (FMI 2.0, 2.2.2); no lines when no variable has a unit."""
    displays = {}
    for s in L.slots:
        if s.unit and s.type == "Real" and s.kind != "MK_INTERNAL":
            d = displays.setdefault(s.unit, set())
            if s.display_unit and s.display_unit != s.unit:
                d.add(s.display_unit)
    if not displays:
        return []
    out = ['  <UnitDefinitions>']
    for u in sorted(displays):
        out.append(f'    <Unit name={quoteattr(u)}>')
        out.append(f'      <BaseUnit {_units.base_unit_attrs(u)}/>'.replace(" />", "/>"))
        for d in sorted(displays[u]):
            f, o = _units.display_conversion(u, d)
            attrs = f' factor="{f!r}"' + (f' offset="{o!r}"' if o else "")
            out.append(f'      <DisplayUnit name={quoteattr(d)}{attrs}/>')
        out.append('    </Unit>')
    out.append('  </UnitDefinitions>')
    return out


def fmi_name(name: str) -> str:
    """The FMI 2.0 name of a variable (structured naming convention, 2.2.9): a derivative of
    order n > 1 that the index reduction made a variable, ``der(der(x))``, is ``der(x,2)``."""
    n = 0
    while name.startswith("der(", 4 * n) and name.endswith(")" * (n + 1)):
        n += 1
    if n < 2:
        return name
    return f"der({name[4 * n:len(name) - n]},{n})"


def enum_types(L: Layout) -> dict:
    """{name: enumeration type} of the exported Integer variables that are enumerations."""
    types = {}
    for s in L.slots:
        if s.enum is not None and s.type == "Integer" and s.kind != "MK_INTERNAL":
            types.setdefault(s.enum.name, s.enum)
    return types


def type_definitions(L: Layout) -> list:
    """Lines of ``<TypeDefinitions>``: a SimpleType with an ``<Enumeration>`` of Items (values
    1..n, FMI 2.0 2.2.3) for each enumeration type of an exported variable; none without."""
    types = enum_types(L)
    if not types:
        return []
    out = ['  <TypeDefinitions>']
    for name in sorted(types):
        t = types[name]
        d = f' description={quoteattr(t.description)}' if t.description else ""
        out.append(f'    <SimpleType name={quoteattr(name)}{d}>')
        out.append('      <Enumeration>')
        for k, (item, idesc) in enumerate(t.items, 1):
            d = f' description={quoteattr(idesc)}' if idesc else ""
            out.append(f'        <Item name={quoteattr(item)} value="{k}"{d}/>')
        out.append('      </Enumeration>')
        out.append('    </SimpleType>')
    out.append('  </TypeDefinitions>')
    return out


def _unit_attrs(s: Any) -> list:
    """quantity, unit and displayUnit attributes of a Real slot's element in the model
    description (a variable's own or, for an alias, its representative's)."""
    out = []
    if s.quantity:
        out.append(f'quantity={quoteattr(s.quantity)}')
    if s.unit:
        out.append(f'unit={quoteattr(s.unit)}')
        if s.display_unit and s.display_unit != s.unit:
            out.append(f'displayUnit={quoteattr(s.display_unit)}')
    return out


def _fmt(x, typ):
    if typ == "Boolean":
        return "true" if float(x) else "false"
    if typ == "Integer":
        return str(int(round(float(x))))
    return repr(float(x))


def _fmi_attrs(s: Slot, L: Layout, k: int):
    """(causality, variability, initial, start) following FMI 2.0's rules."""
    disc = "discrete" if s.type != "Real" else "continuous"
    if s.kind == "MK_STATE":
        caus = s.causality
        init = s.initial or "exact"
        return caus, "continuous", init, (s.start if init == "exact" else None)
    if s.kind == "MK_DERIV":
        return "local", "continuous", "calculated", None
    if s.kind == "MK_PARAM_FIXED":
        return "parameter", "fixed", "exact", s.start
    if s.kind == "MK_PARAM_TUNABLE":
        return "parameter", "tunable", "exact", s.start
    if s.kind == "MK_CALC_PARAM":
        if s.variability == "constant":
            return "local", "constant", "exact", s.start
        return "calculatedParameter", "fixed", "calculated", None
    if s.kind == "MK_INPUT":
        return "input", disc, "", (s.start if s.start is not None and to_num(s.start) is not None else 0.0)
    if s.kind == "MK_DISCRETE":
        if s.causality == "output":
            return "output", "discrete", "calculated", None
        st = s.start
        if st is not None and to_num(st) is not None:
            return "local", "discrete", "exact", to_num(st)
        return "local", "discrete", "calculated", None
    # computed
    var = "discrete" if s.type != "Real" else "continuous"
    return s.causality, var, "calculated", None


def _source_files(files):
    return "    <SourceFiles>\n" + "\n".join(f'      <File name="{f}"/>' for f in files) + "\n    </SourceFiles>"


# ----------------------------------------------------------------------------- documentation
_DOC_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em;line-height:1.4}"
              "table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #bbb;padding:0.2em 0.5em;"
              "text-align:left;vertical-align:top}th{background:#eee}td.num{text-align:right}"
              "code{font-size:95%}")


def _html_body(html: str) -> str:
    """The content of a Modelica ``Documentation`` HTML string for embedding in a page: no
    ``<html>``/``<head>``/``<body>`` wrappers; ``modelica://`` links (which only a Modelica
    tool resolves) become their text."""
    h = re.sub(r"(?is)<head\b.*?</head>", "", html)
    h = re.sub(r"(?i)</?(html|body)\b[^>]*>", "", h)
    return re.sub(r'(?is)<a\s+href\s*=\s*"modelica://[^"]*"\s*>(.*?)</a>', r"\1", h).strip()


def _doc_num(x) -> str:
    n = to_num(x) if x is not None else None
    if isinstance(x, (bool, np.bool_)):
        n = float(x)
    return "" if n is None else "%.15g" % float(n)


def render_documentation(gen: Generated, description: str = "", documentation: dict[str, Any] | None = None,
                         meta: dict[str, Any] | None = None) -> str:
    """``documentation/index.html`` of the FMU (FMI 2.0, 2.1: the entry point of the FMU's
    documentation): the model's name and description, the library's version, author,
    copyright and license, the model's ``Documentation(info, revisions)``, and tables of the
    parameters, inputs, outputs and states with their units."""
    L = gen.layout
    documentation, meta = documentation or {}, meta or {}
    e = escape
    out = ['<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
           f'<title>{e(gen.model_name)}</title>', f'<style>{_DOC_STYLE}</style>', '</head>', '<body>',
           f'<!-- Generated by wearcosim build from {e(gen.model_name)}: do not edit. -->',
           f'<h1>{e(gen.model_name)}</h1>']
    if description:
        out.append(f'<p><i>{e(description)}</i></p>')
    facts = [("FMI", "2.0, Model Exchange and Co-Simulation"), ("Generated by", "wearcosim")]
    facts += [(k.capitalize(), meta[k]) for k in META_ATTRS if meta.get(k)]
    out.append('<table>' + "".join(f'<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>' for k, v in facts) + '</table>')
    if documentation.get("info"):
        out += ['<h2>Description</h2>', _html_body(documentation["info"])]
    if documentation.get("revisions"):
        out += ['<h2>Revisions</h2>', _html_body(documentation["revisions"])]

    def unit_cell(s):
        """the unit, else the quantity (a Hertz stiffness has no unit string)"""
        if s.unit:
            return f'<code>{e(s.unit)}</code>'
        return f'<i>{e(s.quantity)}</i>' if s.quantity else ""

    def table(title, rows, head):
        if not rows:
            return
        out.append(f'<h2>{e(title)}</h2>')
        out.append('<table><tr>' + "".join(f'<th>{e(h)}</th>' for h in head) + '</tr>')
        out.extend('<tr>' + "".join(rows_ for rows_ in r) + '</tr>' for r in rows)
        out.append('</table>')

    def cells(s, *extra):
        return [f'<td><code>{e(s.name)}</code></td>', f'<td>{unit_cell(s)}</td>'] + \
               [f'<td class="num">{e(x)}</td>' for x in extra] + [f'<td>{e(s.description)}</td>']

    def bound(x):
        return "" if not math.isfinite(x) else _doc_num(x)
    exported = [s for s in L.slots if s.kind != "MK_INTERNAL"]
    params = [s for s in exported if s.kind == "MK_PARAM_FIXED"]
    solver = [s for s in exported if s.kind == "MK_PARAM_TUNABLE"]
    table("Parameters", [cells(s, _doc_num(s.start), bound(s.min), bound(s.max)) for s in params],
          ("Name", "Unit", "Default", "Min", "Max", "Description"))
    table("Inputs", [cells(s, _doc_num(s.start)) for s in exported if s.kind == "MK_INPUT"],
          ("Name", "Unit", "Start", "Description"))
    table("Outputs", [cells(s) for s in exported if s.causality == "output"],
          ("Name", "Unit", "Description"))
    table("States", [cells(s, _doc_num(s.nominal) if s.nominal else "", "yes" if s.reinit else "")
                     for s in exported if s.kind == "MK_STATE"],
          ("Name", "Unit", "Nominal", "Re-initialised at events", "Description"))
    table("Solver parameters (tunable)", [cells(s, _doc_num(s.start)) for s in solver],
          ("Name", "Unit", "Default", "Description"))
    out += ['</body>', '</html>']
    return "\n".join(out) + "\n"
