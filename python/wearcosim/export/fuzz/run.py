"""One model through the differential test: reference interpreter, exporter + FMPy (CS and ME),
rumoca's simulator, and the comparison at the communication points.

:func:`check` returns a plain dict (JSON-able) with a ``verdict``:

``agree``          CS and ME agree with the reference interpreter
``rumoca-bug``     the FMU agrees with the reference, rumoca does not (recorded, explained)
``refused``        the exporter refuses a construct docs/exporter.md lists as refused (explained)
``skipped``        the reference could not simulate the model (the generator's or the
                   interpreter's limit, with the reason)
``disagree``       anything else: ``kinds`` says what (``cs-mismatch``, ``me-mismatch``,
                   ``build-error``, ``build-crash``, ``cs-error``, ``me-error``, ``missing-variable``,
                   ``fmu+rumoca-vs-reference``)
"""
from __future__ import annotations

import re
import shutil
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from . import tree as A
from .interp import ModelError, OracleError, simulate as ref_simulate

#: refusals docs/exporter.md documents ("Refused by the Modelica front end ..."): not a defect
DOCUMENTED_REFUSALS = [
    (r"does not support while-loops", "while-loops in functions (documented as refused)"),
    (r"subscript computed with .* inside a for-equation", "mod()/rem() of a for-index in a subscript (documented as refused)"),
    (r"when-equation assigning .* supports when-equations on scalar", "when-equation assigning an array element (documented as refused)"),
    (r"comprehension or reduction whose range is not a constant", "reduction over a loop-dependent range (documented as refused)"),
]

RTOL = {"CoSimulation": 1e-5, "ModelExchange": 1e-4, "rumoca": 1e-4}
ATOL = {"CoSimulation": 1e-6, "ModelExchange": 1e-5, "rumoca": 1e-5}
SOLVER_RTOL = 1e-9


def block_of(m: A.Model) -> dict:
    out = {}
    for b in m.blocks:
        for d in b.decls:
            out[d.name] = b.kind
    return out


def compare(t: np.ndarray, ref: dict, got: dict, events: list, dt: float, rtol: float, atol: float,
            types: dict | None = None) -> list:
    """Mismatches [(name, max_err, t_first, got, want)] of ``got`` (on the grid t) against ``ref``,
    samples within a small window of the reference's events left out."""
    mask = np.ones(len(t), dtype=bool)
    w = 0.02 * dt + 1e-6
    for te in events:
        mask &= np.abs(t - te) > w
    out = []
    for n, want in ref.items():
        if n not in got:
            continue
        g = np.asarray(got[n], dtype=float)
        if g.shape != want.shape:
            out.append((n, float("inf"), None, None, None))
            continue
        scale = max(float(np.max(np.abs(want))), 1e-3)
        err = np.abs(g - want)
        bad = mask & ~(err <= atol + rtol * scale)
        if bad.any():
            i = int(np.argmax(bad))
            out.append((n, float(np.max(err[mask])), float(t[i]), float(g[i]), float(want[i])))
    return out


def fmu_simulate(fmu_dir: Path, names: list, stop: float, dt: float, fmi_type: str) -> tuple:
    from fmpy import simulate_fmu
    r = simulate_fmu(str(fmu_dir), stop_time=stop, output_interval=dt, fmi_type=fmi_type, output=names,
                     relative_tolerance=SOLVER_RTOL, timeout=120)
    t = np.asarray(r["time"], dtype=float)
    return t, {n: np.asarray(r[n], dtype=float) for n in names}


