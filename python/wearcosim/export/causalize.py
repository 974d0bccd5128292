"""Pass 2 (scalar DAE -> causal blocks): balance check, matching, BLT, block solving.

* Unknowns of the continuous system: the derivatives of the states, the algebraic Reals
  and the discrete-valued variables defined by equations.  Everything else (time, states,
  parameters, inputs, discrete variables, pre values, relation memories) is known.
* Balance: #equations == #unknowns, else an error listing counts and, from a maximum
  matching, the equations left without a variable and the variables left without an
  equation (with their source lines).
* Matching: augmenting paths (Hopcroft-Karp style BFS/DFS); BLT: Tarjan's strongly
  connected components on the equation dependency graph, in evaluation order.
* Blocks: a scalar equation linear in its unknown is solved symbolically
  (``v = -r(v=0) / (dr/dv)``); a larger block linear in its unknowns becomes a dense linear
  solve ``A v = b`` (CasADi's symbolic QR, fine for the small blocks of mechanisms such as
  ``M*der(v) = f``), refused at build time when its matrix is singular for every value of
  its coefficients (``check_regular``); anything nonlinear keeps its unknowns as Newton
  iteration variables ``w``, solved at run time by the runtime's damped Newton with the
  generated Jacobian, starting from the variables' start values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import casadi as ca

from . import index as _index
from .dae import Dae, symvar_deep, unhide_gathers
from .errors import ExportError


@dataclass
class Block:
    vars: list            # unknown names
    eqs: list             # equation indices
    kind: str             # "explicit" | "linear" | "nonlinear"


@dataclass
class Causal:
    dae: Dae
    unknowns: list                    # names, in order: der(x)..., alg..., dalg...
    sym: dict                         # unknown name -> SX symbol
    blocks: list                      # [Block] in evaluation order
    solution: dict                    # unknown name -> SX in knowns (+ w)
    w: list = field(default_factory=list)         # [(name, SX symbol)] Newton unknowns
    nl_residuals: list = field(default_factory=list)  # [SX] residuals in knowns + w


def unknowns_of(dae: Dae) -> tuple[list[str], dict[str, Any]]:
    names, syms = [], {}
    for sv in dae.scalars.values():
        if sv.kind == "state":
            n = f"der({sv.name})"
            names.append(n)
            syms[n] = dae.der[sv.name]
    for sv in dae.scalars.values():
        if sv.kind in ("alg", "dalg"):
            names.append(sv.name)
            syms[sv.name] = sv.sym
    return names, syms


def incidence(residuals: Sequence[ca.SX], unknown_syms: dict[str, ca.SX], dae: Dae | None = None) -> list[list[int]]:
    """For each residual, the indices of the unknowns it depends on (through the indexed loads'
    placeholders, given the ``dae`` that holds them)."""
    index = {s.name(): k for k, s in enumerate(unknown_syms.values())}
    out = []
    for r in residuals:
        syms = symvar_deep(dae, r) if dae is not None else ca.symvar(r)
        out.append(sorted({index[s.name()] for s in syms if s.name() in index}))
    return out


def match(inc: Sequence[Sequence[int]], n_vars: int,
          seed: Sequence[int] | None = None) -> tuple[list[int], list[int]]:
    """Maximum bipartite matching equations -> variables. Returns (eq->var, var->eq).
    ``seed`` (eq -> var, -1 for none) is a partial matching to extend: an augmenting path
    never unmatches a variable, so the variables matched in the seed stay matched."""
    n_eq = len(inc)
    eq_of_var = [-1] * n_vars
    var_of_eq = [-1] * n_eq
    for i, v in enumerate(seed or ()):
        if v >= 0:
            var_of_eq[i], eq_of_var[v] = v, i
    # cheap greedy start
    for i, vs in enumerate(inc):
        if var_of_eq[i] >= 0:
            continue
        for v in vs:
            if eq_of_var[v] < 0:
                eq_of_var[v] = i
                var_of_eq[i] = v
                break
    import sys
    sys.setrecursionlimit(max(10000, 4 * (n_eq + n_vars)))

    def augment(i, seen):
        for v in inc[i]:
            if v in seen:
                continue
            seen.add(v)
            if eq_of_var[v] < 0 or augment(eq_of_var[v], seen):
                eq_of_var[v] = i
                var_of_eq[i] = v
                return True
        return False

    for i in range(n_eq):
        if var_of_eq[i] < 0:
            augment(i, set())
    return var_of_eq, eq_of_var


def tarjan(n: int, succ: Sequence[Sequence[int]]) -> list[list[int]]:
    """Strongly connected components of a graph (iterative Tarjan), in reverse topological
    order of the condensation (i.e. a component comes after every component it reaches)."""
    index = [None] * n
    low = [0] * n
    onstack = [False] * n
    stack, comps = [], []
    counter = 0
    for root in range(n):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            v, pi = work.pop()
            if pi == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                onstack[v] = True
            recurse = False
            for k in range(pi, len(succ[v])):
                w = succ[v][k]
                if index[w] is None:
                    work.append((v, k + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                elif onstack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return comps


def check_balance(dae: Dae, residuals: Sequence[tuple[ca.SX, Any]], names: Sequence[str], syms: dict[str, ca.SX],
                  what: str = "model") -> tuple[list[list[int]], list[int]]:
    """Counts and a maximum matching; an unbalanced or structurally singular system is an
    error naming the variables and equations the matching leaves over, with their lines."""
    n_eq, n_var = len(residuals), len(names)
    inc = incidence([r for r, _ in residuals], syms, dae)
    var_of_eq, eq_of_var = match(inc, n_var)
    free_eqs = [i for i in range(n_eq) if var_of_eq[i] < 0]
    free_vars = [v for v in range(n_var) if eq_of_var[v] < 0]
    if n_eq != n_var or free_eqs or free_vars:
        label = f"{what} {dae.model.name}" if dae.model.name else what
        parts = [f"{label} is {'unbalanced' if n_eq != n_var else 'structurally singular'}: "
                 f"{n_eq} equations, {n_var} unknowns"]
        var_locs = [_var_loc(dae, names[v]) for v in free_vars]
        if free_vars:
            parts.append("variables without an equation: " +
                         ", ".join(f"{names[v]} ({short_loc(l)})" for v, l in zip(free_vars[:20], var_locs)) +
                         (" ..." if len(free_vars) > 20 else ""))
        if free_eqs:
            parts.append("equations without a variable (over-determined): " +
                         "; ".join(f"{short_loc(residuals[i][1])}: {_eq_text(residuals[i][0])} = 0"
                                   for i in free_eqs[:10]) + (" ..." if len(free_eqs) > 10 else ""))
        loc = residuals[free_eqs[0]][1] if free_eqs else \
            next((l for l in var_locs if l is not None and l.line), dae.model.loc)
        raise ExportError("; ".join(parts), loc, "balance")
    return inc, var_of_eq


def _var_loc(dae: Dae, name: str):
    """Declaration of unknown ``name`` (``der(x)``: of the state ``x``)."""
    base = name[4:-1] if name.startswith("der(") and name.endswith(")") else name
    sv = dae.scalars.get(base)
    return sv.base.loc if sv is not None else None


def _singular(A) -> bool:
    """Numerically rank-deficient (numpy's matrix_rank tolerance: n * eps * largest singular value)."""
    import numpy as np
    sv = np.linalg.svd(A, compute_uv=False)
    return sv[0] == 0 or sv[-1] <= max(A.shape) * np.finfo(float).eps * sv[0]


def _nominal(dae: Dae, name: str) -> float:
    """The value a known symbol has by default: parameter values, start values, 0."""
    base = name[4:-1] if name.startswith("pre(") and name.endswith(")") else name
    if base in dae.param_values:
        return float(dae.param_values[base])
    sv = dae.scalars.get(base)
    if sv is not None:
        n = sv.value if sv.kind == "const" else sv.start
        try:
            return float(n) if n is not None and not isinstance(n, ca.SX) else 0.0
        except (TypeError, ValueError):
            return 0.0
    return 0.0


def check_regular(dae: Dae, J: ca.SX, vnames: Sequence[str], eqs: Sequence[Any], samples: int = 16) -> None:
    """Refuse a linear block whose matrix is singular for every value of its coefficients.

    The matching guarantees a structurally regular block, but its matrix can still be
    singular whatever the parameters and states are (``x + y = 1; 2*x + 2*y = 2``, or
    ``R*x + R*y = dp``): the FMU would compute NaN at its first evaluation.  A constant matrix
    is checked directly; a matrix of parameters, states, inputs or discrete values is
    evaluated at their default values and at ``samples`` random points around them (0/1 for
    relation memories and Booleans), and refused only if it is singular at every one of
    them (a non-zero analytic determinant vanishes on a set of measure zero).  A matrix that is
    singular only for some parameter values stays a run-time error of those values."""
    import numpy as np
    syms = ca.symvar(J)
    if not syms:
        if not _singular(np.array(ca.DM(J))):
            return
    else:
        f = ca.Function("wc_block_matrix", syms, [J])
        nominal = [_nominal(dae, s.name()) for s in syms]
        boolean = []
        for s in syms:
            nm = s.name()
            base = nm[4:-1] if nm.startswith("pre(") else nm
            sv = dae.scalars.get(base)
            boolean.append(nm.startswith("$rel") or nm == "initial()" or (sv is not None and sv.type == "Boolean"))
        rng = np.random.default_rng(20240615)
        points = [nominal]
        for _ in range(samples):
            points.append([float(rng.integers(0, 2)) if b else v * (1 + 0.5 * rng.uniform(-1, 1)) + rng.uniform(-1, 1)
                           for v, b in zip(nominal, boolean)])
        finite = 0
        for pt in points:
            A = np.array(f(*pt))
            if not np.all(np.isfinite(A)):
                continue
            finite += 1
            if not _singular(A):
                return
        if not finite:
            return
    listed = "; ".join(f"{short_loc(loc)} {_eq_text(r)} = 0" for r, loc in eqs)
    names = [s.name() for s in syms]
    why = (f"singular for every value of {', '.join(names[:6])}{' ...' if len(names) > 6 else ''}"
           if names else "constant and singular")
    raise ExportError(f"singular linear system: cannot solve for {', '.join(vnames)}, the matrix of their "
                      f"equations is {why} (equations: {listed})", eqs[0][1], "structure")


def short_loc(loc: Any) -> str:
    """``file.mo:line`` without the folder (the message's location carries the full path)."""
    if loc is None or not getattr(loc, "file", None):
        return "?"
    import os
    return f"{os.path.basename(loc.file)}:{loc.line}" if loc.line else os.path.basename(loc.file)


def _eq_text(r, limit: int = 80) -> str:
    t = str(r)
    return t if len(t) <= limit else t[:limit - 3] + "..."


def causalize(dae: Dae) -> Causal:
    names, syms = unknowns_of(dae)
    if len(dae.equations) != len(names):
        # unbalanced: diagnosed on the model as written (index reduction adds one equation
        # and one unknown per differentiated constraint, it never changes the balance)
        check_balance(dae, dae.equations, names, syms)
    # then the fixed starts of the variables that are algebraic after the reduction (MLS 8.6)
    dae = _index.fixed_starts(_index.reduce(_index.vanishing_derivatives(dae)))
    names, syms = unknowns_of(dae)
    residuals = dae.equations
    inc, var_of_eq = check_balance(dae, residuals, names, syms)
    n = len(residuals)
    # dependency: eq i needs the equation that defines each of its other unknowns
    eq_of_var = {v: i for i, v in enumerate(var_of_eq)}
    succ = [[eq_of_var[v] for v in inc[i] if v != var_of_eq[i]] for i in range(n)]
    comps = tarjan(n, succ)      # dependencies first
    res = [r for r, _ in residuals]
    sym_list = list(syms.values())
    solution = {}
    causal = Causal(dae, names, syms, [], solution)
    known = {}    # name of a solved unknown -> (symbol, solution)

    def subst(x):
        """Replace the solved unknowns that occur in x (only those: the BLT order makes
        earlier solutions free of unknowns, so one substitution suffices)."""
        hit = [known[v.name()] for v in ca.symvar(x) if v.name() in known]
        if not hit:
            return x
        return ca.substitute(x, ca.vertcat(*[a for a, _ in hit]), ca.vertcat(*[b for _, b in hit]))

    for comp in comps:
        eqs = sorted(comp)
        vnames = [names[var_of_eq[i]] for i in eqs]
        vsyms = [sym_list[var_of_eq[i]] for i in eqs]
        r = subst(ca.vertcat(*[res[i] for i in eqs]))
        V = ca.vertcat(*vsyms)
        r = unhide_gathers(dae, r, V)
        J = ca.jacobian(r, V)
        if not ca.depends_on(J, V):
            r0 = ca.substitute(r, V, ca.DM.zeros(V.shape[0]))
            if len(eqs) == 1:
                if J.is_zero():
                    raise ExportError(f"equation cannot be solved for {vnames[0]} (zero coefficient)",
                                      residuals[eqs[0]][1], "structure")
                sol = [-r0 / J]
                kind = "explicit"
            else:
                check_regular(dae, J, vnames, [residuals[i] for i in eqs])
                sol = ca.vertsplit(ca.solve(J, -r0))
                kind = "linear"
            for nm, sy, s in zip(vnames, vsyms, sol):
                solution[nm] = s
                known[nm] = (sy, s)
        else:
            kind = "nonlinear"
            for nm, sy in zip(vnames, vsyms):
                causal.w.append((nm, sy))
                solution[nm] = sy
            causal.nl_residuals.extend(ca.vertsplit(r))
        causal.blocks.append(Block(vnames, eqs, kind))
    return causal
