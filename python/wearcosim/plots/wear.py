"""Figures of wear runs, in the style of :mod:`wearcosim.plots.style` (journal column, PDF +
300-dpi PNG): the contact orbit inside the clearance (coloured by time, so start-up and steady
state are told apart; the unworn clearance circle drawn on top of it, dashed black on white so
that it stays visible where the journal runs along the wall), the wear map over sector and
real cycles (colour bar; one cell per sector and per interval between two recorded cycle
counts, its edges at those counts, coloured by the depth at the interval's end), profiles
after a set of real cycle counts (the final one always included; around a bearing the curve
is closed over 0-360 deg), the final profile around the bearing (polar; 0 deg on the +x axis,
angles counter-clockwise; the radial scale along the ray that keeps its labels off the curve)
or along a gear flank (start of active profile, pitch point and tip marked), the adaptive
extrapolation history, and comparisons between runs (naturally sorted, labelled by what
differs between them: ω in rad/s, c in mm, dry or lubricated; a log depth axis when the
peaks differ by more than a factor 30; small multiples for more than four orbits).  Titles
and labels typeset symbols and units (:func:`wearcosim.plots.style.pretty`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .style import COLUMN, DOUBLE, LINESTYLES, OKABE_ITO, figure, grouped, natural_key, pi_multiple, plt, pretty, \
    run_title, save, um

#: label of the depth axes
DEPTH = "worn depth $h$ (µm)"
#: the orbit's colour map: viridis without its palest tenth (pale yellow on white)
ORBIT_CMAP_RANGE = (0.0, 0.85)
#: z-orders: the orbit, then the clearance circle over it, then the start marker
Z_ORBIT, Z_CIRCLE, Z_MARK = 3, 8, 9


def _wrap(title: str, width: int = 48) -> str:
    import re
    import textwrap
    title = pretty(title)
    # no line break inside "ω = 4π rad/s" or "c = 0.25 mm": no-break spaces there
    title = re.sub(r" = ", "\u00a0=\u00a0", title or "")
    title = re.sub(r"(\d[\dπ.]*) (rad/s|mm|µm|N·m|s)\b", "\\1\u00a0\\2", title)
    return "\n".join(textwrap.wrap(title, width)) if title else title


def _circular(wear: dict) -> bool:
    return not wear.get("profile")


def _x(wear: dict):
    """Sector positions for the abscissa: degrees on a circular surface, mm along a profile."""
    if wear.get("profile"):
        return np.asarray(wear["sector_centres"]) * 1e3, "position $s$ along the profile (mm)"
    return np.degrees(wear["sector_centres"]), "angle $\\theta$ from +$x$, counter-clockwise (°)"


def _closed(wear: dict, depth_m) -> tuple[np.ndarray, np.ndarray]:
    """(abscissa, depth in µm) of one profile; around a bearing closed over 0-360 deg: the
    depth at 0 and at 360 deg is interpolated between the last and the first sector, so the
    curve has the same value at both ends and no cut at the seam."""
    x, _ = _x(wear)
    d = um(depth_m)
    if not _circular(wear) or len(x) < 2:
        return x, d
    x0, x1 = x[0], x[-1] - 360.0                       # the first sector's centre, the last one's below 0
    d0 = d[-1] + (d[0] - d[-1]) * (0.0 - x1) / (x0 - x1)
    return np.r_[0.0, x, 360.0], np.r_[d0, d, d0]


def _angle_axis(ax, wear: dict):
    if _circular(wear):
        ax.set_xlim(0, 360)
        ax.set_xticks(np.arange(0, 361, 60))


def _circle(ax, radius_mm, centre_mm=(0.0, 0.0), label="unworn clearance circle"):
    """The unworn clearance circle on top of the orbit (z-order above it): dashed black with
    white gaps, so that it stays visible where the journal runs along the wall."""
    ph = np.linspace(0, 2 * np.pi, 400)
    ax.plot(centre_mm[0] + radius_mm * np.cos(ph), centre_mm[1] + radius_mm * np.sin(ph), color="k", lw=0.7,
            ls=(0, (3, 2)), gapcolor="white", zorder=Z_CIRCLE, label=label)


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


def _orbit_cmap():
    from matplotlib.colors import ListedColormap
    return ListedColormap(plt().get_cmap("viridis")(np.linspace(*ORBIT_CMAP_RANGE, 256)), name="viridis_dark")


def _time_line(ax, x, y, t, cmap=None):
    """The path (x, y) coloured by time t, not drawn across gaps in t; returns the collection
    (for a colour bar)."""
    from matplotlib.collections import LineCollection
    pts = np.column_stack([x, y]).reshape(-1, 1, 2)
    seg = np.concatenate([pts[:-1], pts[1:]], axis=1)
    keep = ~_gaps(t) if len(t) == len(x) else np.ones(len(seg), dtype=bool)
    lc = LineCollection(seg[keep], cmap=cmap or _orbit_cmap(), linewidths=1.0, zorder=Z_ORBIT)
    lc.set_array(np.asarray(t)[:-1][keep])
    ax.add_collection(lc)
    ax.plot([x[0]], [y[0]], "o", ms=3, color=OKABE_ITO[1], mec="white", mew=0.4, zorder=Z_MARK, label="start")
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
    cb.set_label("time $t$ (s)" if "time" in series else "sample")
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlabel(f"{what}: $x$ (mm)")
    ax.set_ylabel(f"{what}: $y$ (mm)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=6)
    ax.set_title(_wrap(title or f"{what} orbit"))
    return save(fig, base)


def _grouped_formatter():
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(lambda v, _: grouped(v) if abs(v - round(v)) < 1e-9 else f"{v:g}")


def sector_edges(wear: dict[str, Any]) -> np.ndarray:
    """The sectors' edges on the abscissa of :func:`_x`: 0 .. 360 deg around a bearing, the
    midpoints between the centres (and half a sector beyond the end ones) along a profile."""
    from .style import edges
    pos, _ = _x(wear)
    if _circular(wear):
        return edges(pos, 0.0, 360.0) if len(pos) > 1 else np.array([0.0, 360.0])
    return edges(pos)


def wear_map(wear: dict[str, Any], base: str | Path, title: str = "") -> Path:
    """Worn depth (µm, colour bar) over sector position and real cycles: one cell per sector
    and per interval between two recorded cycle counts (its lower and upper edges at those
    counts), coloured by the depth at the interval's end; the first recorded profile (before
    any wear, at 0 cycles) is the lower edge of the first row."""
    fig, ax = figure(COLUMN, 0.75)
    _, xlabel = _x(wear)
    cyc = np.asarray(wear["cycles"], dtype=float)
    D = um(wear["depth"])
    m = ax.pcolormesh(sector_edges(wear), cyc, D[1:], shading="flat", cmap="cividis_r", vmin=0)
    cb = fig.colorbar(m, ax=ax, pad=0.02)
    cb.set_label(DEPTH)
    ax.set_ylim(cyc[0], cyc[-1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("real cycles $N$")
    ax.yaxis.set_major_formatter(_grouped_formatter())
    _angle_axis(ax, wear)
    ax.grid(False)
    ax.set_title(_wrap(title or "Wear over sector and cycles") + "\n(a row: $h$ after the $N$ at its upper edge)")
    return save(fig, base)


def profiles_at(wear: dict[str, Any], base: str | Path, title: str = "", n: int = 4) -> Path:
    """Profiles after about 1/n, 2/n, ... of the run's real cycles, the final one always
    included, labelled with real cycles (and the simulated cycles they took)."""
    fig, ax = figure(COLUMN, 0.8)
    rc = np.asarray(wear["cycles"], dtype=float)
    sim = np.asarray(wear["simulated_cycles"])
    _, xlabel = _x(wear)
    picks = sorted({int(np.argmin(np.abs(rc - f * rc[-1]))) for f in np.linspace(1 / n, 1, n)} | {len(rc) - 1})
    picks = [k for k in picks if k > 0] or [len(rc) - 1]
    cmap = plt().get_cmap("viridis")
    for j, k in enumerate(picks):
        last = k == len(rc) - 1
        x, d = _closed(wear, wear["depth"][k])
        ax.plot(x, d, color="k" if last else cmap(0.1 + 0.65 * j / max(1, len(picks) - 1)),
                ls="-" if last else LINESTYLES[1 + j % (len(LINESTYLES) - 1)], lw=1.3 if last else 0.9,
                label=f"$N$ = {grouped(rc[k])}" + (" (final)" if last else "") + f"; {int(sim[k])} simulated")
    if wear.get("profile"):
        _flank_marks(ax, wear)
    _angle_axis(ax, wear)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(DEPTH)
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, title="after $N$ real cycles",
              title_fontsize=6)
    ax.set_title(_wrap(title or "Wear profile after N cycles"))
    return save(fig, base)


def _box_distance(boxes, pts):
    """Least distance (display units) from the points ``pts`` (n x 2) to the boxes (m x 4:
    x0, y0, x1, y1); 0 where a point is inside a box."""
    b = np.asarray(boxes, float)[:, None, :]
    dx = np.maximum(np.maximum(b[..., 0] - pts[None, :, 0], pts[None, :, 0] - b[..., 2]), 0)
    dy = np.maximum(np.maximum(b[..., 1] - pts[None, :, 1], pts[None, :, 1] - b[..., 3]), 0)
    return float(np.min(np.hypot(dx, dy))) if b.size and len(pts) else np.inf


def _place_rlabels(ax, th, d, avoid=()):
    """Put the radial tick labels of the polar ``ax`` on the ray (every 2.5 deg) whose label
    boxes lie farthest from the closed curve (th, d) and from the boxes of the artists in
    ``avoid`` (the peak's label); returns (angle in deg, that distance in points).  The labels
    are anchored at their lower left corner on the ray (matplotlib's polar r labels)."""
    fig = ax.figure
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    ticks = [(t.get_position()[1], t.get_window_extent(r)) for t in ax.get_yticklabels()
             if t.get_visible() and t.get_text() and 0 < t.get_position()[1] <= ax.get_ylim()[1]]
    tt = np.linspace(th[0], th[-1], 1440)
    curve = ax.transData.transform(np.column_stack([tt, np.interp(tt, th, d)]))
    others = np.array([[b.x0, b.y0, b.x1, b.y1] for b in (a.get_window_extent(r) for a in avoid)]).reshape(-1, 4)
    pad = 1.0 * fig.dpi / 72
    best = (-np.inf, 0.0)
    for phi in np.arange(0.0, 360.0, 2.5):
        boxes = []
        for rad, ext in ticks:
            x0, y0 = ax.transData.transform((np.radians(phi), rad))
            boxes.append((x0 - pad, y0 - pad, x0 + ext.width + pad, y0 + ext.height + pad))
        dist = _box_distance(boxes, curve) if boxes else np.inf
        for o in others:                       # clear of the peak's label: its corners and centre
            corners = np.array([[o[0], o[1]], [o[2], o[3]], [o[0], o[3]], [o[2], o[1]], [(o[0] + o[2]) / 2, (o[1] + o[3]) / 2]])
            dist = min(dist, _box_distance(boxes, corners))
        if dist > best[0] + 1e-9:
            best = (dist, phi)
    ax.set_rlabel_position(best[1])
    return best[1], best[0] * 72 / fig.dpi


def wear_polar(wear: dict[str, Any], base: str | Path, title: str = "", label: str | None = None) -> Path:
    """Final worn depth around the bearing (polar, µm); 0 deg on +x, counter-clockwise; the
    curve closed over 360 deg; the radial labels along the ray that keeps them farthest from
    the curve (and from the peak's label), on a white ground."""
    p = plt()
    fig = p.figure(figsize=(COLUMN, COLUMN), constrained_layout=True)
    ax = fig.add_subplot(111, projection="polar")
    ax.set_theta_zero_location("E")
    ax.set_theta_direction(1)
    th = np.append(wear["sector_centres"], wear["sector_centres"][0] + 2 * np.pi)
    d = um(np.append(wear["final"], wear["final"][0]))
    ax.plot(th, d, lw=1.2, color=OKABE_ITO[0], label=label, zorder=3)
    ax.fill(th, d, alpha=0.2, color=OKABE_ITO[0], lw=0, zorder=2)
    k = int(np.argmax(wear["final"]))
    peak_deg = float(np.degrees(wear["sector_centres"][k]))
    ax.plot([wear["sector_centres"][k]], [d[k]], "v", color=OKABE_ITO[1], ms=4, zorder=4)
    peak = ax.annotate(f"peak {d[k]:.3g} µm at {peak_deg:.0f}°", (wear["sector_centres"][k], d[k]),
                textcoords="offset points", xytext=(4, 6), fontsize=6, color=OKABE_ITO[1])
    from matplotlib.ticker import MaxNLocator
    rmax = float(np.max(d)) * 1.08 if np.max(d) > 0 else 1.0
    ax.set_ylim(0, rmax)
    ax.yaxis.set_major_locator(MaxNLocator(4))          # few rings: room between them for the labels
    ax.tick_params(labelsize=6)
    _place_rlabels(ax, th, d, avoid=(peak,))
    ax.set_title(_wrap(title or "Final worn depth") + "\n(worn depth $h$ in µm; $\\theta$ = 0° on +$x$, "
                 "counter-clockwise)", fontsize=7)
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
    ax.set_ylabel(DEPTH)
    ax.set_title(_wrap(title or "Final worn depth along the flank"))
    return save(fig, base)


def _style(j: int) -> dict:
    return {"color": OKABE_ITO[j % len(OKABE_ITO)], "ls": LINESTYLES[j % len(LINESTYLES)]}


def run_labels(metas: dict[str, dict[str, Any]]) -> tuple[dict[str, str], str]:
    """Legend labels of runs by what differs between them -- the speed ω (rad/s, as a
    multiple of π), the radial clearance c (mm), dry or lubricated (with its wear coefficient
    k), the description otherwise -- and the conditions they share (for the title).  The
    file names of the runs are never used."""
    def props(m):
        sc = m.get("scenario") if isinstance(m.get("scenario"), dict) else {}
        wear = sc.get("wear", {}) if isinstance(sc.get("wear"), dict) else {}
        out = {}
        om = wear.get("omega")
        if om is not None:
            out["omega"] = (round(float(om), 9), f"$\\omega$ = {pi_multiple(float(om))} rad/s")
        c = m.get("clearance")
        if c is not None and float(c) > 0:
            out["c"] = (round(float(c), 12), f"$c$ = {float(c) * 1e3:.3g} mm")
        text = " ".join(str(v) for v in (sc.get("description", ""), sc.get("name", ""),
                                          (sc.get("fmu") or {}).get("model", "") if isinstance(sc.get("fmu"), dict) else ""))
        lub = "lubricated" if "lubricated" in text.lower() else "dry" if "dry" in text.lower() else None
        k = m.get("k", wear.get("k"))
        if lub:
            out["lub"] = (lub, lub + (f" ($k$ = {_sci(float(k))})" if k is not None else ""))
        elif k is not None:
            out["k"] = (float(k), f"$k$ = {_sci(float(k))}")
        return out
    P = {n: props(m) for n, m in metas.items()}
    keys = [k for k in ("omega", "c", "lub", "k") if all(k in p for p in P.values())]
    varying = [k for k in keys if len({p[k][0] for p in P.values()}) > 1]
    common = [k for k in keys if k not in varying and k != "lub"]
    labels = {}
    for n, p in P.items():
        labels[n] = ", ".join(p[k][1] for k in varying) if varying else pretty(run_title(metas[n], n))
    shared = ", ".join(next(iter(P.values()))[k][1] for k in common) if P else ""
    return labels, shared


def _sci(v: float) -> str:
    """1e-4 -> 10⁻⁴, 2.5e-6 -> 2.5 × 10⁻⁶ (mathtext)."""
    if v == 0 or not np.isfinite(v):
        return f"{v:g}"
    e = int(np.floor(np.log10(abs(v))))
    m = v / 10 ** e
    return (f"$10^{{{e}}}$" if abs(m - 1) < 1e-9 else f"${m:.3g} \\times 10^{{{e}}}$") if abs(e) > 2 else f"{v:g}"


def compare_profiles(runs: dict[str, dict[str, Any]], base: str | Path, title: str = "",
                     labels: dict[str, str] | None = None, log: bool | None = None) -> Path:
    """Final profiles of several runs on one axis (natural order: 4, 8, 16, 32), each
    labelled by ``labels`` (physical: ω, c, lubrication; the run's name if not given),
    closed over 0-360 deg around a bearing.  ``log``: a logarithmic depth axis (default:
    when the largest peak exceeds the smallest by more than 30 times, so that a lubricated
    run is not flattened to zero beside a dry one)."""
    fig, ax = figure(COLUMN, 0.8)
    xlabel = "angle (°)"
    names = sorted(runs, key=natural_key)
    peaks = np.array([float(np.max(runs[n]["final"])) for n in names])
    if log is None:
        log = bool(len(names) > 1 and np.all(peaks > 0) and peaks.max() / peaks.min() > 30)
    lo = np.inf
    for j, name in enumerate(names):
        wear = runs[name]
        x, d = _closed(wear, wear["final"])
        _, xlabel = _x(wear)
        ax.plot(x, d, lw=1.1, label=(labels or {}).get(name, name), **_style(j))
        if np.any(d > 0):
            lo = min(lo, float(np.min(d[d > 0])))
    if log:
        ax.set_yscale("log")
        if np.isfinite(lo):
            ax.set_ylim(bottom=lo / 2)
    else:
        ax.set_ylim(bottom=0)
    _angle_axis(ax, next(iter(runs.values())) if runs else {})
    ax.set_xlabel(xlabel)
    ax.set_ylabel(DEPTH + (" (log scale)" if log else ""))
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    ax.set_title(_wrap(title))
    return save(fig, base)


def compare_orbits(runs: dict[str, dict[str, Any]], clearance: float, base: str | Path, title: str = "",
                   labels: dict[str, str] | None = None) -> Path:
    """Orbits of several runs (mm) inside the unworn clearance circle (drawn on top): overlaid
    for up to four runs, else one small panel per run (natural order), all on the same scale;
    each run labelled by ``labels`` (physical; its name if not given)."""
    names = sorted(runs, key=natural_key)
    labels = labels or {}
    if len(names) <= 4:
        fig, ax = figure(COLUMN, 0.95)
        for j, name in enumerate(names):
            s = runs[name]
            x, y = um(s["ex"]) / 1e3, um(s["ey"]) / 1e3
            if "time" in s:
                x, y = _broken(s["time"], x, y)
            ax.plot(x, y, lw=0.6, zorder=Z_ORBIT, label=labels.get(name, name), **_style(j))
        _circle(ax, clearance * 1e3)
        ax.set_aspect("equal")
        ax.set_xlabel("journal centre: $x$ (mm)")
        ax.set_ylabel("journal centre: $y$ (mm)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=6)
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
        ax.set_title(labels.get(name, name), fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    fig.supxlabel("journal centre: $x$ (mm)", fontsize=8)
    fig.supylabel("journal centre: $y$ (mm)", fontsize=8)
    fig.suptitle(_wrap(title + " (colour: time from start-up to the end of each run)", 100), fontsize=8)
    return save(fig, base)


def extrapolation_history(x: dict[str, Any], base: str | Path, title: str = "") -> Path:
    """Adaptive extrapolation: the factor of every judged jump against the real cycles, and
    its normalised error estimate (accepted: dots; taken back: crosses; 1 = the tolerance)."""
    p = plt()
    fig, (a, b) = p.subplots(2, 1, figsize=(COLUMN, COLUMN * 0.95), sharex=True, constrained_layout=True)
    acc = np.asarray(x["accepted"]) == 1
    rc, f, e = np.asarray(x["real_cycles"]), np.asarray(x["factor"]), np.asarray(x["error"])
    a.semilogy(rc[acc], f[acc], ".-", lw=0.8, ms=3, color=OKABE_ITO[0], label="accepted")
    if (~acc).any():
        a.semilogy(rc[~acc], f[~acc], "x", color=OKABE_ITO[1], ms=4, label="taken back")
    a.set_ylabel("real cycles per\nsimulated cycle")
    a.legend(fontsize=6)
    b.semilogy(rc[acc], np.maximum(e[acc], 1e-6), ".", ms=3, color=OKABE_ITO[0])
    if (~acc).any():
        b.semilogy(rc[~acc], e[~acc], "x", color=OKABE_ITO[1], ms=4)
    b.axhline(1.0, color="k", lw=0.8, ls="--")
    b.set_xlabel("real cycles $N$")
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
        made.append(profiles_at(wear, Path(f"{stem}_profiles"), f"{title}: wear after $N$ cycles"))
        x = read_extrapolation(path)
        if x.get("attrs", {}).get("mode") == "adaptive" and len(x.get("factor", [])):
            made.append(extrapolation_history(x, Path(f"{stem}_extrapolation")))
    if wear["profile"]:
        made.append(final_profile(wear, Path(f"{stem}_final"), f"{title}: final worn depth"))
    else:
        made.append(wear_polar(wear, Path(f"{stem}_polar"), f"{title}: final worn depth"))
    return made
