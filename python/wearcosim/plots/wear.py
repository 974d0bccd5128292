"""Figures of wear runs, in the style of :mod:`wearcosim.plots.style` (journal column, PDF +
300-dpi PNG): the contact orbit inside the clearance (coloured by time, so start-up and steady
state are told apart; the unworn clearance circle drawn over it), the wear map over sector and
real cycles (colour bar), profiles after a set of real cycle counts (the final one always
included), the final profile around the bearing (polar; 0 deg on the +x axis, angles
counter-clockwise) or along a gear flank (start of active profile, pitch point and tip
marked), the adaptive extrapolation history, and comparisons between runs (naturally sorted
names; small multiples for more than four orbits)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .style import COLUMN, DOUBLE, figure, natural_key, plt, run_title, save, um


def _wrap(title: str, width: int = 48) -> str:
    import textwrap
    return "\n".join(textwrap.wrap(title, width)) if title else title


def _x(wear: dict):
    """Sector positions for the abscissa: degrees on a circular surface, mm along a profile."""
    if wear.get("profile"):
        return np.asarray(wear["sector_centres"]) * 1e3, "position along the profile (mm)"
    return np.degrees(wear["sector_centres"]), "angle from +x, counter-clockwise (deg)"


def _circle(ax, radius_mm, centre_mm=(0.0, 0.0), label="unworn clearance circle"):
    """Drawn over the orbit, thin and dashed: a journal running along the wall stays visible."""
    ph = np.linspace(0, 2 * np.pi, 400)
    ax.plot(centre_mm[0] + radius_mm * np.cos(ph), centre_mm[1] + radius_mm * np.sin(ph), color="0.15", lw=0.6,
            ls=(0, (3, 3)), zorder=5, label=label)


def _gaps(t):
    """Where the recorded series jumps in time (cycles not recorded, ``run.record_every``):
    a boolean per segment, True where the step exceeds 1.5 x the usual one."""
    dt = np.diff(np.asarray(t, dtype=float))
    if dt.size == 0:
        return np.zeros(0, dtype=bool)
    return dt > 1.5 * np.median(dt)


def _broken(t, *xs):
    """``xs`` with NaN inserted at the time gaps, so that a line is not drawn across them."""
    cut = np.flatnonzero(_gaps(t)) + 1
    return [np.insert(np.asarray(x, dtype=float), cut, np.nan) for x in xs]


def _time_line(ax, x, y, t, cmap="viridis"):
    """The path (x, y) coloured by time t, not drawn across gaps in t; returns the collection
    (for a colour bar)."""
    from matplotlib.collections import LineCollection
    pts = np.column_stack([x, y]).reshape(-1, 1, 2)
    seg = np.concatenate([pts[:-1], pts[1:]], axis=1)
    keep = ~_gaps(t) if len(t) == len(x) else np.ones(len(seg), dtype=bool)
    lc = LineCollection(seg[keep], cmap=cmap, linewidths=1.0, zorder=3)
    lc.set_array(np.asarray(t)[:-1][keep])
    ax.add_collection(lc)
    ax.plot([x[0]], [y[0]], "o", ms=3, color="C3", zorder=6, label="start")
    return lc


def orbit(series: dict[str, Any], clearance: float, base: str | Path, title: str = "",
          names: tuple[str, str] = ("ex", "ey"), centre: tuple[float, float] = (0.0, 0.0),
          what: str = "journal centre") -> Path:
    """The contact orbit (``names``, m) in mm inside the clearance circle of radius
    ``clearance`` (m) centred at ``centre`` (m), coloured by time with a colour bar."""
    fig, ax = figure(COLUMN, 0.95)
    x, y = um(series[names[0]]) / 1e3, um(series[names[1]]) / 1e3
    t = np.asarray(series["time"]) if "time" in series else np.arange(len(x), dtype=float)
    lc = _time_line(ax, x, y, t)
    _circle(ax, clearance * 1e3, (centre[0] * 1e3, centre[1] * 1e3))
    cb = fig.colorbar(lc, ax=ax, shrink=0.85, pad=0.02)
    cb.set_label("time (s)" if "time" in series else "sample")
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlabel(f"{what}: x (mm)")
    ax.set_ylabel(f"{what}: y (mm)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=6)
    ax.set_title(_wrap(title or f"{what} orbit"))
    return save(fig, base)


def wear_map(wear: dict[str, Any], base: str | Path, title: str = "") -> Path:
    """Worn depth (um, colour bar) over sector position and real cycles."""
    fig, ax = figure(COLUMN, 0.75)
    pos, xlabel = _x(wear)
    cyc = np.asarray(wear["cycles"], dtype=float)
    D = um(wear["depth"])
    m = ax.pcolormesh(pos, cyc, D, shading="nearest", cmap="magma_r")
    cb = fig.colorbar(m, ax=ax, pad=0.02)
    cb.set_label("worn depth (µm)")
    ax.set_ylim(0, cyc[-1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("real cycles")
    ax.grid(False)
    ax.set_title(_wrap(title or "Wear over sector and cycles"))
    return save(fig, base)


def profiles_at(wear: dict[str, Any], base: str | Path, title: str = "", n: int = 4) -> Path:
    """Profiles after about 1/n, 2/n, ... of the run's real cycles, the final one always
    included, labelled with real cycles (and the simulated cycles they took)."""
    fig, ax = figure(COLUMN, 0.7)
    rc = np.asarray(wear["cycles"], dtype=float)
    sim = np.asarray(wear["simulated_cycles"])
    pos, xlabel = _x(wear)
    picks = sorted({int(np.argmin(np.abs(rc - f * rc[-1]))) for f in np.linspace(1 / n, 1, n)} | {len(rc) - 1})
    picks = [k for k in picks if k > 0] or [len(rc) - 1]
    cmap = plt().get_cmap("viridis")
    for j, k in enumerate(picks):
        last = k == len(rc) - 1
        ax.plot(pos, um(wear["depth"][k]), color="k" if last else cmap(0.15 + 0.7 * j / max(1, len(picks) - 1)),
                lw=1.4 if last else 0.9, label=f"{rc[k]:.3g} real cycles ({int(sim[k])} simulated)" + (", final" if last else ""))
    if wear.get("profile"):
        _flank_marks(ax, wear)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("worn depth (µm)")
    ax.legend(fontsize=6)
    ax.set_title(_wrap(title or "Wear profile after N cycles"))
    return save(fig, base)


def wear_polar(wear: dict[str, Any], base: str | Path, title: str = "", label: str | None = None) -> Path:
    """Final worn depth around the bearing (polar, um); 0 deg on +x, counter-clockwise; the
    radial labels sit where the wear is smallest, away from the peak."""
    p = plt()
    fig = p.figure(figsize=(COLUMN, COLUMN), constrained_layout=True)
    ax = fig.add_subplot(111, projection="polar")
    ax.set_theta_zero_location("E")
    ax.set_theta_direction(1)
    th = np.append(wear["sector_centres"], wear["sector_centres"][0])
    d = um(np.append(wear["final"], wear["final"][0]))
    ax.plot(th, d, lw=1.2, color="C0", label=label)
    ax.fill(th, d, alpha=0.25, color="C0")
    k = int(np.argmax(wear["final"]))
    ax.plot([wear["sector_centres"][k]], [d[k]], "v", color="C3", ms=4)
    ax.annotate(f"peak {d[k]:.3g} µm at {np.degrees(wear['sector_centres'][k]):.0f}°", (wear["sector_centres"][k], d[k]),
                textcoords="offset points", xytext=(4, 6), fontsize=6, color="C3")
    ax.set_rlabel_position(float(np.degrees(wear["sector_centres"][int(np.argmin(wear["final"]))])))
    ax.tick_params(labelsize=6)
    ax.set_title(_wrap(title or "Final worn depth") + "\n(µm; 0° = +x axis, counter-clockwise)", fontsize=7)
    return save(fig, base)


def _pitch_position(series: dict):
    """Where the sliding velocity changes sign along the flank (the pitch point), from the
    recorded contact position ``sContact`` and ``vSlip``; None if not recorded."""
    s, v = series.get("sContact"), series.get("vSlip")
    if s is None or v is None or len(s) < 2:
        return None
    s, v = np.asarray(s), np.asarray(v)
    ok = np.isfinite(s) & np.isfinite(v) & (np.abs(v) > 0)
    s, v = s[ok], v[ok]
    k = np.flatnonzero(np.sign(v[:-1]) != np.sign(v[1:]))
    k = k[np.abs(s[k + 1] - s[k]) < 0.05 * (np.ptp(s) or 1)]         # not across a jump between teeth
    if not len(k):
        return None
    z = s[k] - v[k] * (s[k + 1] - s[k]) / (v[k + 1] - v[k])
    return float(np.median(z))


def _flank_marks(ax, wear: dict):
    """Start of active profile, pitch point and tip on a flank profile's position axis (mm)."""
    ext = float(wear.get("extent") or (2 * np.max(wear["sector_centres"]) - np.min(wear["sector_centres"])))
    marks = [(0.0, "SAP"), (ext, "tip")]
    if wear.get("pitch") is not None:
        marks.append((wear["pitch"], "pitch"))
    for s, name in marks:
        ax.axvline(s * 1e3, color="0.4", lw=0.6, ls=":")
        ax.annotate(name, (s * 1e3, 1.0), xycoords=("data", "axes fraction"), xytext=(2, 2), textcoords="offset points",
                    fontsize=6, color="0.3")


