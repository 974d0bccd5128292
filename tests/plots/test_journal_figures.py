"""Issue 37 (part 7): every figure checked the way a journal's reviewer checks it, on the
matplotlib objects the figure functions build (no pixels, no simulation): units in proper form
(µm, mm³, ω in rad/s), no raw 'um', '^3', 'pi', 'w =' or '[unit]' text, legends by physical
quantity instead of file names, symbols defined, colour-blind-safe colours with a key, profiles
closed over 360 deg, labels off the points and curves, the clearance circle above the orbit,
and wear-map cells whose edges are the recorded cycle counts."""
from __future__ import annotations

import re

import numpy as np
import pytest
from matplotlib.collections import LineCollection, QuadMesh
from matplotlib.text import Text

from wctest import ROOT
from wearcosim.plots import style
from wearcosim.plots import wear as W

N_SECT = 36
CENTRES = (np.arange(N_SECT) + 0.5) * 2 * np.pi / N_SECT
#: raw text a journal would not print: outside mathtext, no ASCII stand-ins for units/symbols
BAD = re.compile(r"\bum\b|\^[23]|\bpi\b|\bw\s*=|\bomega\b|\[[^\]]*\]|mu\*|\bsigma\b|\bg_plane\b|\d e[+-]\d|\de[+-]\d")


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _outside_math(s: str) -> str:
    return re.sub(r"\$[^$]*\$", "", s)


def _no_raw_units(fig):
    for t in _texts(fig):
        assert not BAD.search(_outside_math(t)), t


@pytest.fixture
def keep(monkeypatch):
    """The figures the functions build, kept open instead of written."""
    figs = []

    def fake_save(fig, base):
        figs.append(fig)
        return base
    monkeypatch.setattr(W, "save", fake_save)
    monkeypatch.setattr(style, "save", fake_save)
    yield figs
    for f in figs:
        style.plt().close(f)


def _wear(cycles=(0, 2500, 5000, 7500, 10000), scale=1.0):
    cyc = np.asarray(cycles, float)
    shape = 1e-7 * (1.2 + np.cos(CENTRES - 0.3)) * scale
    depth = np.outer(cyc / cyc[-1], shape)
    return {"cycles": cyc, "simulated_cycles": np.arange(len(cyc)), "depth": depth, "final": depth[-1],
            "sector_centres": CENTRES}


def _meta(name, omega, c, desc, k=1e-4):
    return {"clearance": c, "k": k, "scenario": {"name": name, "description": desc, "wear": {"omega": omega, "k": k}}}


# ------------------------------------------------------------------------------------------ style


def test_pretty_typesets_symbols_and_units():
    assert style.pretty("Hybrid, c = 0.25 mm, w = 32 pi rad/s") == "Hybrid, $c$ = 0.25 mm, $\\omega$ = 32π rad/s"
    assert style.pretty("peak depth [um]") == "peak depth (µm)"
    assert style.pretty("worn volume [mm^3]") == "worn volume (mm³)"
    assert style.pretty("J31 [kg m^2]") == "J31 (kg·m²)"
    assert style.pretty("g [m/s^2]: $N$ um") == "g (m/s²): $N$ µm"       # mathtext left alone
    assert style.pi_multiple(100.53096491487338) == "32π" and style.pi_multiple(3.0) == "3"
    assert style.grouped(100000) == "100\u2009000"


def test_palette_is_okabe_ito():
    p = style.plt()
    assert [c.lower() for c in p.rcParams["axes.prop_cycle"].by_key()["color"]] == [c.lower() for c in style.OKABE_ITO]


# ------------------------------------------------------------------------------------------ single run


def test_orbit_clearance_circle_on_top_and_units(keep):
    t = np.linspace(0, 2, 800)
    c = 2.5e-4
    series = {"ex": c * np.cos(6 * t) * np.minimum(1, t), "ey": c * np.sin(6 * t) * np.minimum(1, t), "time": t}
    W.orbit(series, c, "x", "Hybrid mechanism, c = 0.25 mm, w = 32 pi rad/s: orbit")
    fig = keep[0]
    ax = fig.axes[0]
    lc = [a for a in ax.collections if isinstance(a, LineCollection)][0]
    circle = [ln for ln in ax.lines if ln.get_label() == "unworn clearance circle"][0]
    assert circle.get_zorder() > lc.get_zorder()
    r = np.hypot(circle.get_xdata(), circle.get_ydata())
    assert np.allclose(r, 0.25)                                              # in mm
    assert circle.get_color() in ("k", "black", "#000000") and circle.get_gapcolor() == "white"
    assert lc.get_cmap(). N > 0 and max(lc.get_cmap()(1.0)[:3]) < 0.9        # no pale yellow end
    assert "(mm)" in ax.get_xlabel() and "(mm)" in ax.get_ylabel()
    assert "$\\omega$ = 32π rad/s" in ax.get_title().replace("\u00a0", " ")
    _no_raw_units(fig)


