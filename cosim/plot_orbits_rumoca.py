"""Journal orbits and joint forces of the clearance-joint examples, simulated with rumoca.

    python cosim/plot_orbits_rumoca.py [--out results] [CASE ...]

CASE is the name of a wrapper in tests/models/mo/WearCosimChecks (default: all examples of
WearCosim.Examples.SliderCrank and .HybridMechanism).  For each case a PNG with the journal
orbit (journal centre relative to the bearing centre, with the clearance circle) and the joint
force over time is written to ``<out>/orbit_<CASE>.png``; group figures compare the seed's
studies (speed, clearance, lubrication).  rumoca takes no inputs, so the wrappers bind
wearDepth to 0 (unworn bearing).
"""
from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ROOT / "tests" / "models" / "mo" / "WearCosimChecks" / "package.mo"
EXAMPLES = ROOT / "modelica" / "WearCosim" / "Examples"

# wrapper -> (example file, clearance [m])
CASES = {
    "SliderCrankDry": ("SliderCrank/Dry", 0.5e-3),
    "SliderCrankLubricated": ("SliderCrank/Lubricated", 0.5e-3),
    **{f"Hybrid{n}": (f"HybridMechanism/{n}", c) for n, c in [
        ("DrySpeed4pi", 0.25e-3), ("DrySpeed8pi", 0.25e-3), ("DrySpeed16pi", 0.25e-3), ("DrySpeed32pi", 0.25e-3),
        ("DryClearance015", 0.15e-3), ("DryClearance025", 0.25e-3), ("DryClearance035", 0.35e-3),
        ("DryClearance045", 0.45e-3), ("Dry7pi", 0.20e-3), ("Lubricated7pi", 0.20e-3)]},
}
GROUPS = {
    "hybrid_speed": ["HybridDrySpeed4pi", "HybridDrySpeed8pi", "HybridDrySpeed16pi", "HybridDrySpeed32pi"],
    "hybrid_clearance": ["HybridDryClearance015", "HybridDryClearance025", "HybridDryClearance035", "HybridDryClearance045"],
    "hybrid_lubrication": ["HybridDry7pi", "HybridLubricated7pi"],
    "slider_crank": ["SliderCrankDry", "SliderCrankLubricated"],
}


def experiment(example: str):
    s = (EXAMPLES / f"{example}.mo").read_text()
    return (float(re.search(r"StopTime = ([0-9.eE+-]+)", s).group(1)),
            float(re.search(r"Interval = ([0-9.eE+-]+)", s).group(1)))


def run(case: str, session=None):
    import rumoca
    session = session or rumoca.Session(roots=[str(ROOT / "modelica")])
    stop, interval = experiment(CASES[case][0])
    m = session.load(str(CHECKS), model="WearCosimChecks." + case)
    r = m.simulate((0.0, stop), dt=interval, config=rumoca.SimConfig(rtol=1e-9, atol=1e-12)).to_dict()
    return np.asarray(r["time"]), {k: np.asarray(v) for k, v in r["data"].items()}


def _orbit(ax, d, c, title):
    phi = np.linspace(0, 2 * math.pi, 361)
    ax.plot(1e3 * c * np.cos(phi), 1e3 * c * np.sin(phi), "k-", lw=0.8, label="clearance c")
    ax.plot(1e3 * d["ex"], 1e3 * d["ey"], lw=0.6)
    ax.set_aspect("equal")
    ax.set_xlabel("e_x [mm]")
    ax.set_ylabel("e_y [mm]")
    ax.set_title(title, fontsize=9)


def plot_case(case: str, out: Path, data=None) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t, d = data or run(case)
    c = CASES[case][1]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    _orbit(a1, d, c, f"{case}: journal orbit")
    a2.plot(t, d["Fjoint"], lw=0.6, label="|F| joint")
    a2.plot(t, d["Fn"], lw=0.6, label="Fn (solid contact)")
    a2.set_xlabel("t [s]")
    a2.set_ylabel("force [N]")
    a2.legend(fontsize=8)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"orbit_{case}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_group(name: str, cases, out: Path, results) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(cases), figsize=(4.2 * len(cases), 4.2))
    for ax, case in zip(np.atleast_1d(axes), cases):
        _orbit(ax, results[case][1], CASES[case][1], CASES[case][0].split("/")[-1])
    fig.tight_layout()
    path = out / f"orbits_{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "results"))
    p.add_argument("cases", nargs="*")
    a = p.parse_args(argv)
    import rumoca
    session = rumoca.Session(roots=[str(ROOT / "modelica")])
    out = Path(a.out)
    cases = a.cases or list(CASES)
    results = {}
    for case in cases:
        results[case] = run(case, session)
        print(plot_case(case, out, results[case]))
    for name, group in GROUPS.items():
        if all(g in results for g in group):
            print(plot_group(name, group, out, results))


if __name__ == "__main__":
    main()
