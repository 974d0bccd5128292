"""One figure style for every wearcosim figure: sized for a journal column (single 3.5 in,
double 7.2 in), 8-pt type, TrueType fonts embedded in the PDF, every figure written as
vector PDF and 300-dpi PNG, atomically; colours from the Okabe-Ito palette (told apart with
the common colour-vision deficiencies) and perceptually uniform maps (viridis, cividis).
Also the small helpers the figures share: natural sorting of run names (4, 8, 16, 32 pi, not
16, 32, 4, 8), a human title from a run's metadata (its scenario description, not the file
name) with its symbols and units typeset (:func:`pretty`: ``w = 32 pi rad/s`` becomes
ω = 32π rad/s, ``um`` µm, ``mm^3`` mm³), cell edges from cell centres, and labels placed
next to their points without covering points, lines or one another (:func:`place_labels`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure

COLUMN = 3.5          # in: one journal column
DOUBLE = 7.2          # in: the page width
DPI = 300

RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
      "legend.fontsize": 7, "legend.frameon": False, "lines.linewidth": 1.0, "axes.linewidth": 0.6,
      "xtick.major.width": 0.6, "ytick.major.width": 0.6, "figure.dpi": 100, "savefig.dpi": DPI,
      "savefig.bbox": "tight", "savefig.pad_inches": 0.02, "pdf.fonttype": 42, "ps.fonttype": 42,
      "axes.grid": True, "grid.alpha": 0.25, "grid.linewidth": 0.5, "image.cmap": "viridis"}

#: Okabe & Ito (2008), "Color universal design": blue, vermillion, bluish green, reddish
#: purple, orange, sky blue, black (yellow left out: too light on white)
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: line styles paired with the colours, so that the curves are told apart in grey too
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (6, 2)))


def plt() -> Any:
    """matplotlib.pyplot on the Agg backend with the project's style applied."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    from cycler import cycler
    p.rcParams.update(RC)
    p.rcParams["axes.prop_cycle"] = cycler(color=list(OKABE_ITO))
    return p


def figure(width: float = COLUMN, aspect: float = 0.75, **kw: Any) -> tuple[Any, Any]:
    """(fig, ax): ``width`` in inches (:data:`COLUMN`, :data:`DOUBLE`), height = aspect x width."""
    p = plt()
    return p.subplots(figsize=(width, width * aspect), constrained_layout=True, **kw)


def save(fig: Figure, base: str | Path) -> Path:
    """``base``.pdf (vector) and ``base``.png (300 dpi), each written atomically; returns the
    PNG's path.  The figure is closed."""
    from ..atomic import atomic_path
    base = Path(base)
    for ext in (".pdf", ".png"):
        path = base.with_suffix(ext)
        with atomic_path(path, suffix=ext) as tmp:
            fig.savefig(tmp, format=ext[1:], dpi=DPI)
    plt().close(fig)
    return base.with_suffix(".png")


def natural_key(s: str) -> list[tuple[int, float, str]]:
    """Sort key that orders embedded numbers by value: 'w4pi' < 'w8pi' < 'w16pi'."""
    return [(0, float(t), "") if t else (1, 0.0, u) for t, u in re.findall(r"(\d+(?:\.\d+)?)|(\D+)", str(s))]


def run_title(meta: dict[str, Any], stem: str) -> str:
    """A run's title: its scenario's description, else its name (never the file slug alone)."""
    sc = meta.get("scenario") if isinstance(meta.get("scenario"), dict) else {}
    return sc.get("description") or sc.get("name") or stem


def um(x: Any) -> np.ndarray:
    """Metres to micrometres."""
    import numpy as np
    return np.asarray(x, dtype=float) * 1e6


_PRETTY = [
    # w = 32 pi rad/s, w = 32*pi, omega = 4 pi: the drive speed
    (re.compile(r"\b(?:w|omega)\s*=\s*(\d+(?:\.\d+)?)\s*\*?\s*pi\b"), r"$\\omega$ = \1π"),
    (re.compile(r"\b(?:w|omega)\s*=\s*"), r"$\\omega$ = "),
    (re.compile(r"\b(\d+(?:\.\d+)?)\s*\*?\s*pi\b"), r"\1π"),
    (re.compile(r"\bpi\b"), "π"),
    (re.compile(r"\bc\s*=\s*(?=\d)"), r"$c$ = "),
    (re.compile(r"\bum\b"), "µm"),
    (re.compile(r"\b(mm|m)\^3\b"), r"\1³"),
    (re.compile(r"\b(mm|m|s)\^2\b"), r"\1²"),
    (re.compile(r"\bkg m²"), "kg·m²"),
    (re.compile(r"\bN m\b"), "N·m"),
    (re.compile(r"\[([^\]]*)\]"), r"(\1)"),
]


