"""Delta debugging over the model tree: the smallest model that still shows a disagreement.

Candidates, tried greedily (the first that keeps the failure is taken, then start again):
drop a block (references to its variables become constants), make an array smaller (the
Integer size parameters), drop one equation of a block with the variables it defines, replace
a forcing term by 0 and an if-expression by a branch, drop a when-branch; unused parameters,
functions and records go at the end.  A candidate the reference interpreter cannot simulate
does not count as failing (``still_fails`` decides).
"""
from __future__ import annotations

import copy
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from . import tree as A


def _replace_refs(m: A.Model, names: set) -> A.Model:
    """References to ``names`` (and their der/pre/edge/change) replaced by constants."""
    def f(e):
        if isinstance(e, A.Ref) and e.name.split(".")[0] in names:
            return A.Num(0.0)
        if isinstance(e, A.Call) and e.f in ("der", "pre") and isinstance(e.args[0], A.Num):
            return A.Num(0.0)
        if isinstance(e, A.Call) and e.f in ("edge", "change") and isinstance(e.args[0], A.Num):
            return A.Num(False)
        return e
    for b in m.blocks:
        b.eqs = [A.map_equation(q, f) for q in b.eqs]
        b.init = [A.map_equation(q, f) for q in b.init]
    return m


def _defined(eq) -> set:
    """Base names of the variables an equation defines (its left-hand sides)."""
    out = set()
    if isinstance(eq, A.Eq):
        for x in (eq.lhs if isinstance(eq.lhs, tuple) else (eq.lhs,)):
            if isinstance(x, A.Call) and x.f == "der":
                x = x.args[0]
            if isinstance(x, A.Ref):
                out.add(x.name)
    elif isinstance(eq, A.ForEq):
        for b in eq.body:
            out |= _defined(b)
    elif isinstance(eq, A.IfEq):
        for b in eq.then:
            out |= _defined(b)
    elif isinstance(eq, A.When):
        for _, body in eq.branches[:1]:
            for b in body:
                if isinstance(b, A.Eq):
                    out |= _defined(b)
    return out


def cleanup(m: A.Model) -> A.Model:
    """Drop parameters, functions and records nothing uses any more (to a fixed point)."""
    while True:
        n0 = (len(m.params), len(m.functions), len(m.records), len(m.blocks))
        used = A.names_used(m)
        fused, rused = set(), set()
        for f in m.functions:
            if f.name in used:
                rused |= {t for t, _, _ in f.inputs}
                for st in _stmts(f.body):
                    for x in _stmt_exprs(st):
                        fused |= {n.f for n in A.walk(x) if isinstance(n, A.Call)}
        m.functions = [f for f in m.functions if f.name in used or f.name in fused]
        m.params = [d for d in m.params if d.name in used]
        m.records = [r for r in m.records if r.name in rused or r.name in {d.type for d in m.params}]
        m.blocks = [b for b in m.blocks if b.decls or b.eqs]
        if (len(m.params), len(m.functions), len(m.records), len(m.blocks)) == n0:
            return m


def _stmts(body):
    for s in body:
        yield s
        if isinstance(s, (A.ForSt, A.WhileSt)):
            yield from _stmts(s.body)
        elif isinstance(s, A.IfSt):
            for _, b in s.branches:
                yield from _stmts(b)
            yield from _stmts(s.els)


def _stmt_exprs(s):
    if isinstance(s, A.Assign):
        return [s.value]
    if isinstance(s, A.ForSt):
        return [s.lo, s.hi]
    if isinstance(s, A.WhileSt):
        return [s.cond]
    if isinstance(s, A.IfSt):
        return [c for c, _ in s.branches]
    return []


