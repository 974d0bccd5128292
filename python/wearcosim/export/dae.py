"""Pass 1 (IR -> scalar DAE): classify variables, create one CasADi symbol per scalar,
evaluate every equation into scalar residuals, extract events and when-clauses.

Variable classes (``ScalarVar.kind``):

``param``   independent Real parameter (start = its literal/constant binding), FMI "fixed"
``calc``    calculated parameter (binding depends on other parameters)
``const``   constant, or structural parameter (Integer/Boolean parameters and any parameter
            whose value fixes a size, range or subscript): folded to a number at build time,
            exported as ``variability="constant"``
``input``   top-level input
``state``   appears under ``der()``
``alg``     Real, continuous-time, computed by the equations
``dalg``    Integer/Boolean (discrete-valued) computed by equations outside when-clauses
            (piecewise constant: changes only at events)
``disc``    assigned in a when-clause (Real, Integer or Boolean)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import casadi as ca
import numpy as np

from . import ir
from .errors import ExportError
from .events import EventRegistry, assigns_state_error, twice_in_one_branch_error, two_when_equations_error
from .symbolic import Evaluator, _numeric, as_sx, gather_index, is_num, select_chain, to_num


@dataclass
class ScalarVar:
    name: str                 # FMI name, e.g. "q[1]" or "joint.M[1,2]"
    base: ir.Var
    index: tuple              # 0-based index inside the base array
    kind: str
    sym: Optional[ca.SX] = None
    start: object = None      # number, or SX expression of parameters
    value: object = None      # numeric value for const
    type: str = "Real"
    structural: bool = False  # a parameter whose value fixes a size/range/subscript (folded)
    by_initial: bool = False  # a parameter with fixed=false: the initial equations determine it

    @property
    def causality(self) -> str:
        return self.base.causality


@dataclass
class Dae:
    model: ir.Model
    t: ca.SX
    init_flag: ca.SX
    scalars: dict = field(default_factory=dict)          # name -> ScalarVar (declaration order)
    der: dict = field(default_factory=dict)              # state name -> der symbol
    pre: dict = field(default_factory=dict)              # disc/dalg name -> pre symbol
    equations: list = field(default_factory=list)        # [(SX residual, Loc)]
    initial_equations: list = field(default_factory=list)
    whens: list = field(default_factory=list)            # [WhenS]
    asserts: list = field(default_factory=list)          # [(SX cond, message, level, Loc)]
    events: EventRegistry = None
    param_values: dict = field(default_factory=dict)     # param/calc name -> numeric default
    #: indexed loads of dynamic subscripts: {placeholder name: (placeholder SX symbol, 0-based
    #: index SX, vector SX)}; the passes see the placeholder, codegen puts in the load
    #: (symbolic.gather)
    gathers: dict = field(default_factory=dict)
    #: enumeration-typed variables: {variable name: build.EnumType} (the front end's
    #: ``enumerations``; their scalars are Integers here)
    enums: dict = field(default_factory=dict)
    #: String parameters and constants, kept out of the numerics: [StringVar]
    strings: list = field(default_factory=list)
    #: eliminated aliases (alias.eliminate): {name: (representative, sign, ScalarVar)},
    #: name = sign * representative
    aliases: dict = field(default_factory=dict)

    def of_kind(self, *kinds: str) -> list["ScalarVar"]:
        return [s for s in self.scalars.values() if s.kind in kinds]


def symvar_deep(dae: "Dae", x: ca.SX) -> list:
    """The symbols ``x`` depends on, looking through the indexed loads' placeholders (their
    index's and vector's symbols instead): what the expression really depends on, for the
    incidence of the equations."""
    defs = dae.gathers
    syms = ca.symvar(x)
    if not defs:
        return syms
    out, seen, todo = [], set(), list(syms)
    while todo:
        s = todo.pop()
        n = s.name()
        if n in seen:
            continue
        seen.add(n)
        if n in defs:
            todo.extend(ca.symvar(ca.vertcat(defs[n][1], defs[n][2])))
        else:
            out.append(s)
    return out


def unhide_gathers(dae: "Dae", x: ca.SX, wrt: ca.SX) -> ca.SX:
    """``x`` with the placeholders of the indexed loads whose index or vector depends on ``wrt``
    (or holds another load) replaced by select chains: for a pass that differentiates with
    respect to ``wrt`` (a placeholder's derivative is zero; the chain's is the load's)."""
    defs = dae.gathers
    if not defs or x.numel() == 0 or wrt.numel() == 0:
        return x
    for _ in range(len(defs) + 1):
        present = {s.name() for s in ca.symvar(x)} & defs.keys()
        hit = []
        for n in present:
            _, k0, vec = defs[n]
            dep = ca.vertcat(k0, vec)
            if ca.depends_on(dep, wrt) or any(q.name() in defs for q in ca.symvar(dep)):
                hit.append(defs[n])
        if not hit:
            return x
        frm = ca.vertcat(*[p for p, _, _ in hit])
        to = ca.vertcat(*[select_chain(k0 + 1, ca.vertsplit(vec)) for _, k0, vec in hit])
        x = ca.substitute(x, frm, to)
    return x


@dataclass
class StringVar:
    """A scalar String parameter or constant (FMI String variable) with its value."""
    name: str
    base: ir.Var
    value: str


def _string_values(model: ir.Model, num_value) -> list:
    """The String parameters and constants of the model with their values: literals, other
    String parameters, ``+`` and ``String(x)`` of a number; one whose value is not computable
    at build time (a String input of a function, ...) is left out."""
    S = model.strings
    memo: dict = {}

    def ev(e, busy):
        if isinstance(e, ir.Lit) and isinstance(e.value, str):
            return e.value
        if isinstance(e, ir.Ref) and not e.subs and e.name in S:
            if e.name in busy:
                raise ValueError(e.name)
            if e.name not in memo:
                v = S[e.name]
                src = v.binding if v.binding is not None else v.start
                memo[e.name] = None if src is None else ev(src, busy | {e.name})
            if memo[e.name] is None:
                raise ValueError(e.name)
            return memo[e.name]
        if isinstance(e, ir.Bin) and e.op == "+":
            return ev(e.a, busy) + ev(e.b, busy)
        if isinstance(e, ir.If):
            for c, val in e.branches:
                if _number(model, c, num_value):
                    return ev(val, busy)
            return ev(e.other, busy)
        if isinstance(e, ir.Call) and e.name == "String" and e.args:
            x = _number(model, e.args[0], num_value)
            if isinstance(x, (bool, np.bool_)):
                return "true" if x else "false"
            return str(x) if isinstance(x, (int, np.integer)) else "%.6g" % float(x)
        raise ValueError(type(e).__name__)

    out = []
    for name, v in S.items():
        if v.dims:
            src = v.binding if v.binding is not None else v.start
            if isinstance(src, ir.Arr) and len(src.elems) == v.dims[0] and len(v.dims) == 1:
                for i, el in enumerate(src.elems):
                    try:
                        out.append(StringVar(f"{name}[{i + 1}]", v, ev(el, frozenset())))
                    except (ValueError, ExportError):
                        pass
            continue
        try:
            out.append(StringVar(name, v, ev(ir.Ref(name), frozenset())))
        except (ValueError, ExportError):
            pass
    return out


def _number(model, e, num_value):
    x = to_num(Evaluator(model, lambda n, l: num_value(n, l), numeric=True).eval(e))
    if x is None:
        raise ValueError("not a number")
    return x


@dataclass
class WhenS:
    """A when-clause: ordered branches, each with condition elements and equations."""
    branches: list            # [(conds [SX], eqs [(kind, target_name, value SX|None, message, Loc)])]
    loc: ir.Loc


def _scalar_names(v: ir.Var):
    if not v.dims:
        return [(v.name, ())]
    return [(f"{v.name}[{','.join(str(i + 1) for i in idx)}]", idx) for idx in np.ndindex(*v.dims)]


def _state_refs(model: ir.Model):
    """(name, subs) of every variable under der() in equations/algorithms."""
    found = []

    def visit(e):
        for x in ir.walk(e):
            if isinstance(x, ir.Call) and x.builtin and x.name == "der":
                for y in ir.walk(x.args[0]):
                    if isinstance(y, ir.Ref) and y.name != "time":
                        found.append(y)

    for eq in model.equations:
        visit(eq.residual)
    for alg in model.algorithms:
        for st in _walk_stmts(alg):
            for e in _stmt_exprs(st):
                visit(e)
    return found


def _walk_stmts(stmts):
    for s in stmts:
        yield s
        if isinstance(s, ir.IfStmt):
            for _, b in s.blocks:
                yield from _walk_stmts(b)
            yield from _walk_stmts(s.other)
        elif isinstance(s, (ir.ForStmt, ir.WhileStmt)):
            yield from _walk_stmts(s.body)


def _stmt_exprs(s):
    if isinstance(s, ir.Assign):
        return [s.value]
    if isinstance(s, ir.IfStmt):
        return [c for c, _ in s.blocks]
    if isinstance(s, ir.ForStmt):
        return [s.range]
    if isinstance(s, ir.WhileStmt):
        return [s.cond]
    return []


def _evaluated_params(V, structural: set, num_value) -> set:
    """Real parameters folded at build time because of ``annotation(Evaluate=true)`` (and
    Integer/Boolean ones annotated ``Evaluate=false`` that a ``final`` modifier fixes).

    rumoca reports ``evaluate`` for annotated parameters and for every ``final`` one.  A
    parameter is folded only if its value depends on nothing but literals and parameters that
    are folded themselves (fixpoint), so a ``final`` parameter computed from tunable ones stays
    a calculated parameter, and an annotated parameter bound to a tunable one stays tunable
    (annotate the dependencies too).  Folded parameters are exported as constants; the
    expressions that use them are simplified by CasADi (zeros of a folded matrix vanish from
    the generated code)."""
    cand = {n for n, v in V.items() if v.variability == "parameter" and (v.type == "Real" or v.keep)
            and (v.evaluate or v.keep and v.final and v.type != "Real") and n not in structural}
    deps = {}
    for n in cand:
        v = V[n]
        expr = v.binding if v.binding is not None else v.start
        refs = set() if expr is None else {x.name for x in ir.walk(expr) if isinstance(x, ir.Ref)}
        deps[n] = {r for r in refs if r in V}
    out = set()
    changed = True
    while changed:
        changed = False
        for n in sorted(cand - out):
            if all(d in structural or d in out for d in deps[n]):
                try:
                    num_value(n, V[n].loc)
                except ExportError:
                    cand.discard(n)
                    continue
                out.add(n)
                changed = True
    return out


def build(model: ir.Model) -> Dae:
    t = ca.SX.sym("time")
    dae = Dae(model=model, t=t, init_flag=ca.SX.sym("initial()"))
    V = model.variables

    # --- when-assigned variables
    when_targets = set()
    for w in model.whens:
        for _, eqs in w.branches:
            for we in eqs:
                if we.kind == "assign" and we.target is not None:
                    when_targets.add(we.target.name)

    # --- numeric values of parameters/constants (for structure and start values)
    numeric: dict = {}
    busy = set()

    def num_value(name, loc):
        if name in numeric:
            return numeric[name]
        # a String parameter or constant: its value is known when the FMU is built (what MSL's
        # file-name checks compute with)
        v = V.get(name) or model.strings.get(name)
        if v is None:
            raise ExportError(f"unknown variable '{name}'", loc, "name")
        if name in busy:
            raise ExportError(f"parameter '{name}' is defined in terms of itself", v.loc, "structure")
        expr = v.binding if v.binding is not None else v.start
        busy.add(name)
        try:
            if expr is None:
                val = "" if v.type == "String" else _zeros(v)
            else:
                ev = Evaluator(model, lambda n, l: num_value(n, l), numeric=True)
                ev.loc = v.loc
                val = ev.eval(expr)
                if v.dims and not isinstance(val, np.ndarray):
                    val = np.full(v.dims, val, dtype=object)
        except ExportError as exc:
            if exc.kind == "name":
                raise
            raise ExportError(f"value of parameter '{name}' is not computable at build time: {exc.message}",
                              v.loc, "structure") from None
        finally:
            busy.discard(name)
        if v.type == "String":
            if not isinstance(val, str):
                raise ExportError(f"String parameter '{name}' has no String value known when the FMU is built",
                                  v.loc, "structure")
            numeric[name] = val
            return val
        if isinstance(val, np.ndarray):
            if any(to_num(x) is None for x in val.reshape(-1)):
                raise ExportError(f"parameter '{name}' has a non-constant value", v.loc, "structure")
            val = np.vectorize(lambda x: to_num(x), otypes=[object])(val)
        elif to_num(val) is None:
            raise ExportError(f"parameter '{name}' has a non-constant value", v.loc, "structure")
        else:
            val = to_num(val)
        numeric[name] = val
        return val

    def depends_on_params(expr):
        return any(isinstance(x, ir.Ref) and x.name in V and V[x.name].variability == "parameter"
                   for x in ir.walk(expr))

    # --- classify
    states = set()
    for r in _state_refs(model):
        v = V.get(r.name)
        if v is None:
            raise ExportError(f"der() of unknown variable '{r.name}'", model.loc, "name")
        if v.variability in ("parameter", "constant"):
            continue
        if v.type != "Real":
            raise ExportError(f"der() of {v.type} variable '{r.name}'", v.loc, "type")
        if not r.subs:
            states.update(n for n, _ in _scalar_names(v))
        else:
            states.add(f"{r.name}[{','.join(str(_numeric(Evaluator(model, lambda n, l: num_value(n, l)).eval(s))) for s in r.subs)}]")

    structural_params = set()
    for name, v in V.items():
        # an Integer/Boolean parameter is folded unless annotated Evaluate=false (a law switch
        # that stays tunable; the structural hook still folds it if a size or range needs it)
        if v.variability == "constant" or (v.variability == "parameter" and v.type != "Real" and not v.keep):
            structural_params.add(name)
    structural_params |= _evaluated_params(V, structural_params, num_value)

    sym_of = {}   # scalar name -> SX
    values = {}   # var name -> array/scalar value used by the evaluator
    for name, v in V.items():
        # once per variable, not per element (the binding of an array parameter is the whole
        # array: walking it for each element was quadratic in the array's size)
        param_kind = ("calc" if (v.binding is not None and depends_on_params(v.binding)) else "param") \
            if v.variability == "parameter" and name not in structural_params else None
        for sname, idx in _scalar_names(v):
            if name in structural_params:
                kind = "const"
            elif v.variability == "parameter":
                kind = param_kind
            elif v.causality == "input":
                kind = "input"
            elif sname in states:
                kind = "state"
            elif name in when_targets or v.variability == "discrete" and v.type == "Real":
                kind = "disc"
            elif v.type != "Real" or v.variability == "discrete":
                kind = "dalg"
            else:
                kind = "alg"
            sv = ScalarVar(sname, v, idx, kind, type=v.type)
            if _by_initial(v) and kind in ("param", "calc"):
                # MLS 8.6: a parameter with fixed=false is an unknown of the initialisation
                # problem (its start value a guess); a calculated parameter whose value the
                # runtime takes from wc_init (codegen.initial_values)
                sv.kind, sv.by_initial = "calc", True
            if kind != "const":
                sv.sym = ca.SX.sym(sname)
                sym_of[sname] = sv.sym
            dae.scalars[sname] = sv

    def value_of(name, loc):
        if name in values:
            return values[name]
        if name not in V and name in model.strings:
            return num_value(name, loc)
        v = V.get(name)
        if v is None:
            raise ExportError(f"unknown variable '{name}'", loc, "name")
        items = []
        for sname, idx in _scalar_names(v):
            sv = dae.scalars[sname]
            if sv.kind == "const":
                val = num_value(name, loc)
                items.append(val[idx] if idx else val)
            else:
                items.append(sv.sym)
        if v.dims:
            a = np.empty(v.dims, dtype=object)
            for (sname, idx), it in zip(_scalar_names(v), items):
                a[idx] = it
            values[name] = a
        else:
            values[name] = items[0]
        return values[name]

    # parameters whose value a structure depends on are folded (hook)
    param_syms = {}
    for sv in dae.scalars.values():
        if sv.kind in ("param", "calc"):
            param_syms[sv.name] = sv

    def structural_hook(x: ca.SX):
        syms = ca.symvar(x)
        subs_from, subs_to = [], []
        for s in syms:
            sv = dae.scalars.get(s.name())
            if sv is None or sv.kind not in ("param", "calc"):
                return None
            val = num_value(sv.base.name, sv.base.loc)
            subs_from.append(s)
            subs_to.append(float(val[sv.index] if sv.index else val))
        for s in syms:
            dae.scalars[s.name()].structural = True
        r = ca.substitute(x, ca.vertcat(*subs_from), ca.vertcat(*subs_to)) if subs_from else x
        return _numeric(r)

    # --- start values / calculated-parameter bindings (symbolic in parameters)
    # dynamic subscripts (symbolic.gather): a placeholder symbol for the indexed load.  The passes
    # see the symbol (its derivative is zero: right for the index, which is piecewise constant;
    # where the vector depends on what a pass differentiates by, the pass takes the select chain
    # instead, unhide_gathers); the incidence looks through it (symvar_deep); codegen puts in
    # the load
    def gather_hook(base: np.ndarray, idx):
        vec = ca.vertcat(*[as_sx(x) for x in base.reshape(-1)])
        p = ca.SX.sym(f"$gather{len(dae.gathers)}")
        k0 = gather_index(idx, int(vec.numel()))
        dae.gathers[p.name()] = (p, k0, vec)
        if dae.events is not None and ca.depends_on(ca.vertcat(k0, vec), dae.events.cont):
            dae.events.cont = ca.vertcat(dae.events.cont, p)   # relations on it locate events
        return p

    pev = Evaluator(model, value_of)
    pev.structural_hook = structural_hook
    pev.gather_hook = gather_hook
    for name, v in V.items():
        svs = [dae.scalars[s] for s, _ in _scalar_names(v)]
        if not svs:
            continue                       # an array of size 0 (e.g. Real r[0] of a filter of even order)
        if svs[0].kind == "const":
            val = num_value(name, v.loc)
            for sv in svs:
                sv.value = val[sv.index] if sv.index else val
            continue
        if svs[0].by_initial:
            pev.loc = v.loc
            val = _broadcast(pev.eval(v.start) if v.start is not None else _zeros(v), v)
            for sv in svs:
                x = val[sv.index] if sv.index else val
                sv.start = to_num(x) if to_num(x) is not None else x
            continue
        if svs[0].kind == "calc":
            pev.loc = v.loc
            val = _broadcast(pev.eval(v.binding), v)
            for sv in svs:
                sv.start = val[sv.index] if sv.index else val
            continue
        src = v.start if svs[0].kind != "param" or v.binding is None else v.binding
        if svs[0].kind == "input" and v.binding is not None:
            src = v.binding
        if src is None:
            val = _zeros(v)
        else:
            pev.loc = v.loc
            try:
                val = _broadcast(pev.eval(src), v)
            except ExportError:
                raise
        for sv in svs:
            x = val[sv.index] if sv.index else val
            sv.start = to_num(x) if to_num(x) is not None else x
            if isinstance(sv.start, ca.SX) and sv.kind in ("param", "input"):
                raise ExportError(f"start value of '{sv.name}' must be a constant", v.loc, "structure")

    for sv in dae.scalars.values():
        if sv.kind in ("param", "calc"):
            try:
                val = num_value(sv.base.name, sv.base.loc)
                dae.param_values[sv.name] = float(val[sv.index] if sv.index else val)
            except ExportError:
                pass

    # --- events
    cont_syms = [dae.t] + [sv.sym for sv in dae.scalars.values() if sv.kind in ("state", "alg", "input") and sv.type == "Real"]
    dae.events = EventRegistry(ca.vertcat(*cont_syms), dae.init_flag, dae.t)

    for sv in dae.scalars.values():
        if sv.kind == "state":
            dae.der[sv.name] = ca.SX.sym(f"der({sv.name})")
        if sv.kind in ("disc", "dalg"):
            dae.pre[sv.name] = ca.SX.sym(f"pre({sv.name})")

    def der_of(arg, env):
        x = ev.eval(arg, env)

        def d1(e):
            if is_num(e):
                return 0.0
            e = as_sx(e)
            if dae.gathers:   # a load of a vector that varies: differentiated as a select chain
                e = unhide_gathers(dae, e, dae.events.cont)
            syms = ca.symvar(e)
            out = 0.0
            for s in syms:
                n = s.name()
                if n == "time":
                    dv = 1.0
                elif n in dae.der:
                    dv = dae.der[n]
                else:
                    sv = dae.scalars.get(n)
                    if sv is not None and sv.kind in ("param", "calc", "disc", "dalg"):
                        continue
                    if n.startswith("pre(") or n.startswith("$rel") or n == "initial()":
                        continue
                    if n in dae.gathers:
                        continue   # a load of a vector constant between events (unhide_gathers)
                    raise ExportError(f"der() of an expression containing the non-state '{n}' needs index "
                                      f"reduction, which is not supported; write the model in state form",
                                      ev.loc, "unsupported")
                out = out + ca.jacobian(e, s) * dv
            return out
        if isinstance(x, np.ndarray):
            return np.vectorize(d1, otypes=[object])(x)
        return d1(x)

    def pre_of(arg, env):
        if isinstance(arg, ir.Ref):
            val = ev.eval(arg, env)

            def p1(e):
                if is_num(e) or not isinstance(e, ca.SX) or not e.is_symbolic():
                    return e
                return dae.pre.get(e.name(), e)
            if isinstance(val, np.ndarray):
                return np.vectorize(p1, otypes=[object])(val)
            return p1(val)
        raise ExportError("pre() needs a variable as argument", ev.loc, "unsupported")

    ev = _Evaluator(model, value_of, events=dae.events, der=der_of, pre=pre_of, time=dae.t)
    ev.structural_hook = structural_hook
    ev.gather_hook = gather_hook

    def residuals(e: ir.Expr, loc, into):
        ev.loc = loc
        dae.events.loc = loc
        if isinstance(e, ir.Bin) and e.op == "-" and isinstance(e.a, ir.Arr) and e.a.kind == "tuple":
            lhs = [ev.eval(x) if x is not None else None for x in e.a.elems]
            rhs = ev.eval_outputs(e.b)
            if not isinstance(rhs, tuple):
                rhs = (rhs,)
            for a, b in zip(lhs, rhs):
                _add_res(into, _sub(a, b), loc)
            return
        _add_res(into, ev.eval(e), loc)

    for eq in model.equations:
        residuals(eq.residual, eq.loc, dae.equations)

    # --- model algorithms: each assigned variable gets one equation
    def algorithm(alg, into, initial=False):
        assigned, at = [], {}
        for st in _walk_stmts(alg):
            if isinstance(st, ir.Assign):
                for tg in (st.targets or (st.target,)):
                    if tg is not None and tg.name not in assigned:
                        assigned.append(tg.name)
                    if tg is not None and st.loc.line:
                        at[tg.name] = st.loc
        env = {}
        for n in assigned:
            v = V[n]
            base = value_of(n, v.loc)
            env[n] = pre_of(ir.Ref(n), None) if v.variability == "discrete" else \
                _broadcast(np.vectorize(lambda s: dae.scalars[s.name()].start if isinstance(s, ca.SX) else s,
                                        otypes=[object])(base) if isinstance(base, np.ndarray) else
                           (dae.scalars[base.name()].start if isinstance(base, ca.SX) else base), v)
        ev.exec_block(alg, env)
        for n in assigned:
            # an initial algorithm's equation at its (last) assignment, a model algorithm's at the model
            _add_res(into, _sub(value_of(n, model.loc), env[n]), at.get(n, model.loc) if initial else model.loc)

    for alg in model.algorithms:
        algorithm(alg, dae.equations)

    for eq in model.initial_equations:       # (a, b) = f(x) too (MSL's filters' coefficients)
        residuals(eq.residual, eq.loc, dae.initial_equations)
    _explicit_guesses(dae)
    # initial algorithms (MLS 11.1.2, 8.6): part of the initialisation problem, each assigned
    # variable one equation (MSL's Trapezoid and Pulse: count := integer((time - startTime)/period))
    for alg in model.initial_algorithms:
        algorithm(alg, dae.initial_equations, initial=True)

    # --- when clauses
    reinit_at = {}     # state -> (clause, branch, Loc) of its reinit() (MLS 8.3.6: one when-equation)
    for wi, w in enumerate(model.whens):
        branches = []
        for bi, (cond, eqs) in enumerate(w.branches):
            ev.loc = w.loc
            dae.events.loc = w.loc
            c = ev.eval(cond)
            conds = list(np.asarray(c, dtype=object).reshape(-1)) if isinstance(c, np.ndarray) else [c]
            out = []
            for we in eqs:
                ev.loc = we.loc
                if we.kind in ("assign", "reinit"):
                    tv = ev.eval(we.target)
                    val = ev.eval(we.value)
                    tl = list(np.asarray(tv, dtype=object).reshape(-1)) if isinstance(tv, np.ndarray) else [tv]
                    vl = list(np.asarray(val, dtype=object).reshape(-1)) if isinstance(val, np.ndarray) else [val] * len(tl)
                    for tsym, vv in zip(tl, vl):
                        if not isinstance(tsym, ca.SX) or not tsym.is_symbolic():
                            raise ExportError(f"when-equation target '{we.target.name}' is not a variable", we.loc, "structure")
                        tname = tsym.name()
                        kind = dae.scalars[tname].kind
                        if we.kind == "reinit" and kind != "state":
                            raise ExportError(f"reinit() of '{tname}', which is not a state", we.loc, "structure")
                        if we.kind == "assign" and kind == "state":
                            raise assigns_state_error(tname, we.loc)
                        if we.kind == "assign" and kind != "disc":
                            raise ExportError(f"when-equation assigns '{tname}' ({kind})", we.loc, "structure")
                        if we.kind == "reinit":
                            prev = reinit_at.get(tname)
                            if prev is not None and prev[0] != wi:
                                raise two_when_equations_error(tname, prev[2], we.loc)
                            if prev is not None and prev[1] == bi:
                                raise twice_in_one_branch_error(tname, prev[2], we.loc)
                            reinit_at[tname] = (wi, bi, we.loc)
                        out.append((we.kind, tname, vv, "", we.loc))
                elif we.kind == "terminate":
                    out.append(("terminate", None, None, we.message, we.loc))
                elif we.kind == "assert":
                    out.append(("assert", None, ev.eval(we.value), we.message, we.loc))
            branches.append((conds, out))
        dae.whens.append(WhenS(branches, w.loc))

    _add_samplers(dae)
    dae.enums = dict(getattr(model, "enumerations", None) or {})
    dae.strings = _string_values(model, num_value)

    for a in model.asserts:
        ev.loc = a.loc
        ev.noevent += 1
        try:
            c = ev.eval(a.cond)
        finally:
            ev.noevent -= 1
        for cc in (list(np.asarray(c, dtype=object).reshape(-1)) if isinstance(c, np.ndarray) else [c]):
            dae.asserts.append((cc, a.message, a.level, a.loc))
    return dae


class _Evaluator(Evaluator):
    """The evaluator of the model's equations: ``sample()`` goes to the event registry."""

    def builtin(self, name, vals):
        if name == "sample" and isinstance(self.events, EventRegistry):
            if len(vals) != 2 or any(isinstance(v, np.ndarray) for v in vals):
                self.fail("sample(start, interval) takes two scalar arguments", "type")
            return self.events.sample(vals[0], vals[1], self.loc)
        return super().builtin(name, vals)


def _add_samplers(dae: Dae) -> None:
    """The hidden counter of each sample() (events.Sampler): a discrete Integer that is internal
    to the FMU (its name starts with '$'), started at the first sampling instant not before the
    start time, and a when-clause on sample()'s condition that counts it up."""
    for sm in dae.events.samplers:
        base = ir.Var(sm.name, type="Integer", variability="discrete", protected=True,
                      description="sample(): index of the next sampling instant", loc=sm.loc)
        dae.scalars[sm.name] = ScalarVar(sm.name, base, (), "disc", sm.n, start=sm.n0, type="Integer")
        dae.pre[sm.name] = sm.pre
        dae.whens.append(WhenS([([sm.cond], [("assign", sm.name, sm.pre + 1, "", sm.loc)])], sm.loc))
        if not sm.interval.is_constant():
            dae.asserts.append((sm.interval > 0, "sample(start, interval): the interval must be positive",
                                "error", sm.loc))


def _by_initial(v: ir.Var) -> bool:
    """A Real parameter with fixed=false and no binding equation: computed by the initial
    equations (MLS 8.6)."""
    return v.variability == "parameter" and v.type == "Real" and v.fixed is False and v.binding is None


def _zeros(v: ir.Var):
    z = False if v.type == "Boolean" else 0
    if v.dims:
        return np.full(v.dims, z, dtype=object)
    return z


def _broadcast(val, v: ir.Var):
    if v.dims and not isinstance(val, np.ndarray):
        return np.full(v.dims, val, dtype=object)
    if v.dims and tuple(val.shape) != tuple(v.dims):
        raise ExportError(f"value of '{v.name}' has size {val.shape}, declared {v.dims}", v.loc, "type")
    return val


def _sub(a, b):
    from .symbolic import _elementwise, _binop
    return _elementwise(lambda x, y: _binop("-", x, y), a, b)


def _explicit_guesses(dae: "Dae") -> None:
    """Start values of parameters with fixed=false that the initial equations give explicitly,
    one after the other (MSL's filters: ``(cr, c0, c1) = Bessel(order, normalized)`` evaluates
    to numbers when the model is built, then ``(r, a, b, ku) = lowPass(cr, c0, c1, f_cut)``):
    an equation in which only one such parameter is still unknown, linearly, once the
    parameters and the ones solved before are put in, gives its start.  The initialisation's
    iteration then starts at that solution instead of at 0, where equations dividing by those
    parameters are not evaluable, or singular (a steady state whose matrix is built from them).
    The solution is the same: each equation determines its parameter alone."""
    def guessed(n):
        sv = dae.scalars.get(n)
        return sv is not None and sv.by_initial
    open_ = [(r, ca.symvar(r)) for r, _ in dae.initial_equations if not r.is_constant()]
    open_ = [(r, syms) for r, syms in open_ if any(guessed(x.name()) for x in syms)]
    if not open_:
        return
    known = {n: float(v) for n, v in dae.param_values.items()
             if n in dae.scalars and dae.scalars[n].kind in ("param", "calc") and not dae.scalars[n].by_initial}
    progress = True
    while open_ and progress:
        progress, rest = False, []
        for r, syms in open_:
            unknown = [x for x in syms if x.name() not in known]
            if len(unknown) != 1 or not guessed(unknown[0].name()):
                if unknown:
                    rest.append((r, syms))
                continue
            given = [x for x in syms if x.name() in known]
            if given:
                r = ca.substitute(r, ca.vertcat(*given), ca.vertcat(*[ca.SX(known[x.name()]) for x in given]))
            x = unknown[0]
            d, r0 = ca.jacobian(r, x), ca.substitute(r, x, ca.SX(0.0))
            if not (d.is_constant() and r0.is_constant()) or float(d) == 0.0:
                continue                    # not explicit in it: left to the iteration
            value = -float(r0) / float(d)
            if np.isfinite(value):
                dae.scalars[x.name()].start = known[x.name()] = value
                progress = True
        open_ = rest


def _add_res(into, r, loc):
    items = list(np.asarray(r, dtype=object).reshape(-1)) if isinstance(r, np.ndarray) else [r]
    for x in items:
        if isinstance(x, (bool, np.bool_)):
            x = float(x)
        n = to_num(x)
        if n is not None:
            if abs(n) > 0:
                raise ExportError("equation reduces to a false constant statement", loc, "structure")
            # 0 = 0 is an empty equation but still counts in Modelica's balance
            into.append((ca.SX(0.0), loc))
            continue
        into.append((as_sx(x), loc))