def test_wear_map_cells_have_the_cycle_counts_as_edges(keep):
    wear = _wear(cycles=(0, 1250, 2500, 6250, 10000))                       # uneven, as adaptive runs are
    W.wear_map(wear, "x", "run: worn depth")
    ax = keep[0].axes[0]
    mesh = [m for m in ax.collections if isinstance(m, QuadMesh)][0]
    xy = mesh.get_coordinates()
    assert np.allclose(xy[:, 0, 1], wear["cycles"])                          # row edges = the recorded counts
    assert np.allclose(xy[0, :, 0], np.linspace(0, 360, N_SECT + 1))       # sector edges, 0 .. 360 deg
    assert np.allclose(np.asarray(mesh.get_array()).reshape(len(wear["cycles"]) - 1, N_SECT), wear["depth"][1:] * 1e6)
    assert ax.get_ylim() == (0.0, 10000.0)                                   # cycle 0 is an edge, not a cell centre
    cb = [a for a in keep[0].axes if a is not ax][0]
    assert "(µm)" in cb.get_ylabel()
    _no_raw_units(keep[0])


def test_profiles_closed_over_360_and_legend_in_cycles(keep):
    W.profiles_at(_wear(), "x", "run: wear after $N$ cycles")
    ax = keep[0].axes[0]
    for ln in ax.lines:
        x, y = ln.get_xdata(), ln.get_ydata()
        assert x[0] == 0 and x[-1] == 360 and y[0] == pytest.approx(y[-1])
    leg = [t.get_text() for t in ax.get_legend().get_texts()]
    assert leg[-1].startswith("$N$ = 10\u2009000 (final)") and all("$N$ = " in t for t in leg)
    assert ax.get_ylabel() == W.DEPTH and "(µm)" in W.DEPTH
    _no_raw_units(keep[0])


