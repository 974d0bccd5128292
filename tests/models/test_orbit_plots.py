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
