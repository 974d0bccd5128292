"""``python -m wearcosim.bench.fmi3``: every example of the library built as FMI 2.0 and 3.0 in
one build (``--fmi 2,3``), the FMI 3.0 FMU checked by FMPy's ``validate_fmu`` and both run by
FMPy, Co-Simulation and Model Exchange (CVode), on the same grid: the largest difference of
every output, as a share of its range, and the build's CPU time against the FMI 2.0 build
alone (issue 35's acceptance figures; results/bench_fmi3.json).

Not a test (it builds 31 models); ``tests/export/test_fmi3.py`` checks a few of them.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..export.md3 import split_element
from ..fmi.check import fmpy_validation_problems
from .suite import _cpu_all


def outputs(fmu: Path) -> list[str]:
    """The names of the FMU's outputs (FMI 2.0: Real/Integer/Boolean scalars; FMI 3.0: its
    variables, arrays by their own names)."""
    from fmpy import read_model_description
    return [v.name for v in read_model_description(str(fmu)).modelVariables if v.causality == "output"
            and v.type in ("Real", "Integer", "Boolean", "Float64", "Int32", "Int64")]


def compare(fmi2: Path, fmi3: Path, fmi_type: str, stop: float, outs: Sequence[str], outs3: Sequence[str],
            n: int = 500) -> dict[str, float]:
    """The largest difference of every output ``outs`` of the two FMUs (``outs3``: the FMI
    3.0 FMU's names) run by FMPy on the same grid, as a share of the FMI 2.0 run's range (or of
    its magnitude when constant)."""
    from fmpy import simulate_fmu
    kw: dict[str, Any] = dict(stop_time=stop, output_interval=stop / n, fmi_type=fmi_type)
    if fmi_type == "ModelExchange":
        kw.update(solver="CVode", relative_tolerance=1e-8)
    fails = []
    for f, names in ((fmi2, outs), (fmi3, outs3)):
        try:
            fails.append(("", simulate_fmu(str(f), output=names, **kw)))
        except Exception as exc:                       # (one line: FMPy's solver or the FMU)
            fails.append((str(exc).splitlines()[0][:160], None))
    if fails[0][0] or fails[1][0]:
        raise RuntimeError(f"FMI 2.0: {fails[0][0] or 'ok'}; FMI 3.0: {fails[1][0] or 'ok'}")
    a, b = fails[0][1], fails[1][1]

    def of3(name: str) -> np.ndarray:
        """An FMI 2.0 output's series from the FMI 3.0 run: a scalar, or an element of an array
        (``a[i]``, ``a[i,j]``: FMPy gives the array's values per point, row-major)."""
        if name in b.dtype.names:
            return np.asarray(b[name], float)
        base, sub = split_element(name)
        col = np.asarray(b[base], float)
        return col.reshape(len(col), -1)[:, int(np.ravel_multi_index([i - 1 for i in sub], col.shape[1:]))]
    out = {}
    for o in outs:
        x, y = np.asarray(a[o], float), of3(o)
        k = min(len(x), len(y))
        span = float(np.ptp(x)) or float(np.max(np.abs(x), initial=0.0)) or 1.0
        out[o] = float(np.max(np.abs(x[:k] - y[:k]), initial=0.0)) / span if len(x) == len(y) else float("inf")
    return out


def run(models: Sequence[str] | None = None, log: Any = print) -> list[dict[str, Any]]:
    from ..export import frontend
    from ..export.build import DEFAULT_PACKAGE, build_fmu
    models = list(models or frontend.list_models(DEFAULT_PACKAGE, "WearCosim.Examples"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="wearcosim-fmi3-") as tmp:
        for model in models:
            r: dict[str, Any] = {"model": model}
            try:
                c0 = _cpu_all()
                build_fmu(model, out_dir=Path(tmp) / "two", fmi=2)
                c1 = _cpu_all()
                res = build_fmu(model, out_dir=Path(tmp) / "both", fmi="2,3")
                c2 = _cpu_all()
                r["build_ratio"] = (c2 - c1) / max(c1 - c0, 1e-9)
                f2, f3 = res.fmus[2], res.fmus[3]
                r["problems"] = fmpy_validation_problems(f3)
                from fmpy import read_model_description
                exp = read_model_description(str(f2)).defaultExperiment
                outs, outs3 = outputs(f2), outputs(f3)
                stop = float(exp.stopTime) if exp is not None and exp.stopTime else 1.0
                r["stop"] = stop
                for kind in ("CoSimulation", "ModelExchange"):
                    try:
                        d = compare(f2, f3, kind, stop, outs, outs3)
                        r[kind] = max(d.values(), default=0.0)
                        r[kind + "_worst"] = max(d, key=d.get) if d else ""
                    except Exception as exc:               # (reported in the row)
                        r[kind] = None
                        r[kind + "_error"] = str(exc).splitlines()[0][:200]
            except Exception as exc:
                r["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
            rows.append(r)
            log(f"{model:60s} " + (r["error"] if "error" in r else
                f"problems {len(r['problems'])}  CS {r['CoSimulation']}  ME {r['ModelExchange']}  "
                f"build x{r['build_ratio']:.2f}"))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.fmi3", description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", help="example classes (default: every WearCosim.Examples model)")
    ap.add_argument("--out", default=None, help="JSON file (default results/bench_fmi3.json)")
    a = ap.parse_args(argv)
    from ..atomic import write_bytes
    from ..resources import results_dir
    t0 = time.perf_counter()
    rows = run(a.models or None)
    out = Path(a.out) if a.out else results_dir() / "bench_fmi3.json"
    write_bytes(out, json.dumps(rows, indent=1, default=float).encode())
    bad = [r for r in rows if "error" in r or r.get("problems")]
    print(f"{len(rows)} models, {len(bad)} with an error or a problem, {time.perf_counter() - t0:.0f} s -> {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
