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
  generated Jacobian, starting from the variables' start values.  A nonlinear block of more
  than TEAR_ABOVE unknowns is torn first (``tear``): the unknowns that its equations give in
  closed form one after the other are computed from a few tearing variables, which alone are
  Newton unknowns (a "nonlinear" block of the tearing variables and the residual equations,
  then an "explicit" block of the others).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import casadi as ca
import numpy as np

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


#: a linear block of more unknowns than this is first reduced by eliminating unknowns with
#: constant coefficients (solve_linear); smaller blocks are solved as they are
ELIMINATE_ABOVE = 8
#: threshold pivoting of solve_linear: a pivot is at least this fraction of the largest entry
#: of its column (in magnitude, at the sample points)
PIVOT_THRESHOLD = 0.1


#: a nonlinear block of more unknowns than this is torn (see tear); smaller ones keep all
#: their unknowns as Newton unknowns, as they always did
TEAR_ABOVE = 2


def sample_matrices(dae: Dae | None, A: ca.SX, samples: int = 3) -> list:
    """``A`` evaluated at the default values of its symbols (parameters, start values) and at
    ``samples - 1`` random points around them (uniform in [0.5, 2] without a ``dae``): the
    magnitudes that solve_linear's pivoting compares."""
    syms = ca.symvar(A)
    if not syms:
        return [np.array(ca.DM(A))]
    f = ca.Function("wc_pivots", syms, [A])
    rng = np.random.default_rng(20261205)
    nominal = [_nominal(dae, q.name()) for q in syms] if dae is not None else None
    out = []
    for k in range(samples):
        if nominal is not None:
            pt = nominal if k == 0 else [v * (1 + 0.5 * rng.uniform(-1, 1)) + rng.uniform(-1, 1) for v in nominal]
        else:
            pt = list(rng.uniform(0.5, 2.0, len(syms)))
        M = np.array(f.call(pt)[0], dtype=float)
        if np.all(np.isfinite(M)):
            out.append(M)
    return out