def final_profile(wear: dict[str, Any], base: str | Path, title: str = "") -> Path:
    """Final worn depth along a profile surface (gear flank), with SAP, pitch and tip marked."""
    fig, ax = figure(COLUMN, 0.65)
    pos, xlabel = _x(wear)
    ax.plot(pos, um(wear["final"]), "k-", lw=1.2, marker="o", ms=2)
    _flank_marks(ax, wear)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("worn depth (µm)")
    ax.set_title(_wrap(title or "Final worn depth along the flank"))
    return save(fig, base)


def compare_profiles(runs: dict[str, dict[str, Any]], base: str | Path, title: str = "") -> Path:
    """Final profiles of several runs on one axis (names in natural order: 4, 8, 16, 32)."""
    fig, ax = figure(COLUMN, 0.7)
    xlabel = "angle (deg)"
    names = sorted(runs, key=natural_key)
    cmap = plt().get_cmap("viridis")
    for j, name in enumerate(names):
        wear = runs[name]
        x, xlabel = _x(wear)
        ax.plot(x, um(wear["final"]), color=cmap(0.9 * j / max(1, len(names) - 1)), label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("worn depth (µm)")
    ax.legend(fontsize=6, ncol=2 if len(names) > 5 else 1)
    ax.set_title(_wrap(title))
    return save(fig, base)


def compare_orbits(runs: dict[str, dict[str, Any]], clearance: float, base: str | Path, title: str = "") -> Path:
    """Orbits of several runs (mm) inside the unworn clearance circle: overlaid for up to four
    runs, else one small panel per run (natural order), all on the same scale."""
    names = sorted(runs, key=natural_key)
    if len(names) <= 4:
        fig, ax = figure(COLUMN, 0.95)
        for j, name in enumerate(names):
            s = runs[name]
            x, y = um(s["ex"]) / 1e3, um(s["ey"]) / 1e3
            if "time" in s:
                x, y = _broken(s["time"], x, y)
            ax.plot(x, y, lw=0.5, color=f"C{j}", label=name)
        _circle(ax, clearance * 1e3)
        ax.set_aspect("equal")
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("y (mm)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=6)
        ax.set_title(_wrap(title))
        return save(fig, base)
    cols = 4
    rows = -(-len(names) // cols)
    p = plt()
    fig, axes = p.subplots(rows, cols, figsize=(DOUBLE, DOUBLE / cols * rows + 0.3), sharex=True, sharey=True,
                           constrained_layout=True, squeeze=False)
    for ax, name in zip(axes.flat, names):
        s = runs[name]
        t = np.asarray(s["time"]) if "time" in s else np.arange(len(s["ex"]), dtype=float)
        _time_line(ax, um(s["ex"]) / 1e3, um(s["ey"]) / 1e3, t)
        _circle(ax, clearance * 1e3)
        ax.set_aspect("equal")
        ax.autoscale_view()
        ax.set_title(name, fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    fig.supxlabel("x (mm)", fontsize=8)
    fig.supylabel("y (mm)", fontsize=8)
    fig.suptitle(_wrap(title + " (colour: time from start-up to the end of each run)", 100), fontsize=8)
    return save(fig, base)


def extrapolation_history(x: dict[str, Any], base: str | Path, title: str = "") -> Path:
    """Adaptive extrapolation: the factor of every judged jump against the real cycles, and
    its normalised error estimate (accepted: dots; taken back: crosses; 1 = the tolerance)."""
    p = plt()
    fig, (a, b) = p.subplots(2, 1, figsize=(COLUMN, COLUMN * 0.95), sharex=True, constrained_layout=True)
    acc = np.asarray(x["accepted"]) == 1
    rc, f, e = np.asarray(x["real_cycles"]), np.asarray(x["factor"]), np.asarray(x["error"])
    a.semilogy(rc[acc], f[acc], ".-", lw=0.8, ms=3, label="accepted")
    if (~acc).any():
        a.semilogy(rc[~acc], f[~acc], "x", color="C3", ms=4, label="taken back")
    a.set_ylabel("real cycles per\nsimulated cycle")
    a.legend(fontsize=6)
    b.semilogy(rc[acc], np.maximum(e[acc], 1e-6), ".", ms=3)
    if (~acc).any():
        b.semilogy(rc[~acc], e[~acc], "x", color="C3", ms=4)
    b.axhline(1.0, color="k", lw=0.8, ls="--")
    b.set_xlabel("real cycles")
    b.set_ylabel("error / tolerance")
    at = x.get("attrs", {})
    a.set_title(title or _wrap(f"Adaptive extrapolation (rtol {at.get('rtol', float('nan')):g}; estimated error "
                         f"{at.get('sector_error_estimate', float('nan')):.2g} of the depth)"))
    return save(fig, base)


def plot_results(path: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """All single-run figures of a results file; their PNG paths."""
    from ..master.store import read_extrapolation, read_results
    path = Path(path)
    meta, series, wear = read_results(path)
    out_dir = Path(out_dir or path.parent)
    stem = out_dir / path.stem
    title = run_title(meta, path.stem)
    made = []
    wear["profile"] = float(meta.get("extent", 0) or 0) > 0
    wear["extent"] = float(meta.get("extent", 0) or 0)
    clearance = float(meta.get("clearance", 0) or 0)
    if "ex" in series and "ey" in series:
        # the unworn clearance circle (wear opens it: the journal may cross it)
        c = clearance or float(np.max(np.hypot(series["ex"], series["ey"])))
        made.append(orbit(series, c, Path(f"{stem}_orbit"), f"{title}: journal-centre orbit"))
    elif "x" in series and "y" in series:          # a rotor: x, y relative to the stator centre
        c = clearance or float(np.max(np.hypot(series["x"], series["y"])))
        made.append(orbit(series, c, Path(f"{stem}_orbit"), f"{title}: rub-node orbit in the stator",
                          names=("x", "y"), what="rub node (from stator centre)"))
    if wear["profile"]:
        wear["pitch"] = _pitch_position(series)
    if len(wear.get("cycles", [])) > 1:
        made.append(wear_map(wear, Path(f"{stem}_wearmap"), f"{title}: worn depth"))
        made.append(profiles_at(wear, Path(f"{stem}_profiles"), f"{title}: wear after N cycles"))
        x = read_extrapolation(path)
        if x.get("attrs", {}).get("mode") == "adaptive" and len(x.get("factor", [])):
            made.append(extrapolation_history(x, Path(f"{stem}_extrapolation")))
    if wear["profile"]:
        made.append(final_profile(wear, Path(f"{stem}_final"), f"{title}: final worn depth"))
    else:
        made.append(wear_polar(wear, Path(f"{stem}_polar"), f"{title}: final worn depth"))
    return made