def candidates(m: A.Model) -> Iterator[tuple[str, A.Model]]:
    # 1. drop a block
    for i in range(len(m.blocks)):
        c = copy.deepcopy(m)
        gone = {d.name for d in c.blocks[i].decls}
        del c.blocks[i]
        yield f"drop block {m.blocks[i].kind}", _replace_refs(c, gone)
    # 2. smaller arrays
    for j, d in enumerate(m.params):
        if d.type == "Integer" and isinstance(d.binding, A.Num) and d.binding.v > 1:
            n = d.binding.v
            for v in sorted({1, 2, 3, n // 2, n - 1}):
                if 1 <= v < n:
                    c = copy.deepcopy(m)
                    c.params[j].binding = A.Num(v)
                    yield f"{d.name} = {v}", c
    # 3. drop one equation of a block with what it defines
    for i, b in enumerate(m.blocks):
        if len(b.eqs) < 2:
            continue
        for k, q in enumerate(b.eqs):
            names = _defined(q)
            others = set().union(*[_defined(x) for x in b.eqs[:k] + b.eqs[k + 1:]]) if len(b.eqs) > 1 else set()
            if not names or names & others:
                continue
            c = copy.deepcopy(m)
            del c.blocks[i].eqs[k]
            c.blocks[i].decls = [d for d in c.blocks[i].decls if d.name not in names]
            c.blocks[i].init = [x for x in c.blocks[i].init if not (_defined(x) & names)]
            yield f"drop equation of {sorted(names)}", _replace_refs(c, names)
    # 4. drop elsewhen branches
    for i, b in enumerate(m.blocks):
        for k, q in enumerate(b.eqs):
            if isinstance(q, A.When) and len(q.branches) > 1:
                for j in range(len(q.branches)):
                    c = copy.deepcopy(m)
                    del c.blocks[i].eqs[k].branches[j]
                    yield "drop a when-branch", c
    # 5. smaller functions
    yield from _function_candidates(m)
    # 6. simpler expressions: a forcing term c*f(...) -> 0, an if-expression -> a branch
    for i, b in enumerate(m.blocks):
        for k, q in enumerate(b.eqs):
            nodes = [n for x in A.equation_exprs(q) for n in A.walk(x)]
            seen = set()
            for n in nodes:
                if id(n) in seen:
                    continue
                seen.add(id(n))
                reps = []
                if isinstance(n, A.Op) and n.op == "*" and isinstance(n.args[0], A.Num) and not isinstance(n.args[1], (A.Num, A.Ref)):
                    reps.append(A.Num(0.0))
                if isinstance(n, A.IfExp):
                    reps += [n.a, n.b]
                for rep in reps:
                    c = copy.deepcopy(m)

                    def f(e, n=n, rep=rep):
                        return rep if e == n else e
                    c.blocks[i].eqs[k] = A.map_equation(c.blocks[i].eqs[k], f)
                    yield "simplify an expression", c


def _assigned(st: object) -> set:
    """Names a statement assigns (through its nested statements)."""
    out = set()
    for x in _stmts([st]):
        if isinstance(x, A.Assign):
            for t in (x.target if isinstance(x.target, tuple) else (x.target,)):
                if isinstance(t, A.Ref):
                    out.add(t.name)
    return out


def _function_candidates(m: A.Model) -> Iterator[tuple[str, A.Model]]:
    """Smaller functions: one output fewer (with its statements and the variable it defined),
    one top-level statement fewer."""
    for fi, f in enumerate(m.functions):
        # tuple equations (a, b) = f(...) lose the output's variable; a call in an expression
        # (the first output) stays as it is
        calls = [(i, k) for i, b in enumerate(m.blocks) for k, q in enumerate(b.eqs)
                 if isinstance(q, A.Eq) and isinstance(q.lhs, tuple) and isinstance(q.rhs, A.Call) and q.rhs.f == f.name]
        if len(f.outputs) > 1:
            for j, (_, oname) in enumerate(f.outputs):
                c = copy.deepcopy(m)
                g = c.functions[fi]
                del g.outputs[j]
                g.body = [st for st in g.body if not (_assigned(st) and _assigned(st) <= {oname})]
                gone = set()
                for i, k in calls:
                    q = c.blocks[i].eqs[k]
                    lhs = list(q.lhs)
                    if j < len(lhs):
                        x = lhs.pop(j)
                        gone.add(x.name)
                    q.lhs = tuple(lhs) if len(lhs) > 1 else lhs[0]
                for b in c.blocks:
                    b.decls = [d for d in b.decls if d.name not in gone]
                yield f"drop output {oname} of {f.name}", _replace_refs(c, gone)
        if len(f.body) > 1:
            for j in range(len(f.body)):
                c = copy.deepcopy(m)
                del c.functions[fi].body[j]
                yield f"drop statement {j + 1} of {f.name}", c
        for j, st in enumerate(f.body):
            if isinstance(st, A.IfSt):
                for k, body in enumerate([b for _, b in st.branches] + [st.els]):
                    if body:
                        c = copy.deepcopy(m)
                        c.functions[fi].body[j:j + 1] = copy.deepcopy(body)
                        yield f"if-statement of {f.name} -> its branch {k + 1}", c
            if isinstance(st, A.ForSt) and not (isinstance(st.hi, A.Num) and st.hi.v <= 1):
                c = copy.deepcopy(m)
                c.functions[fi].body[j].hi = A.Num(1)
                yield f"one iteration of a loop of {f.name}", c


def shrink(m: A.Model, still_fails: Callable[[A.Model], bool], budget_s: float = 300.0,
           log: Callable[[str], Any] | None = None) -> tuple:
    """(smallest failing model, number of candidates tried)."""
    t0 = time.perf_counter()
    tried = 0
    cur = cleanup(copy.deepcopy(m))
    progress = True
    while progress and time.perf_counter() - t0 < budget_s:
        progress = False
        for what, c in candidates(cur):
            if time.perf_counter() - t0 > budget_s:
                break
            c = cleanup(c)
            if A.render(c) == A.render(cur):
                continue
            tried += 1
            ok = False
            try:
                ok = still_fails(c)
            except Exception:
                ok = False
            if ok:
                if log:
                    log(f"  shrink: {what}")
                cur = c
                progress = True
                break
    return cur, tried


def write_fixture(m: A.Model, res: dict, ref: Any, folder: Path, xfail: str | None = None) -> Path:
    """``folder/<Model>.mo`` and ``folder/<Model>.json`` (what the reference interpreter expects)."""
    folder.mkdir(parents=True, exist_ok=True)
    mo = folder / f"{m.name}.mo"
    mo.write_text(A.render(m))
    info = {"model": m.name, "seed": m.seed, "stop": m.stop, "dt": m.dt, "kinds": res.get("kinds"),
            "signature": res.get("signature"), "details": _jsonable(res.get("details")), "xfail": xfail,
            "rumoca": res.get("rumoca")}
    if ref is not None:
        info["reference"] = {"t": [round(float(x), 12) for x in ref.t], "events": [float(x) for x in ref.events],
                             "values": {k: [float(x) for x in v] for k, v in ref.data.items()}}
    (folder / f"{m.name}.json").write_text(json.dumps(info, indent=1) + "\n")
    return mo


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items() if k != "traceback"}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x)
    return x


__all__ = ["shrink", "cleanup", "candidates", "write_fixture", "replace"]