def solve_linear(A: ca.SX, b: ca.SX, samples: list | None = None) -> list:
    """The solution of ``A x = b`` (A independent of x, regular), as a list of expressions.

    A block of at most ELIMINATE_ABOVE unknowns is CasADi's symbolic QR solve, as it always
    was.  A larger one is first reduced by Gaussian elimination on its constant coefficients
    (the connection equations of a circuit or a mechanism, +-1 mostly): among the constant
    entries that are at least PIVOT_THRESHOLD of the largest entry of their column (threshold
    pivoting, the magnitudes of the other entries taken at the sample points: ``samples``,
    numeric versions of ``A``, see sample_matrices), the one with the fewest fill-ins
    (Markowitz) is the pivot: its unknown is expressed by its row and eliminated from the other
    rows.  The rest (rows without such a pivot) is solved by the QR, and the eliminated
    unknowns follow by back substitution.  The QR of a 35-unknown block of MSL's
    DifferenceAmplifier (KCL with two transistors' capacitances) made 122 000 operations of
    Jacobian code and a build of over ten minutes; eliminated, the QR is of 2 unknowns."""
    n = A.shape[0]
    if n <= ELIMINATE_ABOVE:
        return ca.vertsplit(ca.solve(A, b))
    if samples is None:
        samples = sample_matrices(None, A)
    if not samples:
        return ca.vertsplit(ca.solve(A, b))
    rows, mags = [], []
    for i in range(n):
        row, mag = {}, {}
        for j in range(n):
            e = A[i, j]
            if not (e.is_constant() and float(e) == 0.0):
                row[j] = e
                mag[j] = np.array([M[i, j] for M in samples])
        rows.append(row)
        mags.append(mag)
    rhs = [b[i] for i in range(n)]
    alive_r, alive_c = set(range(n)), set(range(n))
    steps = []           # (row, column) pivots in order
    while alive_r:
        colmax, colcount = {}, {}
        for i in alive_r:
            for j, m in mags[i].items():
                colmax[j] = np.maximum(colmax.get(j, 0.0), abs(m))
                colcount[j] = colcount.get(j, 0) + 1
        best = None
        for i in sorted(alive_r):
            for j, e in sorted(rows[i].items()):
                if not e.is_constant() or np.any(abs(mags[i][j]) < PIVOT_THRESHOLD * colmax[j]):
                    continue
                cost = (len(rows[i]) - 1) * (colcount[j] - 1)
                if best is None or cost < best[0]:
                    best = (cost, i, j)
        if best is None:
            break
        _, i, j = best
        piv, mpiv = rows[i][j], mags[i][j]
        alive_r.discard(i)
        alive_c.discard(j)
        steps.append((i, j))
        for l in sorted(alive_r):
            f = rows[l].get(j)
            if f is None:
                continue
            q, mq = f / piv, mags[l][j] / mpiv
            for k, e in rows[i].items():
                if k == j:
                    continue
                x = rows[l].get(k, 0) - q * e
                if isinstance(x, ca.SX) and x.is_constant() and float(x) == 0.0:
                    rows[l].pop(k, None)
                    mags[l].pop(k, None)
                else:
                    rows[l][k] = x
                    mags[l][k] = mags[l].get(k, 0.0) - mq * mags[i][k]
            del rows[l][j]
            del mags[l][j]
            rhs[l] = rhs[l] - q * rhs[i]
    x = [None] * n
    core_r, core_c = sorted(alive_r), sorted(alive_c)
    if core_r:
        Ac = ca.SX(len(core_r), len(core_c))
        for a, i in enumerate(core_r):
            for c, j in enumerate(core_c):
                if j in rows[i]:
                    Ac[a, c] = rows[i][j]
        xc = ca.vertsplit(ca.solve(Ac, ca.vertcat(*[rhs[i] for i in core_r])))
        for c, j in enumerate(core_c):
            x[j] = xc[c]
    for i, j in reversed(steps):
        acc = rhs[i]
        for k, e in rows[i].items():
            if k != j:
                acc = acc - e * x[k]
        x[j] = acc / rows[i][j]
    return x


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
                sol = solve_linear(J, -r0, sample_matrices(dae, J) if len(eqs) > ELIMINATE_ABOVE else None)
                kind = "linear"
            for nm, sy, s in zip(vnames, vsyms, sol):
                solution[nm] = s
                known[nm] = (sy, s)
        else:
            torn = tear(dae, r, J, vsyms) if len(eqs) > TEAR_ABOVE else None
            if torn is not None:
                tears, residual_rows, seq, done_e = torn
                causal.blocks.append(Block([vnames[k] for k in tears], [eqs[i] for i in residual_rows], "nonlinear"))
                for k in tears:
                    causal.w.append((vnames[k], vsyms[k]))
                    solution[vnames[k]] = vsyms[k]
                done_s = [vsyms[k] for _, k, _ in seq]
                for (_, k, _), e in zip(seq, done_e):
                    solution[vnames[k]] = e
                    known[vnames[k]] = (vsyms[k], e)
                res_t = ca.substitute(ca.vertcat(*[r[i] for i in residual_rows]), ca.vertcat(*done_s),
                                      ca.vertcat(*done_e))
                causal.nl_residuals.extend(ca.vertsplit(res_t))
                causal.blocks.append(Block([vnames[k] for _, k, _ in seq], [eqs[i] for i, _, _ in seq], "explicit"))
                continue
            kind = "nonlinear"
            for nm, sy in zip(vnames, vsyms):
                causal.w.append((nm, sy))
                solution[nm] = sy
            causal.nl_residuals.extend(ca.vertsplit(r))
        causal.blocks.append(Block(vnames, eqs, kind))
    return causal


