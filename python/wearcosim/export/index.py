"""Pass 2a (scalar DAE -> index-1 DAE): Pantelides' structural index reduction and the
dummy-derivative state selection.

A Modelica model makes every variable under ``der()`` a state candidate.  Connected
components often constrain states among themselves -- two inertias behind an ideal gear
(``phi_a = ratio*phi_b``), a prescribed motion (``s = f(time)``), a pendulum's length -- and
the DAE is then of higher index: the equations cannot be solved for the derivatives of all
candidates.  The pass turns it into an index-1 DAE whose states are a subset of the
candidates:

1. **Pantelides (1988)**: a maximum matching of the equations to the *highest derivatives*
   of the variables, equation by equation.  When an equation cannot be matched, the
   augmenting-path search marks a structurally singular subset of equations and the
   variables they reach; every marked equation is differentiated with respect to time
   (symbolically, the chain rule over all variables) and every marked variable gets its
   derivative as a new unknown; the search goes on with the differentiated equation.
2. **Dummy derivatives (Mattsson and Soederlind 1993)**, static selection: starting with the
   differentiated equations of the highest order, a nonsingular square block of their
   Jacobian with respect to the highest derivatives they contain is chosen; the chosen
   derivatives are *dummy derivatives* -- algebraic unknowns, no longer the derivative of
   anything -- and their variables are not states.  The next lower order uses the equations
   one differentiation lower and the lower derivatives of the chosen ones.  The columns are
   taken in the order of preference of ``stateSelect`` (never, avoid, default, prefer,
   always: a variable with ``never`` is made a dummy first), then a state whose start is
   ``fixed``, a variable reinitialised by a when-clause and a declared state over an
   algebraic variable, then the declaration order (the later first); the block must be
   nonsingular at the start values and at a generic point (a static choice: a model whose
   best states change during the run needs dynamic state selection, not done here).

Every equation, original and differentiated, stays in the system: the constraints fix the
dummy variables, their derivatives fix the dummy derivatives.  A candidate with a ``fixed``
start that is not chosen as a state keeps its start as an initial equation (MLS 8.6), which
determines the states chosen instead.  A model without a
structurally singular subset is returned unchanged (the same object, bit-identical
equations).  The new unknowns are ``der(v)`` (and ``der(der(v))``) scalars of kind ``alg``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from .dae import Dae, ScalarVar, symvar_deep, unhide_gathers
from .errors import ExportError

#: stateSelect's order of preference for a state (MLS 4.9.7.3)
STATE_SELECT = {"never": 0, "avoid": 1, "default": 2, "prefer": 3, "always": 4}


@dataclass
class _Node:
    """One variable or one of its time derivatives."""
    base: str                 # the scalar of the model it derives from
    order: int                # 0: the variable itself
    sym: ca.SX
    der: int | None = None    # the node of its derivative, once it has one
    parent: int | None = None


@dataclass
class _Eq:
    res: ca.SX
    loc: Any
    order: int = 0
    parent: int | None = None
    der: int | None = None
    adj: list = field(default_factory=list)   # every node it depends on


@dataclass
class Reduction:
    """What the pass did, for diagnostics and tests."""
    differentiated: list      # [(equation location, order)]
    dummies: list             # names of the dummy derivatives (algebraic now)
    states: list              # the states after the selection, in declaration order


def reduce(dae: Dae) -> Dae:
    """The index-1 form of ``dae`` (see the module's text); ``dae`` itself when the equations
    already match the highest derivatives.  ``dae.reduction`` tells what was done."""
    nodes, node_of = _nodes(dae)
    eqs = [_Eq(r, loc) for r, loc in dae.equations]
    for e in eqs:
        e.adj = _adjacent(dae, e.res, node_of)
    try:
        assign = _pantelides(dae, nodes, node_of, eqs)
    except _Singular:
        assign = None       # singular whatever is differentiated: causalize's balance check names it
    if assign is not None:
        dae = _rebuild(dae, nodes, eqs, _select(dae, nodes, eqs))
    return dae


def vanishing_derivatives(dae: Dae) -> Dae:
    """The derivatives that a coefficient fixed at zero removes from their equations.

    A variable that its own equation fixes to a number (``Capcjc = Cjc*powlin(...)`` with the
    evaluated ``Cjc = 0``, then ``cbc = Capcjc``: MSL's semiconductors with their capacitances
    set to zero, HeatingNPN_NORGate) multiplies a derivative in another equation
    (``C.i = ... - cbc*der(vbc)``): structurally that equation determines ``der(vbc)``, but its
    coefficient is zero, and the linear block of the derivatives is singular for every value.
    Such constants (variables whose equation reads nothing but themselves and other such
    constants: no parameter, which could be set at run time) are put into the equations with a
    derivative whose derivative they remove; every other equation stays as it is (a model
    without such a derivative is returned unchanged).  A state whose derivative is then in
    no equation is made algebraic by the index reduction (its defining constraint is
    differentiated).  The variables keep their own equations."""
    alg = {sv.sym.name(): sv for sv in dae.scalars.values() if sv.kind == "alg" and sv.type == "Real"}
    if not alg:
        return dae
    ders = {d.name() for d in dae.der.values()}
    names = [{q.name() for q in symvar_deep(dae, r)} for r, _ in dae.equations]
    consts: dict = {}
    used: set = set()
    changed = True
    while changed:
        changed = False
        for i, ns in enumerate(names):
            if i in used or not ns or not ns <= alg.keys():
                continue
            rest = [n for n in ns if n not in consts]
            if len(rest) != 1:
                continue
            r = dae.equations[i][0]
            if consts:
                known = [n for n in ns if n in consts]
                r = ca.substitute(r, ca.vertcat(*[alg[n].sym for n in known]), ca.vertcat(*[consts[n] for n in known]))
            v = alg[rest[0]].sym
            J = ca.jacobian(r, v)
            if not J.is_constant() or float(J) == 0:
                continue
            c = ca.substitute(r, v, ca.SX(0.0))
            if not c.is_constant():
                continue
            consts[rest[0]] = ca.SX(-float(c) / float(J))
            used.add(i)
            changed = True
    if not consts:
        return dae
    out = list(dae.equations)
    for i, ns in enumerate(names):
        if i in used or not (ns & ders) or not (ns & consts.keys()):
            continue
        known = [n for n in ns if n in consts]
        r = ca.substitute(dae.equations[i][0], ca.vertcat(*[alg[n].sym for n in known]),
                          ca.vertcat(*[consts[n] for n in known]))
        if {q.name() for q in symvar_deep(dae, r)} & ders < ns & ders:
            out[i] = (r, dae.equations[i][1])
    dae.equations = out
    return dae


def fixed_starts(dae: Dae) -> Dae:
    """MLS 8.6: a continuous-time Real variable with ``fixed = true`` has the initial equation
    ``v = start`` whether or not it is a state.  The states' starts are their initial values
    already; an algebraic variable's (MSL's ``Inertia(a(fixed = true))``, a state candidate
    the index reduction made a dummy) is added to the initial equations, which then determine
    the states whose starts are not fixed.  The derivatives the reduction added (``der(x)``)
    are not declared variables and have no start of their own."""
    for sv in dae.scalars.values():
        if (sv.kind == "alg" and sv.type == "Real" and sv.sym is not None and not sv.name.startswith("der(")
                and sv.base.fixed is True and sv.start is not None and sv.base.variability == "continuous"):
            dae.initial_equations.append((sv.sym - sv.start, sv.base.loc))
    return dae


# ----------------------------------------------------------------------------- structure
def _nodes(dae: Dae) -> tuple[list, dict]:
    nodes, node_of = [], {}
    for sv in dae.scalars.values():
        if sv.kind in ("state", "alg", "dalg") and sv.sym is not None:
            node_of[sv.sym.name()] = len(nodes)
            nodes.append(_Node(sv.name, 0, sv.sym))
            if sv.kind == "state":
                d = dae.der[sv.name]
                nodes[-1].der = len(nodes)
                node_of[d.name()] = len(nodes)
                nodes.append(_Node(sv.name, 1, d, parent=len(nodes) - 1))
    return nodes, node_of


def _adjacent(dae: Dae, r: ca.SX, node_of: dict) -> list:
    return sorted({node_of[s.name()] for s in symvar_deep(dae, r) if s.name() in node_of})


def _pantelides(dae: Dae, nodes: list, node_of: dict, eqs: list) -> dict | None:
    """The matching {node: equation} of the highest derivatives after Pantelides' algorithm
    (``eqs`` and ``nodes`` grow with the differentiated equations and the new derivatives);
    None when nothing had to be differentiated."""
    assign: dict[int, int] = {}
    n0 = len(eqs)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000, 8 * (len(eqs) + len(nodes))))
    # a greedy start on the highest derivatives
    for i, e in enumerate(eqs):
        for j in e.adj:
            if nodes[j].der is None and j not in assign:
                assign[j] = i
                break
    matched_eq = set(assign.values())
    changed = False
    for k in range(n0):
        if k in matched_eq:
            continue
        i = k
        for _ in range(len(nodes) + len(eqs) + 2):
            ce, cv = set(), set()
            if _augment(i, nodes, eqs, assign, ce, cv):
                break
            if all(nodes[j].der is None for l in ce for j in eqs[l].adj):
                # no variable of these equations has a derivative among the unknowns:
                # differentiating them only renames their unknowns (a = 1; 2*a = 3)
                raise _Singular()
            changed = True
            for j in sorted(cv):
                _derive_node(dae, nodes, node_of, j)
            for l in sorted(ce):
                _derive_eq(dae, nodes, node_of, eqs, l)
            for j in cv:
                assign[nodes[j].der] = eqs[assign[j]].der
            i = eqs[i].der
        else:
            raise _Singular()
    return assign if changed else None


class _Singular(Exception):
    """The equations are structurally singular whatever their derivatives."""


def _augment(i: int, nodes: list, eqs: list, assign: dict, ce: set, cv: set) -> bool:
    ce.add(i)
    hi = [j for j in eqs[i].adj if nodes[j].der is None]
    for j in hi:
        if j not in assign:
            assign[j] = i
            return True
    for j in hi:
        if j not in cv:
            cv.add(j)
            if _augment(assign[j], nodes, eqs, assign, ce, cv):
                assign[j] = i
                return True
    return False


def _derive_node(dae: Dae, nodes: list, node_of: dict, j: int) -> int:
    n = nodes[j]
    if n.der is not None:
        return n.der
    sv = dae.scalars.get(n.base)
    if sv is not None and sv.kind == "dalg":
        raise ExportError(f"index reduction would differentiate the discrete variable '{n.base}'",
                          sv.base.loc, "unsupported")
    name = n.base
    for _ in range(n.order + 1):
        name = f"der({name})"
    sym = ca.SX.sym(name)
    n.der = len(nodes)
    node_of[sym.name()] = n.der
    nodes.append(_Node(n.base, n.order + 1, sym, parent=j))
    return n.der


def _derive_eq(dae: Dae, nodes: list, node_of: dict, eqs: list, l: int) -> int:
    e = eqs[l]
    if e.der is not None:
        return e.der
    r = e.res
    xs = [dae.t] + [nodes[j].sym for j in e.adj]
    r = unhide_gathers(dae, r, ca.vertcat(*xs))
    deps = {s.name() for s in ca.symvar(r)}
    for sv in dae.scalars.values():
        if sv.kind == "input" and sv.sym is not None and sv.sym.name() in deps:
            raise ExportError(f"index reduction needs the time derivative of the input '{sv.name}' (this "
                              f"equation constrains it with the states): not supported", e.loc, "unsupported")
    adj = [node_of[s.name()] for s in ca.symvar(r) if s.name() in node_of]
    X = ca.vertcat(dae.t, *[nodes[j].sym for j in adj])
    dX = ca.vertcat(ca.SX(1), *[nodes[_derive_node(dae, nodes, node_of, j)].sym for j in adj])
    dr = ca.simplify(ca.jtimes(r, X, dX))
    e.der = len(eqs)
    eqs.append(_Eq(dr, e.loc, e.order + 1, l, adj=_adjacent(dae, dr, node_of)))
    return e.der


# ----------------------------------------------------------------------------- state selection
def _preference(dae: Dae, nodes: list, j: int, reinit: dict, rank: dict) -> tuple:
    """Sort key of derivative node ``j`` as a dummy: lowest first (``rank``: the scalars'
    declaration order)."""
    p = nodes[nodes[j].parent]
    if p.order > 0:
        return (-1, 0, 0)                  # the derivative of a derivative: never wanted as a state
    sv = dae.scalars[p.base]
    sel = STATE_SELECT.get(sv.base.state_select, 2)
    if p.base in reinit:
        sel = max(sel, 4)
    score = (0.5 if sv.kind == "state" and sv.base.fixed is True else 0.0) + (0.25 if sv.kind == "state" else 0.0)
    return (sel, score, -rank[p.base])


def _reinit_targets(dae: Dae) -> dict:
    """{variable: the location of a reinit() of it}."""
    return {we[1]: we[4] for w in dae.whens for _, ws in w.branches for we in ws if we[0] == "reinit"}


#: draws of the generic point tried until the matrix is finite everywhere
GENERIC_DRAWS = 8


def _point(dae: Dae, syms: list, generic: bool, draw: int = 0) -> list:
    """The start values (nominal) of ``syms``, or a generic point near them: each shifted by a
    random 0.11..0.48 (1 + |v|) of random sign; ``draw`` k > 0 is another generic point (a draw
    may leave a function's domain: sqrt of a squared length drawn negative)."""
    from .causalize import _nominal
    rng = np.random.default_rng(20260401 + draw)
    out = []
    for s in syms:
        v = _nominal(dae, s.name())
        if generic:
            v = v + (0.3 + rng.random()) * (1.0 + abs(v)) * (1 if rng.random() < 0.5 else -1) * 0.37
        out.append(v)
    return out


class _Basis:
    """The columns of one sample matrix ``M`` accepted so far, as an orthonormal basis (classical
    Gram-Schmidt applied twice, CGS2: "twice is enough", Giraud et al. 2005), for the
    incremental rank test of :func:`_greedy`.

    A column is independent of the accepted ones when its residual after the projection on
    their span is above ``max(rows, k) * 1e3 * eps`` times the largest column norm of ``M``
    (k: the accepted columns and the new one).  That is the rank tolerance of the full SVD
    of the trial columns the selection did before (``1e3 * eps * max(shape)`` times their
    largest singular value; the residual is at least the smallest singular value), taken
    relative to the whole matrix, independent of the order of the tests: a column at the
    level of rounding noise of the matrix (a derivative whose terms cancel) is refused also
    when it is the first one tested, which the SVD of that column alone took.  A column with
    a value that is not finite is never accepted.  One test costs O(rows * k) instead of an
    SVD of the rows x k matrix."""

    def __init__(self, M: np.ndarray):
        self.M = M
        self.Q = np.empty((M.shape[0], min(M.shape)))
        self.k = 0
        self.finite = np.all(np.isfinite(M), axis=0)
        norms = np.linalg.norm(np.where(np.isfinite(M), M, 0.0), axis=0)
        self.scale = float(norms.max()) if norms.size else 0.0

    def residual(self, c: int) -> np.ndarray | None:
        """The part of column ``c`` orthogonal to the accepted columns; None when ``c`` would
        make the accepted columns rank deficient."""
        if not self.finite[c] or self.k >= self.Q.shape[1]:
            return None
        v = self.M[:, c].astype(float, copy=True)
        Q = self.Q[:, :self.k]
        for _ in range(2):
            v -= Q @ (Q.T @ v)
        tol = max(self.M.shape[0], self.k + 1) * 1e3 * np.finfo(float).eps * self.scale
        n = float(np.linalg.norm(v))
        if not n > tol:
            return None
        return v / n

    def accept(self, q: np.ndarray) -> None:
        self.Q[:, self.k] = q
        self.k += 1


#: the number of columns tested by _choose (for tests: one residual per column and sample)
RANK_TESTS = [0]


def _greedy(mats: list, order: list, n: int) -> list | None:
    """The first ``n`` columns, in ``order``, that keep full column rank in every matrix of
    ``mats``, else in the last one alone (the generic point); None when neither has ``n``.
    (Without a matrix -- no point could be evaluated -- the first ``n`` in ``order``.)"""
    for use in (mats, mats[-1:]):
        chosen: list = []
        bases = [_Basis(M) for M in use]
        for c in order:
            qs = []
            for b in bases:
                RANK_TESTS[0] += 1
                q = b.residual(c)
                if q is None:
                    break
                qs.append(q)
            else:
                for b, q in zip(bases, qs):
                    b.accept(q)
                chosen.append(c)
                if len(chosen) == n:
                    return chosen
    return None


def _choose(dae: Dae, nodes: list, eqs: list, g: list, z: list, reinit: dict, rank: dict) -> list:
    """The derivatives of ``z`` made dummies for the equations ``g``: ``len(g)`` columns of
    dg/dz, nonsingular, in the order of preference.

    Greedy: a column is taken when the columns taken with it keep full column rank in every
    sample matrix (the start values and a generic point; when that leaves too few, the
    generic point alone), tested incrementally (:class:`_Basis`)."""
    R = ca.vertcat(*[eqs[i].res for i in g])
    Z = ca.vertcat(*[nodes[j].sym for j in z])
    R = unhide_gathers(dae, R, Z)
    J = ca.jacobian(R, Z)
    free = ca.symvar(J)
    f = ca.Function("g_z", free, [J])
    mats = []
    for generic, draw in [(False, 0)] + [(True, k) for k in range(GENERIC_DRAWS)]:
        try:
            # f.call: a list in, a list out, also without any free symbol (a constant matrix:
            # f() of a function without inputs is a dict, which was taken for a failed point,
            # and the columns were then chosen without any rank test)
            M = np.array(f.call(_point(dae, free, generic, draw))[0], dtype=float).reshape(len(g), len(z))
        except Exception:      # noqa: BLE001 -- a point outside a function's domain
            continue
        if generic and not np.all(np.isfinite(M)) and draw + 1 < GENERIC_DRAWS:
            continue           # outside a function's domain (MSL's jointUPS: sqrt(length2) drawn < 0): the next draw
        mats.append(M)
        if generic:
            break
    order = sorted(range(len(z)), key=lambda c: _preference(dae, nodes, z[c], reinit, rank))
    chosen = _greedy(mats, order, len(g))
    if chosen is not None:
        return [z[c] for c in chosen]
    raise ExportError("index reduction: no nonsingular choice of dummy derivatives for the differentiated "
                      "equations (the constraints are singular at the start values and at a generic point)",
                      eqs[g[0]].loc, "structure")


def _select(dae: Dae, nodes: list, eqs: list) -> set:
    reinit, rank = _reinit_targets(dae), {name: k for k, name in enumerate(dae.scalars)}
    dummies: set[int] = set()
    g = [i for i, e in enumerate(eqs) if e.order >= 1 and e.der is None]
    z = sorted({j for i in g for j in eqs[i].adj if nodes[j].der is None and nodes[j].order >= 1})
    while g:
        chosen = _choose(dae, nodes, eqs, g, z, reinit, rank)
        dummies.update(chosen)
        g = [eqs[i].parent for i in g if eqs[i].order >= 2]
        z = [nodes[j].parent for j in chosen if nodes[j].order >= 2]
    return dummies


# ----------------------------------------------------------------------------- the new DAE
def _rebuild(dae: Dae, nodes: list, eqs: list, dummies: set) -> Dae:
    chains: dict[str, list] = {}
    for j, n in enumerate(nodes):
        if n.order == 0:
            chain, k = [j], j
            while nodes[k].der is not None:
                k = nodes[k].der
                chain.append(k)
            chains[n.base] = chain
    reinit = _reinit_targets(dae)
    new_scalars = {}
    for base, chain in chains.items():
        sv = dae.scalars[base]
        is_state = [i + 1 < len(chain) and chain[i + 1] not in dummies for i in range(len(chain))]
        name = base
        for i, j in enumerate(chain):
            if i == 0:
                if is_state[0]:
                    sv.kind = "state"
                    dae.der[base] = nodes[chain[1]].sym
                else:
                    if sv.kind == "state":
                        dae.der.pop(base, None)
                        if base in reinit:
                            raise ExportError(f"reinit({base}, ...) of a variable that index reduction made "
                                              f"algebraic (a dummy state); give it stateSelect = "
                                              f"StateSelect.always", reinit[base], "unsupported")
                    if sv.kind != "dalg":
                        sv.kind = "alg"
                continue
            name = f"der({name})"
            if is_state[i]:
                raise ExportError(f"index reduction would make {name} a state (the derivative of a "
                                  f"derivative): not supported; give '{base}' stateSelect = StateSelect.prefer",
                                  sv.base.loc, "unsupported")
            if is_state[i - 1]:
                continue                   # the derivative of a state: dae.der holds it
            new_scalars[name] = ScalarVar(name, sv.base, sv.index, "alg", nodes[j].sym, None, type="Real")
    dae.scalars.update(new_scalars)
    dae.equations = [(e.res, e.loc) for e in eqs]
    dae.reduction = Reduction(
        differentiated=[(e.loc, e.order) for e in eqs if e.order >= 1],
        dummies=[_name(nodes, j) for j in sorted(dummies)],
        states=[s.name for s in dae.scalars.values() if s.kind == "state"])
    dae.reduced = [(n, "") for n in dae.reduction.dummies]
    return dae


def _name(nodes: list, j: int) -> str:
    n = nodes[j]
    name = n.base
    for _ in range(n.order):
        name = f"der({name})"
    return name
