"""Time-series plots of FMU results (structured numpy arrays as returned by FMPy)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence


def _plt():
    """pyplot on the Agg backend with the project's figure style (:mod:`.style`)."""
    from .style import plt
    return plt()


def save(fig: Any, path: str | Path) -> None:
    """Save atomically (temp file + rename): no half-written figure is left behind."""
    from ..atomic import atomic_path
    path = Path(path)
    with atomic_path(path, suffix=path.suffix) as tmp:
        fig.savefig(tmp, dpi=130, bbox_inches="tight", format=path.suffix.lstrip("."))


def plot_result(res: Any, path: str | Path, names: Sequence[str] | None = None, title: str = "") -> str | Path:
    """Stacked time series of ``names`` (default: the first six) from a structured result
    array ``res`` with a ``time`` field (FMPy's ``simulate_fmu`` output), saved to ``path``."""
    plt = _plt()
    names = names or [n for n in res.dtype.names if n != "time"][:6]
    fig, axes = plt.subplots(len(names), 1, sharex=True, figsize=(7, 1.8 * len(names) + 0.6), squeeze=False)
    for ax, n in zip(axes[:, 0], names):
        ax.plot(res["time"], res[n], lw=1)
        ax.set_ylabel(n)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time [s]")
    if title:
        axes[0, 0].set_title(title)
    save(fig, path)
    plt.close(fig)
    return path