def pretty(text: str) -> str:
    r"""A label or title with its symbols and units typeset: ``w = 32 pi rad/s`` ->
    ``$\omega$ = 32π rad/s`` (mathtext), ``c = 0.25 mm`` -> ``$c$ = 0.25 mm``, ``um`` -> µm,
    ``mm^3`` -> mm³, ``m/s^2`` -> m/s², ``kg m^2`` -> kg·m², ``N m`` -> N·m, ``[unit]`` ->
    ``(unit)``.  Text already in mathtext (between $ signs) is left alone."""
    if not text:
        return text
    parts = re.split(r"(\$[^$]*\$)", text)
    for i in range(0, len(parts), 2):                  # the even parts are outside $...$
        for pat, rep in _PRETTY:
            parts[i] = pat.sub(rep, parts[i])
    return "".join(parts)


def pi_multiple(omega: float) -> str:
    """A speed in rad/s as a multiple of π where it is one (32π), else its value (3.1)."""
    n = omega / 3.141592653589793
    return f"{n:.3g}π" if abs(n - round(n, 2)) < 1e-6 * max(1.0, abs(n)) else f"{omega:.3g}"


def grouped(n: float) -> str:
    """An integer with thin-space thousands (100 000), as journals print it."""
    return f"{int(round(n)):,}".replace(",", "\u2009")


def edges(centres: Any, low: float | None = None, high: float | None = None) -> np.ndarray:
    """Cell edges around ``centres`` (midpoints between neighbours, the end cells as wide as
    their neighbour's half), the outer edges set to ``low`` / ``high`` when given."""
    import numpy as np
    c = np.asarray(centres, dtype=float)
    if c.size == 1:
        e = np.array([c[0] - 0.5, c[0] + 0.5])
    else:
        mid = (c[1:] + c[:-1]) / 2
        e = np.r_[c[0] - (mid[0] - c[0]), mid, c[-1] + (c[-1] - mid[-1])]
    if low is not None:
        e[0] = low
    if high is not None:
        e[-1] = high
    return e


