"""Alias elimination (scalar DAE -> scalar DAE), before index reduction and causalisation.

An equation that only says two continuous-time Real unknowns are equal or opposite --
``a = b``, ``a = -b``, ``a + b = 0``, ``a - b = 0``: what connection sets make of potential
and flow variables -- is removed together with one of its two variables (the *alias*), which
is replaced by ``±representative`` in every other equation, initial equation, when-clause,
assert and event relation.  Equations of several such equations form alias sets (union-find,
with the sign of each member relative to the set's representative).

The representative of a set is, in this order of preference: a state, an input, an output,
a variable with a fixed start value (``fixed = true``), one with a non-zero start value, the
one highest in the instance hierarchy (fewest dots), the first declared.  A set is never
merged through an equation that would

- eliminate a state, an input, an output, a parameter or a discrete-valued variable
  (only algebraic Reals are ever eliminated; two states, inputs or outputs stay as they are);
- lose a fixed start value: an alias with ``fixed = true`` is merged only into a
  representative whose fixed start is the same (with the sign); a different one is an
  error naming both declarations;
- lose a start value: a non-zero start of the alias goes to a representative without one.

The aliases stay readable (:attr:`Dae.aliases`, codegen): an alias equal to its
representative is an FMI 2.0 alias (a ScalarVariable with the same valueReference); a negated
one has its own value, ``-representative``, computed with the algebraic variables.
"""
from __future__ import annotations

import copy
import dataclasses

import casadi as ca

from typing import TYPE_CHECKING

from .dae import Dae, ScalarVar, WhenS
from .errors import ExportError
from .symbolic import to_num

if TYPE_CHECKING:                      # causalize imports nothing of this module; for the annotation only
    from .causalize import Causal

#: kinds of ScalarVar that may be members of an alias set (only "alg" is ever eliminated)
_MEMBERS = ("alg", "state", "input")


def _pair(r: ca.SX, cand: dict):
    """(a, b, sign) when the residual ``r`` is ``±(a - sign*b)`` for two candidates a, b."""
    if r.numel() != 1 or r.is_constant() or ca.n_nodes(r) > 12:
        return None
    syms = ca.symvar(r)
    if len(syms) != 2:
        return None
    a, b = syms[0].name(), syms[1].name()
    if a not in cand or b not in cand:
        return None
    J = ca.jacobian(r, ca.vertcat(syms[0], syms[1]))
    if not J.is_constant():
        return None
    ja, jb = float(ca.DM(J)[0]), float(ca.DM(J)[1])
    if abs(ja) != 1.0 or abs(jb) != 1.0:
        return None
    r0 = ca.substitute(r, ca.vertcat(syms[0], syms[1]), ca.DM.zeros(2))
    if not r0.is_zero():
        n = to_num(r0)
        if n is None or n != 0:
            return None
    return a, b, (-1.0 if ja == jb else 1.0)


def _rank(sv: ScalarVar, order: dict) -> tuple:
    """Sort key of the representative (smallest first)."""
    st = to_num(sv.start) if sv.start is not None else 0.0
    has_start = sv.start is not None and (st is None or st != 0)     # (an expression of parameters: one)
    return (sv.kind != "state", sv.kind != "input", sv.causality != "output",
            not _fixed(sv), not has_start, sv.name.count("."), order[sv.name])


def _special(sv: ScalarVar) -> bool:
    return sv.kind in ("state", "input") or sv.causality == "output"


def _fixed(sv: ScalarVar) -> bool:
    return sv.base.fixed is True and (sv.kind == "alg" or sv.kind == "state")


def _same(x, y) -> bool:
    nx, ny = to_num(x), to_num(y)
    if nx is not None and ny is not None:
        return float(nx) == float(ny)
    if isinstance(x, ca.SX) and isinstance(y, ca.SX):
        return ca.is_equal(ca.simplify(x - y), ca.SX(0.0), 20)
    return False


