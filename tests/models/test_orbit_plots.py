"""The orbit-plot script (cosim/plot_orbits_rumoca.py) writes a PNG for a case."""
import importlib.util

from wctest import ROOT


def test_orbit_plot_written(tmp_path):
    spec = importlib.util.spec_from_file_location("plot_orbits_rumoca", ROOT / "cosim" / "plot_orbits_rumoca.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--out", str(tmp_path), "HybridDrySpeed32pi"])
    png = tmp_path / "orbit_HybridDrySpeed32pi.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_orbit_lines_are_not_drawn_across_unrecorded_cycles():
    """run.record_every > 1 leaves gaps in the recorded time: the orbit's line stops at a gap
    instead of joining the two recorded cycles with a straight (unphysical) segment."""
    import numpy as np

    from wearcosim.plots.style import figure
    from wearcosim.plots.wear import _broken, _time_line
    t = np.r_[np.arange(0, 1, 0.01), np.arange(5, 6, 0.01)]
    x, y = np.cos(t), np.sin(t)
    fig, ax = figure()
    lc = _time_line(ax, x, y, t)
    assert len(lc.get_segments()) == len(t) - 2                       # the one across the gap is dropped
    bx, by = _broken(t, x, y)
    assert np.isnan(bx[100]) and np.isnan(by[100]) and len(bx) == len(t) + 1