def place_labels(ax: Any, x: Any, y: Any, texts: Any, *, fontsize: float = 6, obstacles: Any = None,
                 marker_px: float = 4.0, color: str = "0.15", obstacle_cost: float = 30.0,
                 draw: bool = True) -> list[Any]:
    """Label the points (x, y) of ``ax`` with ``texts`` so that no label covers a point,
    another label, or the obstacle points (display coordinates of lines to keep clear where
    possible, n x 2), and every label stays inside the axes: for each point (in the order
    given: most important first) the place of least cost among 16 directions at growing
    distances (a covered point or label excluded, a covered obstacle point costs
    ``obstacle_cost``, each point of distance 2); a label farther than 12 pt from its point
    gets a thin leader line that crosses no point and no label where another place allows.
    The figure is drawn once to fix its layout (``draw=False``: the caller has drawn it, and
    labels several axes after one drawing).  Returns the annotations."""
    import numpy as np
    fig = ax.figure
    if draw:
        fig.canvas.draw()
    r = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([np.asarray(x, float), np.asarray(y, float)]))
    obs = np.asarray(obstacles, float).reshape(-1, 2) if obstacles is not None and len(obstacles) else np.zeros((0, 2))
    box = ax.get_window_extent(r)
    scale = fig.dpi / 72.0
    placed: list[tuple[float, float, float, float]] = []
    made = []
    angles = np.radians(np.r_[45, 135, 225, 315, 0, 90, 180, 270, 22.5, 67.5, 112.5, 157.5, 202.5, 247.5, 292.5, 337.5])
    radii = (3, 6, 10, 15, 21, 28, 36, 46, 58)

    def bbox_at(p, w, h, ang, rad):
        dx, dy = rad * scale * np.cos(ang), rad * scale * np.sin(ang)
        cx = p[0] + dx + (w / 2 if dx > 1e-9 else -w / 2 if dx < -1e-9 else 0.0)
        cy = p[1] + dy + (h / 2 if dy > 1e-9 else -h / 2 if dy < -1e-9 else 0.0)
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)

    leaders: list[np.ndarray] = []                 # sample points of the leader lines drawn so far

    def leader(p, b):
        """Sample points of the leader from the point p to the nearest point of box b."""
        q = (min(max(p[0], b[0]), b[2]), min(max(p[1], b[1]), b[3]))
        t = np.linspace(0.15, 1.0, 12)[:, None]
        return p[None, :] + t * (np.asarray(q) - p)[None, :]

    def cost(b, own, rad):
        pad = 1.5 * scale
        x0, y0, x1, y1 = b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad
        c = 0.0
        if b[0] < box.x0 + 1 or b[2] > box.x1 - 1 or b[1] < box.y0 + 1 or b[3] > box.y1 - 1:
            c += 1e6
        m = marker_px * scale
        hit = (pts[:, 0] > x0 - m) & (pts[:, 0] < x1 + m) & (pts[:, 1] > y0 - m) & (pts[:, 1] < y1 + m)
        c += 1e4 * int(hit.sum())
        if len(obs):
            c += obstacle_cost * int(((obs[:, 0] > x0) & (obs[:, 0] < x1) & (obs[:, 1] > y0) & (obs[:, 1] < y1)).sum())
        for q in placed:
            ox = min(x1, q[2]) - max(x0, q[0])
            oy = min(y1, q[3]) - max(y0, q[1])
            if ox > 0 and oy > 0:
                c += 1e5 + ox * oy
        for ls in leaders:                            # over a leader drawn before
            c += 1e3 * int(((ls[:, 0] > x0) & (ls[:, 0] < x1) & (ls[:, 1] > y0) & (ls[:, 1] < y1)).sum())
        if rad > 12:                                  # this label's leader: across points or labels
            ls = leader(pts[own], b)
            others = np.delete(pts, own, axis=0)
            if len(others):
                dmin = np.min(np.hypot(ls[:, None, 0] - others[None, :, 0], ls[:, None, 1] - others[None, :, 1]), axis=1)
                c += 5e2 * int((dmin < m).sum())
            for q in placed:
                c += 5e2 * int(((ls[:, 0] > q[0]) & (ls[:, 0] < q[2]) & (ls[:, 1] > q[1]) & (ls[:, 1] < q[3])).sum())
        return c

    for k, (p, t) in enumerate(zip(pts, texts)):
        probe = ax.annotate(t, (0, 0), fontsize=fontsize)
        ext = probe.get_window_extent(r)
        w, h = ext.width, ext.height
        probe.remove()
        best = None
        for rad in radii:
            for ang in angles:
                b = bbox_at(p, w, h, ang, rad)
                c = cost(b, k, rad) + rad * 2.0
                if best is None or c < best[0]:
                    best = (c, ang, rad, b)
        _, ang, rad, b = best
        placed.append(b)
        if rad > 12:
            leaders.append(leader(p, b))
        dx, dy = rad * np.cos(ang), rad * np.sin(ang)
        ha = "left" if dx > 1e-9 else "right" if dx < -1e-9 else "center"
        va = "bottom" if dy > 1e-9 else "top" if dy < -1e-9 else "center"
        kw = {}
        if rad > 12:
            kw["arrowprops"] = dict(arrowstyle="-", lw=0.4, color="0.45", shrinkA=0.5, shrinkB=2.0)
        a = ax.annotate(t, ax.transData.inverted().transform(p), xytext=(dx, dy), textcoords="offset points",
                        fontsize=fontsize, ha=ha, va=va, color=color, annotation_clip=False, **kw)
        a.set_in_layout(False)
        made.append(a)
    return made


def visible_len(text: str) -> int:
    """About how many characters ``text`` shows once its mathtext is typeset."""
    t = re.sub(r"\\(mathrm|bar|max|cos|sin)\b", "", text)
    t = re.sub(r"\\[A-Za-z]+", "x", t)
    return len(re.sub(r"[${}_^]", "", t))


def wrap_math(text: str, width: int) -> str:
    """``text`` broken into lines of about ``width`` shown characters (mathtext counted as
    typeset; a $...$ group is never broken); existing line breaks kept."""
    out = []
    for para in text.split("\n"):
        line = ""
        for word in re.findall(r"\S*\$[^$]*\$\S*|\S+", para):
            if line and visible_len(line + " " + word) > width:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        out.append(line)
    return "\n".join(out)