def eliminate(dae: Dae) -> Dae:
    """``dae`` without its alias equations and aliases (a new Dae sharing the untouched parts);
    ``dae`` itself when it has none or is not balanced (then the diagnosis of the balance
    names the equations as written)."""
    scal = dae.scalars
    cand = {sv.name: sv for sv in scal.values()
            if sv.kind in _MEMBERS and sv.type == "Real" and sv.sym is not None and not sv.name.startswith("$")}
    n_unknowns = sum(1 for sv in scal.values() if sv.kind in ("alg", "dalg", "state"))
    if not cand or len(dae.equations) != n_unknowns:
        return dae
    order = {n: k for k, n in enumerate(scal)}
    # union-find over the candidates, with each member's sign relative to its root
    parent: dict = {}
    sign: dict = {}

    def find(n):
        if n not in parent:
            parent[n], sign[n] = n, 1.0
            return n, 1.0
        s, m = 1.0, n
        while parent[m] != m:
            s *= sign[m]
            m = parent[m]
        return m, s

    members: dict = {}          # root -> [names]
    dropped = []
    for i, (r, loc) in enumerate(dae.equations):
        p = _pair(r, cand)
        if p is None:
            continue
        a, b, sg = p                         # a = sg*b
        ra, sa = find(a)
        rb, sb = find(b)
        if ra == rb:
            continue                         # a loop of aliases: keep the equation
        A, B = members.get(ra, [ra]), members.get(rb, [rb])
        # at most one state / input / output per set; only algebraic members are eliminated
        if sum(_special(cand[n]) for n in A + B) > 1:
            continue
        # fixed starts: one value per set (MLS 8.6), else an error at both declarations
        fa = [n for n in A if _fixed(cand[n])]
        fb = [n for n in B if _fixed(cand[n])]
        rel = sa * sg * sb                   # ra = rel * rb
        if fa and fb:
            x, y = cand[fa[0]], cand[fb[0]]
            _, sx = find(fa[0])
            _, sy = find(fb[0])
            # x = sx*ra, y = sy*rb, ra = rel*rb  ->  x = sx*rel*sy * y
            k = sx * rel * sy
            if not _same(x.start, k * (to_num(y.start) if to_num(y.start) is not None else y.start)):
                raise ExportError(f"alias variables '{x.name}' and '{y.name}' ({'=' if k > 0 else '= -'} through "
                                  f"the equation at {loc}) have different fixed start values: "
                                  f"{x.name} declared at {x.base.loc}, {y.name} at {y.base.loc}", loc, "structure")
        # the representative keeps the fixed start: a set with one is merged only with a set
        # whose state, input or output (the representative then) has a fixed start itself
        if (fa and any(_special(cand[n]) and not _fixed(cand[n]) for n in B)) or \
                (fb and any(_special(cand[n]) and not _fixed(cand[n]) for n in A)):
            continue
        parent[rb], sign[rb] = ra, rel
        members[ra] = A + B
        members.pop(rb, None)
        dropped.append(i)
    if not dropped:
        return dae
    # the representative of each set, and each alias as ±representative
    alias_of, starts = {}, {}
    for root, names in members.items():
        rep = min((cand[n] for n in names), key=lambda sv: _rank(sv, order))
        _, s_rep = find(rep.name)
        for n in names:
            if n == rep.name:
                continue
            _, s_n = find(n)
            alias_of[n] = (rep.name, s_n * s_rep)          # n = s * rep
        # a start value of an alias where the representative has none
        if to_num(rep.start) in (None, 0, 0.0) and not _fixed(rep):
            for n in sorted(names, key=lambda q: _rank(cand[q], order)):
                st = cand[n].start
                if n != rep.name and st is not None and to_num(st) not in (0, 0.0):
                    s = alias_of[n][1]
                    starts[rep.name] = st if s > 0 else (-to_num(st) if to_num(st) is not None else -st)
                    break
    frm = ca.vertcat(*[cand[n].sym for n in alias_of])
    to = ca.vertcat(*[alias_of[n][1] * cand[alias_of[n][0]].sym for n in alias_of])

    def sub(x):
        if isinstance(x, ca.SX) and ca.depends_on(x, frm):
            return ca.substitute(x, frm, to)
        return x
    dropped = set(dropped)
    out = copy.copy(dae)
    out.scalars = {n: (dataclasses.replace(sv, start=starts[n]) if n in starts else sv)
                   for n, sv in scal.items() if n not in alias_of}
    out.equations = [(sub(r), loc) for i, (r, loc) in enumerate(dae.equations) if i not in dropped]
    out.initial_equations = [(sub(r), loc) for r, loc in dae.initial_equations]
    out.whens = [WhenS([([sub(c) for c in cs], [(k, tg, sub(v) if v is not None else None, m, l)
                                                  for k, tg, v, m, l in eqs]) for cs, eqs in w.branches], w.loc)
                 for w in dae.whens]
    out.asserts = [(sub(c), m, lv, l) for c, m, lv, l in dae.asserts]
    out.gathers = {n: (p, sub(k0), sub(vec)) for n, (p, k0, vec) in dae.gathers.items()}
    ev = out.events = copy.copy(dae.events)
    new = {id(r): dataclasses.replace(r, a=sub(r.a), b=sub(r.b), g=sub(r.g),
                                      scale=sub(r.scale) if r.scale is not None else None)
           for r in dae.events.relations}
    ev.relations = [new[id(r)] for r in dae.events.relations]
    ev._by_key = {k: new.get(id(r), r) for k, r in dae.events._by_key.items()}
    ev.samplers = [dataclasses.replace(sm, start=sub(sm.start), interval=sub(sm.interval), n0=sub(sm.n0),
                                       cond=sub(sm.cond), relation=new.get(id(sm.relation), sm.relation))
                   for sm in dae.events.samplers]
    out.aliases = {n: (rep, s, scal[n]) for n, (rep, s) in alias_of.items()}
    return out


def restore(causal: "Causal") -> None:
    """After causalisation: each negated alias back as a solved algebraic variable,
    ``-representative`` (what the causalisation would have made of its equation), so that
    codegen gives it a value of its own; the aliases equal to their representatives stay in
    ``dae.aliases`` for the model description (shared valueReference)."""
    dae = causal.dae
    for n, (rep, s, sv) in (getattr(dae, "aliases", None) or {}).items():
        if s > 0 or n in dae.scalars:
            continue
        rsv = dae.scalars[rep]
        x = causal.solution.get(rep, rsv.sym)
        dae.scalars[n] = sv
        causal.unknowns.append(n)
        causal.sym[n] = sv.sym
        causal.solution[n] = -x
