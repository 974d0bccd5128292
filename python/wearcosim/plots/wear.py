"""Figures in the style of seed 002: journal-centre orbit inside the clearance circle
(Fig. 4), wear depth over angle x cycles as a 3-D surface and as a polar plot (Fig. 5),
profiles after a set of cycle counts (Fig. 6), comparisons between runs (Fig. 7-11).
Every figure is written as PNG and PDF, atomically."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .timeseries import _plt, save


def _both(fig, base: Path):
    base = Path(base)
    save(fig, base.with_suffix(".png"))
    save(fig, base.with_suffix(".pdf"))
    return base.with_suffix(".png")


def _x(wear: dict):
    """Sector positions for the abscissa: degrees on a circular surface, mm along a profile."""
    if wear.get("profile"):
        return np.asarray(wear["sector_centres"]) * 1e3, "position along the profile [mm]"
    return np.degrees(wear["sector_centres"]), "angle [deg]"


def orbit(series: dict, clearance: float, base, title=""):
    """Journal-centre orbit (ex, ey) in mm inside the clearance circle (seed Fig. 4)."""
    return compare_orbits({"journal centre": series}, clearance, base, title or "Journal-centre orbit")


def wear_surface(wear: dict, base, title=""):
    """Wear depth over sector angle and (real) cycles: 3-D surface."""
    plt = _plt()
    ang, xlabel = _x(wear)
    cyc = np.asarray(wear["cycles"])
    D = np.asarray(wear["depth"]) * 1e6
    fig = plt.figure(figsize=(7, 5))
    ax = fig.add_subplot(111, projection="3d")
    A, C = np.meshgrid(ang, cyc)
    ax.plot_surface(A, C, D, cmap="viridis", linewidth=0, antialiased=True)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cycles")
    ax.set_zlabel("wear depth [um]")
    ax.set_title(title or "Wear depth over angle and cycles")
    out = _both(fig, base)
    plt.close(fig)
    return out


def wear_polar(wear: dict, base, title="", label=None):
    """Final wear depth around the bearing (polar), sectors closed periodically."""
    plt = _plt()
    fig = plt.figure(figsize=(5, 5))
    ax = fig.add_subplot(111, projection="polar")
    th = np.append(wear["sector_centres"], wear["sector_centres"][0])
    d = np.append(wear["final"], wear["final"][0]) * 1e6
    ax.plot(th, d, lw=1.2, label=label)
    ax.fill(th, d, alpha=0.25)
    ax.set_title(title or "Wear depth [um] around the bearing", fontsize=10)
    out = _both(fig, base)
    plt.close(fig)
    return out


def profiles_at(wear: dict, cycles_wanted, base, title="", real: bool = False):
    """Wear profile after selected (simulated; ``real``: real) cycle counts (seed Fig. 6)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    sim = np.asarray(wear["simulated_cycles"])
    rc = np.asarray(wear["cycles"])
    ang, xlabel = _x(wear)
    for c in cycles_wanted:
        k = int(np.argmin(np.abs((rc if real else sim) - c)))
        ax.plot(ang, wear["depth"][k] * 1e6, label=f"{int(sim[k])} cycles ({rc[k]:.3g} real)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("wear depth [um]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "Wear depth after N cycles")
    out = _both(fig, base)
    plt.close(fig)
    return out


def compare_profiles(runs: dict, base, title=""):
    """Final profiles of several runs on one axis (seed Fig. 7-8, 11)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    xlabel = "angle [deg]"
    for label, wear in runs.items():
        x, xlabel = _x(wear)
        ax.plot(x, np.asarray(wear["final"]) * 1e6, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("wear depth [um]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title)
    out = _both(fig, base)
    plt.close(fig)
    return out


def compare_orbits(runs: dict, clearance: float, base, title=""):
    """Orbits of one or more runs inside the (unworn) clearance circle, in mm."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ph = np.linspace(0, 2 * np.pi, 400)
    ax.plot(clearance * 1e3 * np.cos(ph), clearance * 1e3 * np.sin(ph), "k--", lw=0.8, label="clearance circle")
    for label, s in runs.items():
        ax.plot(np.asarray(s["ex"]) * 1e3, np.asarray(s["ey"]) * 1e3, lw=0.6, label=label)
    ax.set_aspect("equal")
    ax.set_xlabel("x [mm]")
    ax.set_ylabel("y [mm]")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(title)
    out = _both(fig, base)
    plt.close(fig)
    return out