def test_polar_closed_and_its_radial_labels_off_the_curve(keep):
    wear = _wear()
    wear["final"] = wear["final"] * (1 + 3 * np.exp(-((CENTRES - 0.26) / 0.2) ** 2))   # a sharp peak at 15 deg
    W.wear_polar(wear, "x", "Hybrid, w = 4 pi rad/s: final worn depth")
    fig = keep[0]
    ax = fig.axes[0]
    ln = ax.lines[0]
    th, d = ln.get_xdata(), ln.get_ydata()
    assert d[0] == d[-1] and th[-1] - th[0] == pytest.approx(2 * np.pi)    # closed
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    tt = np.linspace(th[0], th[-1], 2000)
    curve = ax.transData.transform(np.column_stack([tt, np.interp(tt, th, d)]))
    labels = [t for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
    assert labels
    for t in labels:
        b = t.get_window_extent(r)
        inside = (curve[:, 0] > b.x0) & (curve[:, 0] < b.x1) & (curve[:, 1] > b.y0) & (curve[:, 1] < b.y1)
        assert not inside.any(), t.get_text()
    _no_raw_units(fig)


# ------------------------------------------------------------------------------------------ studies


def test_study_legends_are_physical_not_file_names(keep):
    metas = {f"speed_{n}pi": _meta(f"speed_{n}pi", n * np.pi, 2.5e-4, f"Hybrid, dry, c = 0.25 mm, w = {n} pi rad/s")
             for n in (4, 8, 16, 32)}
    labels, shared = W.run_labels(metas)
    assert labels["speed_4pi"] == "$\\omega$ = 4π rad/s" and labels["speed_32pi"] == "$\\omega$ = 32π rad/s"
    assert shared == "$c$ = 0.25 mm"
    runs = {n: _wear(scale=(k + 1) ** 2) for k, n in enumerate(metas)}
    W.compare_profiles(runs, "x", f"speed study ({shared}): final worn depth", labels=labels)
    ax = keep[0].axes[0]
    leg = [t.get_text() for t in ax.get_legend().get_texts()]
    assert leg == ["$\\omega$ = 4π rad/s", "$\\omega$ = 8π rad/s", "$\\omega$ = 16π rad/s", "$\\omega$ = 32π rad/s"]
    assert not any("speed_" in t for t in _texts(keep[0]))
    for ln in ax.lines:                                                      # closed over 360 deg
        assert ln.get_xdata()[0] == 0 and ln.get_xdata()[-1] == 360 and ln.get_ydata()[0] == ln.get_ydata()[-1]
    colours = {ln.get_color() for ln in ax.lines}
    assert colours <= set(style.OKABE_ITO) and len({str(ln.get_linestyle()) for ln in ax.lines}) == 4
    _no_raw_units(keep[0])

    cl = {f"clearance_0{n}": _meta("c", 30 * np.pi, n * 1e-5, f"Hybrid, dry, w = 30 pi rad/s, c = 0.{n} mm")
          for n in (15, 45)}
    labels, shared = W.run_labels(cl)
    assert labels == {"clearance_015": "$c$ = 0.15 mm", "clearance_045": "$c$ = 0.45 mm"}
    assert shared == "$\\omega$ = 30π rad/s"


def test_lubricated_run_not_flattened_beside_the_dry_one(keep):
    metas = {"lubrication_dry": _meta("lubrication_dry", 7 * np.pi, 2e-4, "Hybrid, c = 0.20 mm, w = 7 pi rad/s, dry"),
             "lubrication_lubricated": _meta("lubrication_lubricated", 7 * np.pi, 2e-4,
                                             "Hybrid, c = 0.20 mm, w = 7 pi rad/s, lubricated", k=1e-6)}
    labels, _ = W.run_labels(metas)
    assert labels["lubrication_dry"].startswith("dry (") and labels["lubrication_lubricated"].startswith("lubricated (")
    assert "10^{-6}" in labels["lubrication_lubricated"]
    W.compare_profiles({"lubrication_dry": _wear(), "lubrication_lubricated": _wear(scale=0.01)}, "x", "lub",
                       labels=labels)
    ax = keep[0].axes[0]
    assert ax.get_yscale() == "log"
    lo, hi = ax.get_ylim()
    lub = [ln for ln in ax.lines if ln.get_label().startswith("lubricated")][0].get_ydata()
    assert lo < lub.min() and np.log10(lub.max() / lo) > 0.2 * np.log10(hi / lo)   # the small curve spans the axis


def test_compare_orbits_circle_on_top_physical_legend(keep):
    t = np.linspace(0, 1, 300)
    runs = {n: {"ex": 2.5e-4 * np.cos(9 * t), "ey": 2.5e-4 * np.sin(9 * t), "time": t} for n in ("a_4pi", "a_8pi")}
    W.compare_orbits(runs, 2.5e-4, "x", "speed study", labels={"a_4pi": "$\\omega$ = 4π rad/s",
                                                               "a_8pi": "$\\omega$ = 8π rad/s"})
    ax = keep[0].axes[0]
    circle = [ln for ln in ax.lines if ln.get_label() == "unworn clearance circle"][0]
    assert all(circle.get_zorder() > ln.get_zorder() for ln in ax.lines if ln is not circle)
    assert [x.get_text() for x in ax.get_legend().get_texts()][:2] == ["$\\omega$ = 4π rad/s", "$\\omega$ = 8π rad/s"]
    _no_raw_units(keep[0])


# ------------------------------------------------------------------------------------------ sensitivity


@pytest.fixture(scope="module")
def sens():
    from wearcosim.studies import sensitivity as sa
    return sa, sa.load_spec(ROOT / "cosim" / "sensitivity" / "hybrid_dry.toml")


def _morris(sa, spec):
    names = spec.names
    rng = np.random.default_rng(3)
    idx = {}
    for o in sa.OUTPUTS:
        mu = np.r_[rng.uniform(0, 0.02, len(names) - 3), 0.1, 0.2, 0.3]       # a cluster at the origin
        idx[o] = {"mu_star": mu, "mu_star_conf": mu / 10, "mu": mu, "sigma": mu * rng.uniform(0.6, 1.4, len(names))}
    z = np.zeros((0, len(names)))
    return sa.MorrisResult(names, z, z, np.zeros((0, 5)), idx, np.linspace(2, 0, len(names)), 20, 4)


def test_morris_symbols_defined_units_and_labels_apart(keep, sens):
    sa, spec = sens
    sa.plot_morris(_morris(sa, spec), spec, None)
    fig = keep[0]
    _no_raw_units(fig)
    axes = fig.axes
    assert axes[0].get_xlabel() == "$\\mu^*$ (µm)" and axes[0].get_ylabel() == "$\\sigma$ (µm)"
    assert axes[4].get_xlabel() == "$\\mu^*$ (mm³)"
    foot = fig._supxlabel.get_text()
    for sym in ("$\\mu^*$", "$\\sigma$", "$m_{32}$", "$J_{31}$", "$g_\\mathrm{p}$", "$\\omega$", "$c$"):
        assert sym in foot, sym
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in axes[:5]:
        pts = ax.transData.transform(np.column_stack([c.get_offsets() for c in ax.collections][0]))
        boxes = [Text.get_window_extent(a, r) for a in ax.texts]          # the text, not its leader
        assert len(boxes) == len(spec.names)
        for i, b in enumerate(boxes):
            for b2 in boxes[i + 1:]:
                assert not b.overlaps(b2)
            assert not ((pts[:, 0] > b.x0) & (pts[:, 0] < b.x1) & (pts[:, 1] > b.y0) & (pts[:, 1] < b.y1)).any()
            assert ax.get_window_extent(r).contains(b.x0, b.y0) and ax.get_window_extent(r).contains(b.x1, b.y1)


def test_sobol_key_outside_the_bars(keep, sens):
    sa, spec = sens
    names = ["speed", "gPlane", "m33", "m32", "clearance"]
    d = {"S1": np.array([0.9, 0.05, 0, 0, 0.1]), "S1_conf": np.full(5, 0.1), "ST": np.array([1.0, 0.2, 0.05, 0.1, 0.2]),
         "ST_conf": np.full(5, 0.15)}
    s = sa.SobolResult(names, None, None, None, {o: d for o in sa.SOBOL_SHOWN}, 512, True)
    sa.plot_sobol(s, spec, None)
    fig = keep[0]
    _no_raw_units(fig)
    assert all(ax.get_legend() is None for ax in fig.axes) and len(fig.legends) == 1
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    key = fig.legends[0].get_window_extent(r)
    for ax in fig.axes:
        assert key.y0 >= ax.get_window_extent(r).y1 - 1                      # above every panel
        assert [t.get_text() for t in ax.get_xticklabels()] == ["$\\omega$", "$g_\\mathrm{p}$", "$m_{33}$", "$m_{32}$",
                                                                "$c$"]
    assert "$S_1$" in fig._supxlabel.get_text() and "$S_T$" in fig._supxlabel.get_text()


def test_trend_map_colour_blind_safe_with_a_key(keep, sens):
    sa, spec = sens
    g = 3
    holds = {t: np.eye(g, dtype=bool) for t in sa.TRENDS}
    tr = sa.TrendResult(["gPlane", "m32"], np.linspace(0, 9.81, g), np.linspace(0.4, 1.2, g), holds, {})
    sa.plot_trends(tr, spec, None)
    fig = keep[0]
    _no_raw_units(fig)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "$g_\\mathrm{p}$ (m/s²)" and ax.get_xlabel() == "$m_{32}$ (kg)"
    mesh = [m for m in ax.collections if isinstance(m, QuadMesh)][0]
    colours = {tuple(np.round(c[:3], 3)) for c in mesh.cmap(np.linspace(0, 1, 2))}
    from matplotlib.colors import to_rgb
    assert colours == {tuple(np.round(to_rgb(c), 3)) for c in sa.TREND_COLOURS.values()}
    assert not any(abs(r - 0.843) < 0.05 and g_ < 0.3 for r, g_, _ in colours)   # not the old red
    key = [t.get_text() for t in fig.legends[0].get_texts()]
    assert key == ["trend holds", "trend fails"]
    assert sum(1 for p in ax.patches if p.get_hatch()) == g * g - g           # fails hatched too


def test_sensitivity_figures_redrawn_from_the_docs_tables(keep, sens, tmp_path):
    """The figures in docs/sensitivity/ are drawn from its tables (replot: the Sobol samples
    are not kept there): every parameter of the study labelled, the 5 Sobol parameters, the
    4 trends."""
    import shutil
    sa, spec = sens
    for f in ("morris.csv", "sobol.csv", "trends.csv"):
        shutil.copy(ROOT / "docs" / "sensitivity" / f, tmp_path / f)
    made = sa.replot(spec, tmp_path)
    assert [p.name for p in made] == ["morris", "sobol", "trends"]
    morris, sobol, trends = keep
    assert all(len(ax.texts) == len(spec.names) for ax in morris.axes[:5])
    assert len(sobol.axes[0].get_xticklabels()) == 5 and len(trends.axes) == 4
    for f in keep:
        _no_raw_units(f)