def on_grid(grid: np.ndarray, t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Values of (t, y) at the grid's times: the last sample at that time if there is one (the
    right limit at an event), linear interpolation otherwise."""
    idx = np.searchsorted(t, grid, side="right") - 1
    idx = np.clip(idx, 0, len(t) - 1)
    exact = np.abs(t[idx] - grid) <= 1e-9 * max(1.0, float(grid[-1]))
    out = np.interp(grid, t, y)
    out[exact] = y[idx[exact]]
    return out


_rumoca_session = None


def rumoca_simulate(path: Path, model: str, stop: float, dt: float, grid: np.ndarray) -> dict:
    global _rumoca_session
    import rumoca
    if _rumoca_session is None:
        _rumoca_session = rumoca.Session()
    m = _rumoca_session.load(str(path), model=model)
    r = m.simulate((0.0, stop), dt=dt, config=rumoca.SimConfig(rtol=1e-10, atol=1e-12)).to_dict()
    t = np.asarray(r["time"], dtype=float)
    return {k: on_grid(grid, t, np.asarray(v, dtype=float)) for k, v in r["data"].items()}


def build(model: A.Model, work: Path) -> tuple:
    """(fmu folder or None, error dict or None)."""
    from wearcosim.export.build import build_fmu
    from wearcosim.export.errors import ExportError
    mo = work / f"{model.name}.mo"
    mo.write_text(A.render(model))
    out = work / "out"
    t0 = time.perf_counter()
    try:
        r = build_fmu(model.name, mo.parent, out, path=mo)
    except ExportError as exc:
        return None, {"kind": "build-error", "message": str(exc), "exc_kind": exc.kind,
                      "seconds": time.perf_counter() - t0}
    except Exception as exc:      # a traceback: always a defect
        return None, {"kind": "build-crash", "message": f"{type(exc).__name__}: {exc}",
                      "traceback": traceback.format_exc(limit=8), "seconds": time.perf_counter() - t0}
    from fmpy import extract
    d = work / "fmu"
    extract(str(r.fmu), unzipdir=str(d))
    return d, {"seconds": r.seconds, "n_states": r.n_states}


def documented(msg: str) -> str | None:
    for pat, why in DOCUMENTED_REFUSALS:
        if re.search(pat, msg):
            return why
    return None


def check(model: A.Model, work: Path, use_rumoca: bool = True, keep: bool = False) -> dict:
    """The differential test of one model in the folder ``work`` (created, removed unless keep)."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    res = {"model": model.name, "seed": model.seed, "blocks": [b.kind for b in model.blocks],
           "kinds": [], "details": {}, "times": {}}
    try:
        return _check(model, work, use_rumoca, res)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _check(model, work, use_rumoca, res):
    t0 = time.perf_counter()
    try:
        ref = ref_simulate(model)
    except (ModelError, OracleError) as exc:
        res["verdict"] = "skipped"
        res["reason"] = f"reference: {type(exc).__name__}: {exc}"
        return res
    except Exception as exc:
        res["verdict"] = "skipped"
        res["reason"] = f"reference crashed: {type(exc).__name__}: {exc}"
        res["details"]["reference_traceback"] = traceback.format_exc(limit=6)
        return res
    res["times"]["reference"] = time.perf_counter() - t0
    res["n_events"] = len(ref.events)
    grid = ref.t
    t0 = time.perf_counter()
    fmu, info = build(model, work)
    res["times"]["build"] = time.perf_counter() - t0
    fmu_ok = {}
    if fmu is None:
        why = documented(info["message"]) if info["kind"] == "build-error" else None
        if why:
            res["verdict"] = "refused"
            res["reason"] = why
            res["details"]["build"] = info
            return res
        res["kinds"].append(info["kind"])
        res["details"]["build"] = info
    else:
        from fmpy import read_model_description
        md = read_model_description(str(fmu))
        have = {v.name for v in md.modelVariables}
        names = [n for n in ref.data if n in have]
        missing = [n for n in ref.data if n not in have]
        if missing:
            res["kinds"].append("missing-variable")
            res["details"]["missing"] = missing[:20]
        for ft, tag in (("CoSimulation", "cs"), ("ModelExchange", "me")):
            t1 = time.perf_counter()
            try:
                t, data = fmu_simulate(fmu, names, model.stop, model.dt, ft)
            except Exception as exc:
                res["kinds"].append(f"{tag}-error")
                res["details"][f"{tag}_error"] = f"{type(exc).__name__}: {exc}"[:500]
                fmu_ok[tag] = False
                continue
            res["times"][tag] = time.perf_counter() - t1
            if len(t) != len(grid) or np.max(np.abs(t - grid)) > 1e-9:
                data = {n: on_grid(grid, t, y) for n, y in data.items()}
            mm = compare(grid, ref.data, data, ref.events, model.dt, RTOL[ft], ATOL[ft])
            fmu_ok[tag] = not mm
            if mm:
                res["kinds"].append(f"{tag}-mismatch")
                res["details"][f"{tag}_mismatch"] = mm[:12]
                res["details"][f"{tag}_n_mismatch"] = len(mm)
    if use_rumoca:
        t1 = time.perf_counter()
        try:
            rd = rumoca_simulate(work / f"{model.name}.mo", model.name, model.stop, model.dt, grid)
            mm = compare(grid, ref.data, rd, ref.events, model.dt, RTOL["rumoca"], ATOL["rumoca"])
            res["rumoca"] = "agree" if not mm else "disagree"
            if mm:
                res["details"]["rumoca_mismatch"] = mm[:12]
                res["details"]["rumoca_n_mismatch"] = len(mm)
                # the FMU and rumoca agreeing against the reference: the reference decides, but
                # say so (a front-end defect shared by both, or the interpreter's)
                for tag in ("cs", "me"):
                    if f"{tag}_mismatch" in res["details"]:
                        bad_r = {x[0] for x in mm}
                        bad_f = {x[0] for x in res["details"][f"{tag}_mismatch"]}
                        if bad_r & bad_f and "fmu+rumoca-vs-reference" not in res["kinds"]:
                            res["kinds"].append("fmu+rumoca-vs-reference")
        except Exception as exc:
            res["rumoca"] = "error"
            res["details"]["rumoca_error"] = f"{type(exc).__name__}: {exc}"[:300]
        res["times"]["rumoca"] = time.perf_counter() - t1
    if res["kinds"]:
        res["verdict"] = "disagree"
    elif res.get("rumoca") == "disagree":
        res["verdict"] = "rumoca-bug"
    else:
        res["verdict"] = "agree"
    blk = block_of(model)
    res["signature"] = signature(res, blk)
    return res