def tear(dae: Dae, r: ca.SX, J: ca.SX, V: Sequence[ca.SX]) -> tuple | None:
    """Tearing of a nonlinear block ``r(V) = 0`` (``J`` = dr/dV): a few *tearing variables* stay
    Newton unknowns, the other unknowns follow from one equation each, in sequence, in closed
    form, and the equations left over are the residuals of the Newton iteration (as many as
    tearing variables).

    An equation solves for an unknown when that unknown is the only one of the block it still
    has (the others are tearing variables or solved before) and it is linear in it with a
    coefficient that no unknown of the block, state, input or discrete value changes and that is
    not zero: a non-zero constant, or parameters that are non-zero at their values (MultiBody's
    ``frame_b.r_0 = frame_a.r_0 + r``, ``f_a + f_b = 0``, ``e = r_rel/max(length, s_small)``
    for ``e``) -- no division by a value that can pass through zero.  Greedy (Cellier and
    Kofman's heuristic, simplified): solve while an equation can be solved; else make the
    unknown of the most unsolved equations a tearing variable -- among those, one with a start
    value of its own (the user's guess of the solution, the Newton iteration's start).  The
    solved part is triangular with non-zero diagonal: the residuals are regular exactly when
    the whole block is.  ``(tearing variables, residual rows, [(row, unknown, solution in the
    block's unknowns)], the solved unknowns in the tearing variables alone)``; None when nothing
    can be solved or the torn sequence is ill-conditioned (the block stays as it is)."""
    n = len(V)
    allowed = {sv.sym.name() for sv in dae.scalars.values() if sv.kind in ("param", "const") and sv.sym is not None}
    rows_of: list = [[] for _ in range(n)]
    cols_of: list = [[] for _ in range(n)]
    for i, k in zip(*J.sparsity().get_triplet()):
        cols_of[i].append(k)
        rows_of[k].append(i)
    cache: dict = {}

    def solvable(i: int, k: int) -> bool:
        if (i, k) not in cache:
            c = J[i, k]
            if c.is_constant():
                ok = float(c) != 0.0
            else:
                syms = ca.symvar(c)
                ok = all(q.name() in allowed for q in syms)
                if ok:
                    try:
                        val = float(ca.Function("wc_coef", syms, [c]).call([_nominal(dae, q.name()) for q in syms])[0])
                        ok = math.isfinite(val) and val != 0.0
                    except Exception:      # noqa: BLE001 -- not evaluable at the parameters' values
                        ok = False
            cache[i, k] = ok
        return cache[i, k]

    open_vars = [set(cols_of[i]) for i in range(n)]      # undetermined unknowns of each row
    done_row = [False] * n
    determined = [False] * n
    tears, seq = [], []
    has_start = [_has_start(dae, V[k].name()) for k in range(n)]
    left = n
    while left:
        progress = True
        while progress:
            progress = False
            for i in range(n):
                if done_row[i] or len(open_vars[i]) != 1:
                    continue
                k = next(iter(open_vars[i]))
                if not solvable(i, k):
                    continue
                seq.append((i, k, -ca.substitute(r[i], V[k], ca.SX(0.0)) / J[i, k]))
                done_row[i] = True
                determined[k] = True
                left -= 1
                for l in rows_of[k]:
                    open_vars[l].discard(k)
                progress = True
        if not left:
            break
        cand = [k for k in range(n) if not determined[k]]
        count = {k: sum(1 for l in rows_of[k] if not done_row[l]) for k in cand}
        k = max(cand, key=lambda k: (has_start[k], count[k], -k))
        tears.append(k)
        determined[k] = True
        left -= 1
        for l in rows_of[k]:
            open_vars[l].discard(k)
    if not seq:
        return None
    residual_rows = [i for i in range(n) if not done_row[i]]
    assert len(residual_rows) == len(tears)
    solved = _in_tearing_variables(V, seq)
    if not _well_conditioned(dae, V, tears, solved):
        return None
    return tears, residual_rows, seq, solved


#: largest sensitivity |d(solved unknown)/d(tearing variable)| (scaled by their magnitudes) at
#: the start values that a torn block may have
TEAR_GAIN = 1e6


def _in_tearing_variables(V: Sequence[ca.SX], seq: list) -> list:
    """The solutions of ``seq`` (``tear``) in the tearing variables alone: each one with the
    solutions before it put in."""
    done_s: list = []
    done_e: list = []
    for _, k, e in seq:
        if done_s and ca.depends_on(e, ca.vertcat(*done_s)):
            e = ca.substitute(e, ca.vertcat(*done_s), ca.vertcat(*done_e))
        done_s.append(V[k])
        done_e.append(e)
    return done_e


def _well_conditioned(dae: Dae, V: Sequence[ca.SX], tears: list, solved: list) -> bool:
    """Whether the torn sequence keeps the errors of the tearing variables small: the
    sensitivities of the solved unknowns to the tearing variables at the start values (each
    scaled by max(1, |value|)) stay below TEAR_GAIN and finite.  A chain that solves each
    equation for its weakest unknown multiplies the error at every link: a ring of 40 cubic
    equations z[i]^3 + 2 z[i] - 0.5 z[i+1] = c, torn to one unknown, computes z[i+1] =
    2 (z[i]^3 + 2 z[i] - c) -- a gain of about 5.5 per link, 1e29 over the ring, and an
    overflow from the start values -- while Newton on the whole block converges in a few
    iterations.  Such a block is left as it is."""
    X = ca.vertcat(*solved)
    T = ca.vertcat(*[V[k] for k in tears])
    G = ca.jacobian(X, T)
    free = ca.symvar(ca.vertcat(ca.vec(G), X))
    try:
        f = ca.Function("wc_tear_gain", free, [G, X])
        g, x = f.call([_nominal(dae, q.name()) for q in free])
    except Exception:      # noqa: BLE001 -- not evaluable at the start values: keep the check honest
        return False
    g, x = np.array(g, dtype=float), np.array(x, dtype=float).reshape(-1)
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(x))):
        return False
    t0 = np.array([_nominal(dae, V[k].name()) for k in tears], dtype=float)
    scaled = np.abs(g) * np.maximum(1.0, np.abs(t0))[None, :] / np.maximum(1.0, np.abs(x))[:, None]
    return bool(scaled.size == 0 or scaled.max() <= TEAR_GAIN)


def _has_start(dae: Dae, name: str) -> bool:
    """A variable with a start value of its own (not the default 0)."""
    sv = dae.scalars.get(name)
    return sv is not None and sv.start is not None and not (
        not isinstance(sv.start, ca.SX) and float(sv.start) == 0.0)