def extrapolation_history(x: dict, base, title=""):
    """Adaptive extrapolation: the factor of every judged jump against the real cycles, and
    its normalised error estimate (accepted: dots; taken back: crosses; 1 = the tolerance)."""
    plt = _plt()
    fig, (a, b) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    acc = np.asarray(x["accepted"]) == 1
    rc, f, e = np.asarray(x["real_cycles"]), np.asarray(x["factor"]), np.asarray(x["error"])
    a.semilogy(rc[acc], f[acc], ".-", lw=0.8, label="accepted")
    a.semilogy(rc[~acc], f[~acc], "rx", label="taken back")
    a.set_ylabel("real cycles per simulated cycle")
    a.grid(alpha=0.3)
    a.legend(fontsize=8)
    b.semilogy(rc[acc], np.maximum(e[acc], 1e-6), ".", ms=3)
    b.semilogy(rc[~acc], e[~acc], "rx")
    b.axhline(1.0, color="k", lw=0.8, ls="--")
    b.set_xlabel("real cycles")
    b.set_ylabel("error / tolerance")
    b.grid(alpha=0.3)
    at = x.get("attrs", {})
    a.set_title(title or f"Adaptive extrapolation (rtol {at.get('rtol', float('nan')):g}, estimated error "
                         f"{at.get('sector_error_estimate', float('nan')):.2g} of the depth)", fontsize=10)
    out = _both(fig, base)
    plt.close(fig)
    return out


def plot_results(path, out_dir=None) -> list:
    """All single-run figures of a results file."""
    from ..master.store import read_results
    path = Path(path)
    meta, series, wear = read_results(path)
    out_dir = Path(out_dir or path.parent)
    stem = out_dir / path.stem
    made = []
    wear["profile"] = float(meta.get("extent", 0) or 0) > 0
    if "ex" in series and "ey" in series:
        # the unworn clearance circle (wear opens it: the journal may cross it)
        clearance = float(meta.get("clearance", 0) or 0) or float(np.max(np.hypot(series["ex"], series["ey"])))
        made.append(orbit(series, clearance, Path(str(stem) + "_orbit"), f"{path.stem}: journal-centre orbit"))
    if len(wear.get("cycles", [])) > 1:
        made.append(wear_surface(wear, Path(str(stem) + "_wear3d"), f"{path.stem}: wear depth"))
        sim = np.asarray(wear["simulated_cycles"])
        if meta.get("extrapolation") == "adaptive":       # simulated cycles stand for ever more real ones
            marks = [f * float(np.max(wear["cycles"])) for f in (0.25, 0.5, 0.75, 1.0)]
            made.append(profiles_at(wear, marks, Path(str(stem) + "_profiles"), f"{path.stem}: wear after N cycles",
                                    real=True))
        else:
            marks = [c for c in (20, 40, 80, 160) if c <= sim.max()] or list(sim[1:][-4:])
            made.append(profiles_at(wear, marks, Path(str(stem) + "_profiles"), f"{path.stem}: wear after N cycles"))
        from ..master.store import read_extrapolation
        x = read_extrapolation(path)
        if x.get("attrs", {}).get("mode") == "adaptive" and len(x.get("factor", [])):
            made.append(extrapolation_history(x, Path(str(stem) + "_extrapolation")))
    if wear["profile"]:
        made.append(compare_profiles({"final": wear}, Path(str(stem) + "_final"), f"{path.stem}: final wear depth"))
    else:
        made.append(wear_polar(wear, Path(str(stem) + "_polar"), f"{path.stem}: final wear depth [um]"))
    return made