def _norm(msg: str) -> str:
    msg = re.sub(r"^\S+\.mo:\d+(:\d+)?: ", "", msg)
    msg = re.sub(r"\b[a-zA-Z_]+\d+\b", "<name>", msg)
    msg = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "<n>", msg)
    return msg[:120]


def signature(res: dict, blk: dict) -> str:
    """A class of disagreement: its kinds, and the blocks of the variables that disagree (or the
    build error's message without names and numbers)."""
    parts = []
    for k in sorted(set(res["kinds"])):
        if k in ("build-error", "build-crash"):
            parts.append(f"{k}: {_norm(res['details']['build']['message'])}")
        elif k.endswith("-mismatch"):
            vs = res["details"][k.replace("-", "_")]
            parts.append(f"{k}: " + ",".join(sorted({blk.get(v[0].split('[')[0].split('.')[0], '?') for v in vs})))
        else:
            parts.append(k)
    return " | ".join(parts)


def model_job(task: tuple) -> dict:
    """A worker's task: generate the model of this seed and check it (see :func:`check`)."""
    seed, work, use_rumoca, keep = task
    from .gen import generate
    t0 = time.perf_counter()
    m = generate(seed)
    try:
        r = check(m, Path(work) / f"m{seed}", use_rumoca=use_rumoca, keep=keep)
    except Exception as exc:           # the fuzzer's own defect: reported, never hidden
        r = {"model": m.name, "seed": seed, "verdict": "skipped", "kinds": [],
             "reason": f"fuzzer crashed: {type(exc).__name__}: {exc}",
             "details": {"traceback": traceback.format_exc(limit=6)}}
    if r.get("verdict") == "disagree":
        why = known_defect(m, r)
        if why:
            r["verdict"], r["reason"] = "known-defect", why
    r["wall"] = time.perf_counter() - t0
    return r


