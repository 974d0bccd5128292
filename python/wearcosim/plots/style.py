"""One figure style for every wearcosim figure: sized for a journal column (single 3.5 in,
double 7.2 in), 8-pt type, TrueType fonts embedded in the PDF, every figure written as
vector PDF and 300-dpi PNG, atomically.  Also the small helpers the figures share: natural
sorting of run names (4, 8, 16, 32 pi, not 16, 32, 4, 8) and a human title from a run's
metadata (its scenario description, not the file name)."""
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


def plt() -> Any:
    """matplotlib.pyplot on the Agg backend with the project's style applied."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    p.rcParams.update(RC)
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