def model_failure(task: tuple, how: str, detail: str) -> dict:
    """The result of a model whose worker died or ran out of time: a disagreement (the FMU or a
    simulator crashed or hung on a valid model) unless the reference alone was the problem."""
    seed = task[0]
    return {"model": f"Fz{seed}", "seed": seed, "verdict": "disagree", "kinds": [f"worker-{how}"],
            "details": {"worker": detail[:2000]}, "signature": f"worker-{how}", "times": {}, "wall": None}


def candidate_job(task: tuple) -> dict:
    """A shrink candidate's check (no rumoca), in a worker: (model, folder)."""
    m, d = task
    r = check(m, Path(d) / "c", use_rumoca=False)
    return {"verdict": r.get("verdict"), "signature": r.get("signature", ""), "kinds": r.get("kinds", [])}


def candidate_failure(task: tuple, how: str, detail: str) -> dict:
    """A shrink candidate whose worker died or hung."""
    return {"verdict": "disagree", "kinds": [f"worker-{how}"], "signature": f"worker-{how}", "details": {"worker": detail}}


#: defects of the exporter known and being fixed (issue 32): (test on the model, reason)
KNOWN_DEFECTS = [
    ("edge-change-of-when-boolean",
     "edge()/change() of a Boolean assigned in another when-clause never fire (issue 32, being fixed)"),
]


def _when_assigned(m: A.Model) -> set:
    out = set()

    def visit(e: Any, inwhen: bool) -> None:
        if isinstance(e, A.When):
            for _, body in e.branches:
                for b in body:
                    visit(b, True)
        elif isinstance(e, A.ForEq):
            for b in e.body:
                visit(b, inwhen)
        elif isinstance(e, A.Eq) and inwhen:
            for x in (e.lhs if isinstance(e.lhs, tuple) else (e.lhs,)):
                if isinstance(x, A.Ref):
                    out.add(x.name)
    for e in m.equations():
        visit(e, False)
    return out


def known_defect(m: A.Model, res: dict) -> str | None:
    """The reason of a known exporter defect this disagreement is an instance of (its regression
    fixture is then xfail), or None."""
    if res.get("verdict") != "disagree":
        return None
    kinds = set(res.get("kinds", []))
    if not kinds & {"cs-mismatch", "me-mismatch"}:
        return None
    # the variables of when-clauses triggered by edge()/change() of a Boolean assigned in a
    # when-clause: if they are the only ones that disagree, it is that defect
    wa = _when_assigned(m)
    hit = set()
    for e in m.equations():
        if not isinstance(e, A.When):
            continue
        for c, body in e.branches:
            if any(isinstance(n, A.Call) and n.f in ("edge", "change") and isinstance(n.args[0], A.Ref)
                   and n.args[0].name in wa for n in A.walk(c)):
                hit |= _when_assigned(A.Model("x", blocks=[A.Block("x", eqs=[A.When([(c, body)])])]))
    bad = {v[0].split("[")[0] for k in ("cs_mismatch", "me_mismatch") for v in res.get("details", {}).get(k, [])}
    if hit and bad and bad <= hit and not kinds - {"cs-mismatch", "me-mismatch", "fmu+rumoca-vs-reference"}:
        return KNOWN_DEFECTS[0][1]
    return None


def final_job(task: tuple) -> tuple:
    """The shrunk model's full check (with rumoca) and the reference's result, in a worker."""
    from .interp import simulate
    m, d = task
    res = check(m, Path(d) / "c", use_rumoca=True)
    try:
        ref = simulate(m)
    except Exception:
        ref = None
    return res, ref
