"""The composed examples (``cosim/systems/*.ssd``, issue "Component FMUs that compose",
acceptance): each monolithic example written as a system of component FMUs, run by the two
masters of :mod:`wearcosim.system.run`, against its monolithic FMU as the oracle.

1. Strong coupling (the container FMU: one solver over the components' Model-Exchange
   interfaces, contact events located) vs the monolithic FMU, both run by FMPy at the
   example's tolerance and output interval over a window: the contact force and the orbit (or
   the speeds of the gear pair) within 1e-3 of the signal's range, Cardona's mean mesh force
   within 0.5 %.  Windows: the dry mechanisms are chaotic (docs/components/joints_mechanisms.md:
   round-off grows to 1e-6 of the range after 1.0 ms in SliderCrankDry, 12 ms in
   DrySpeed32pi); Cardona: the whole 20 ms; the rotor: 0.3 s (first rub at 58 ms).
2. Swap: ``hybrid_lubricated_7pi.ssd`` is ``hybrid_dry_7pi.ssd`` with the joint's FMU
   RevoluteClearanceDry replaced by RevoluteClearanceLubricated (nothing else differs), and the
   swapped system reproduces Lubricated7pi's start-up (no solid contact: the film carries the
   load; peak joint force |F| over the first half drive period) within 5 %, while the dry one
   reproduces Dry7pi's first impact; the body FMU is not rebuilt (same file, same mtime, the
   same binary inside both containers).
3. libcosim (libcosimpy) runs the composed ``.ssd`` files with its fixed-step master and agrees
   with our Co-Simulation master configured like it (:data:`wearcosim.system.cosim.LIBCOSIM`)
   within 1e-6 of the range, on the lubricated slider-crank and on the rotor.
4. Every ``.ssd`` in cosim/systems validates, and regenerating it from the table of
   :mod:`wearcosim.system.examples` gives the committed bytes.

Co-Simulation steps (item 3).  libcosim's master exchanges with order-0 hold and Jacobi, the
force element's output computed with the inputs held during the step: the body feels the joint
force one step late, which for a damper of coefficient c on a mass m is stable for h < m/c.

* Slider-crank, lubricated joint, h = 1 us over one crank revolution (12 ms).  The stiffest
  coupling is the squeeze film, c_sq = 12 pi mu L R^3/(c^3 (1 - eps^2)^1.5) (mu = 0.4 Pa s,
  L = 40 mm, R = 10 mm, c = 0.5 mm): 4.8e3 N s/m with the journal centred, 8.1e4 N s/m at the
  largest eccentricity of the revolution, eps = 0.92, acting on the rod's end (0.07 kg
  perpendicular to the rod, (J2 + m2 l^2/4)/l^2) and the slider (0.14 kg): m/c_sq from 15 us
  down to 0.9-1.7 us at eps = 0.92.  Measured: h = 2 us still follows the strong coupling (2-4 %
  of the force range), h = 4 us diverges, h = 10 us stops at 5 ms; h = 1 us: the test asserts it
  follows the strong coupling within 10 % of every range (measured ~2 % on F[1], 0.1 % orbit).
* Two-disk rotor with its rub stator, h = 10 us over 0.1 s (the first rub at 58 ms): the
  stiffest coupling is the penalty contact k_c = 2e7 N/m on disk 1 (2.71 kg): omega =
  sqrt(k_c/m) = 2.7e3 rad/s, omega*h = 0.027 (230 steps per contact period), contact damping
  c_c/m = 74 1/s; bearings and shaft are inside the rotor FMU.  Measured vs the strong coupling:
  orbit 0.2-1 %, normal force 5 % of the range (the force at the contact onset one step late).

Measured (FMU built by this tree, FMPy 0.3.x, libcosimpy; figures printed by each test, run with
``-rA`` or ``-s`` to see them):

* strong vs monolithic, max deviation / range: slider_crank_dry (0-1 ms), hybrid_dry_32pi
  (0-12 ms), cardona_case1 (20 ms), two_disk_rub (0-0.3 s): 0 (bit for bit) on every compared
  signal, mean forces equal; cardona_case2 with the backlash of case 2 (data.b_in = 0.001968):
  F, Fpitch 1.75e-7, speeds 1.6e-9, mean force 5e-10.
* swap: Dry7pi first impact Fn 324.0 N at 12.99 ms, Lubricated7pi peak |F| 2.995 N at
  75.4 ms (Fn = 0 throughout), composed = monolithic to the bit in both.
* libcosim vs our master (LIBCOSIM): slider-crank 7e-13 .. 2e-12, rotor 1e-14 .. 5e-13 of the
  range.
"""
from __future__ import annotations

import copy
import difflib
import hashlib
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu

from wctest import unzipped
from wearcosim.system import examples, ssp
from wearcosim.system.run import simulate
from wearcosim.system.validate import problems

SYSTEMS = examples.SYSTEMS


# ----------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module")
def component_fmus():
    """The component FMUs of every composed example, built into cosim/systems/fmus (the
    examples' own, git-ignored folder) when missing or older than the library."""
    for name in examples.EXAMPLES:
        examples.ensure_fmus(examples.system_of(name), log=print)
    return SYSTEMS / examples.FMU_FOLDER


def _system(name):
    """The committed .ssd of a composed example, read (its FMUs resolved beside it)."""
    return ssp.read_ssd(SYSTEMS / f"{name}.ssd")


def _monolithic(fmu, stop, step, tol, names):
    """The monolithic FMU by FMPy (Co-Simulation, its embedded solver) on the grid 0, step, ..."""
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=stop, output_interval=step, relative_tolerance=tol, output=sorted(set(names)))
    return np.asarray(r["time"]), {n: np.asarray(r[n], dtype=float) for n in r.dtype.names if n != "time"}


def _rel(a, ref):
    """max |a - ref| / range of ref (peak to peak; its largest magnitude when constant; 1 when 0)."""
    a, ref = np.asarray(a, dtype=float), np.asarray(ref, dtype=float)
    scale = float(np.ptp(ref)) or float(np.max(np.abs(ref))) or 1.0
    return float(np.max(np.abs(a - ref))) / scale


def _digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- 1. strong vs monolithic
# system: monolithic example, window [s], output interval [s], tolerance, {composed name: monolithic name}
MECH = {"body.ex": "ex", "body.ey": "ey", "joint.Fn": "Fn", "joint.F[1]": "joint.F[1]", "joint.F[2]": "joint.F[2]"}
GEAR = {"mesh.F": "F", "mesh.Fpitch": "Fpitch", "drive.wa": "wa", "drive.w2": "w2"}
ROTOR = {"stator.Fn": "Fn", "stator.x": "x", "stator.y": "y", "rotor.rNode[1]": "rotor.rNode[1]",
         "rotor.rNode[2]": "rotor.rNode[2]"}
STRONG = {
    "slider_crank_dry": ("WearCosim.Examples.SliderCrank.SliderCrankDry", 1.0e-3, 1e-5, 1e-9, MECH),
    "hybrid_dry_32pi": ("WearCosim.Examples.HybridMechanism.DrySpeed32pi", 0.012, 6.25e-5, 1e-9, MECH),
    "cardona_case1": ("WearCosim.Examples.Gears.CardonaCase1", 0.02, 2e-6, 1e-8, GEAR),
    "cardona_case2": ("WearCosim.Examples.Gears.CardonaCase2", 0.02, 2e-6, 1e-8, GEAR),
    "two_disk_rub": ("WearCosim.Examples.Rotor.TwoDiskRub", 0.3, 2e-4, 1e-7, ROTOR),
}
RANGE_TOL = 1e-3          # of the signal's range (the acceptance)
MEAN_TOL = 5e-3           # Cardona's mean mesh force


@pytest.mark.parametrize("name", [pytest.param(n, id=f"{n}-0-{w * 1e3:g}ms-tol{tol:g}")
                                  for n, (_, w, _, tol, _) in STRONG.items()])
def test_strong_coupling_reproduces_monolithic(name, component_fmus, build_example, tmp_path):
    """The container of the committed .ssd vs the monolithic example at the example's
    tolerance and output interval: every compared signal within 1e-3 of its range over the
    window; Cardona: the mean mesh force within 0.5 %."""
    model, window, step, tol, names = STRONG[name]
    assert examples.EXAMPLES[name]["monolithic"] == model
    t, v, info = simulate(_system(name), window, step, master="strong", tolerance=tol, record=list(names),
                          cache_dir=tmp_path, log=print)
    tm, m = _monolithic(build_example(model), window, step, tol, names.values())
    assert len(t) == len(tm) and np.allclose(t, tm, rtol=0, atol=1e-9 * step), "different output grids"
    dev = {a: _rel(v[a], m[b]) for a, b in names.items()}
    figures = ", ".join(f"{a} {d:.3g}" for a, d in dev.items())
    print(f"{name} [0, {window:g}] s, tol {tol:g}, {len(t)} points, container nRhs {info['nRhs']}, "
          f"nEvents {info['nEvents']}: max deviation / range: {figures}")
    if "mesh.F" in names:
        mean_c, mean_m = float(np.mean(v["mesh.F"])), float(np.mean(m["F"]))
        mean_dev = abs(mean_c - mean_m) / abs(mean_m)
        print(f"{name}: mean mesh force composed {mean_c:.9g} N, monolithic {mean_m:.9g} N, "
              f"relative difference {mean_dev:.3g}")
        assert mean_dev <= MEAN_TOL, f"{name}: mean mesh force {mean_c:.6g} N vs {mean_m:.6g} N ({mean_dev:.3g})"
    bad = {a: d for a, d in dev.items() if not d <= RANGE_TOL}
    assert not bad, f"{name}: deviation above {RANGE_TOL:g} of the range: {bad} (all: {figures})"


# ----------------------------------------------------------------------------- 2. swap
DRY, LUB = "hybrid_dry_7pi", "hybrid_lubricated_7pi"
SWAP_WINDOW = 0.15        # s: the first half drive period (T = 2/7 s) and a little
SWAP_STEP = 1e-5          # s: resolves the impacts (the examples' 0.286 ms misses most of them)
SWAP_TOL = 1e-9
PEAK_TOL = 0.05


def _flat(system) -> dict:
    """What a system is made of, as {key: value} (name and description left out)."""
    out = {}
    for c in system.components:
        out[("component", c.name, "source")] = c.source
        out[("component", c.name, "implementation")] = c.implementation
        for k, val in c.parameters.items():
            out[("component", c.name, "parameter", k)] = val
        for x in c.connectors:
            out[("component", c.name, "connector", x.name)] = (x.kind, x.type, x.unit)
    for x in system.connections:
        out[("connection", x.start_element, x.start_connector, x.end_element, x.end_connector)] = True
    for x in system.connectors:
        out[("system connector", x.name)] = (x.kind, x.type, x.unit)
    for k, val in system.parameters.items():
        out[("system parameter", k)] = val
    out[("experiment",)] = (system.start_time, system.stop_time)
    return out


def test_swap_files_differ_by_the_joint_fmu_only():
    """hybrid_lubricated_7pi.ssd = hybrid_dry_7pi.ssd with the joint's source swapped: parsed
    and compared item by item, and written back from the swapped dry system byte for byte."""
    dry, lub = _system(DRY), _system(LUB)
    a, b = _flat(dry), _flat(lub)
    diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    assert diff == {("component", "joint", "source"): ("fmus/RevoluteClearanceDry.fmu",
                                                       "fmus/RevoluteClearanceLubricated.fmu")}, diff
    assert dry.components[0].name == "body" and dry.components[0].source == "fmus/HybridMechanismBody.fmu"
    swapped = copy.deepcopy(dry)
    joint = next(c for c in swapped.components if c.name == "joint")
    joint.source = "fmus/RevoluteClearanceLubricated.fmu"
    swapped.name, swapped.ssd_name, swapped.description = lub.name, lub.ssd_name, lub.description
    assert ssp.to_xml(swapped) == (SYSTEMS / f"{LUB}.ssd").read_bytes()


def test_cardona_cases_differ_by_the_backlash():
    """docs/components/gears_rotor.md: case 2 = case 1 with the mesh's data.b_in = 0.001968 in
    (50 um backlash); nothing else differs (CardonaMesh's default data.b_in is 0, case 1)."""
    a, b = _flat(_system("cardona_case1")), _flat(_system("cardona_case2"))
    diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    assert diff == {("component", "mesh", "parameter", "data.b_in"): (0.0, 0.001968)}, diff


def _first_contact_peak(t, fn, contact):
    on = np.flatnonzero(np.asarray(contact) > 0.5)
    assert on.size, "no contact"
    i0 = on[0]
    off = np.flatnonzero(np.asarray(contact[i0:]) < 0.5)
    i1 = i0 + (off[0] if off.size else len(fn) - i0)
    k = i0 + int(np.argmax(fn[i0:i1]))
    return float(fn[k]), float(t[k]), float(t[i0])


def test_swap_dry_to_lubricated_joint(component_fmus, build_example, tmp_path):
    """Run the dry system, then the swapped (lubricated) one: each reproduces its monolithic
    example's start-up within 5 % (dry: the peak normal force of the first impact;
    lubricated: no solid contact, the peak joint force |F| over the window), and the body FMU
    is the same file before and after, with the same binary inside both containers."""
    body = component_fmus / "HybridMechanismBody.fmu"
    before = (body.stat().st_mtime_ns, _digest(body))
    rec = ["joint.Fn", "joint.F[1]", "joint.F[2]", "joint.inContact"]
    runs = {}
    for name in (DRY, LUB):
        t, v, info = simulate(_system(name), SWAP_WINDOW, SWAP_STEP, master="strong", tolerance=SWAP_TOL,
                              record=rec, cache_dir=tmp_path, log=print)
        runs[name] = (t, v, info)
    after = (body.stat().st_mtime_ns, _digest(body))
    assert after == before, "the body FMU was rebuilt or changed by the swap"

    # the same body binary in both containers (and the one in the body FMU)
    with zipfile.ZipFile(body) as z:
        so = [n for n in z.namelist() if n.startswith("binaries/") and n.endswith(".so")]
        assert so, "no Linux binary in the body FMU"
        body_bin = z.read(so[0])
    containers = [Path(runs[n][2]["fmu"]) for n in (DRY, LUB)]
    assert containers[0] != containers[1]
    for c in containers:
        with zipfile.ZipFile(c) as z:
            inside = [n for n in z.namelist() if n.startswith("resources/components/body/binaries/")]
            assert len(inside) == 1 and z.read(inside[0]) == body_bin, f"{c.name}: {inside}"

    tm, md = _monolithic(build_example("WearCosim.Examples.HybridMechanism.Dry7pi"), SWAP_WINDOW, SWAP_STEP,
                         SWAP_TOL, ["Fn", "inContact"])
    tl, ml = _monolithic(build_example("WearCosim.Examples.HybridMechanism.Lubricated7pi"), SWAP_WINDOW,
                         SWAP_STEP, SWAP_TOL, ["Fn", "Fjoint"])

    t, v, _ = runs[DRY]
    peak_c, at_c, on_c = _first_contact_peak(t, v["joint.Fn"], v["joint.inContact"])
    peak_m, at_m, on_m = _first_contact_peak(tm, md["Fn"], md["inContact"])
    dry_dev = abs(peak_c - peak_m) / peak_m
    print(f"dry 7pi, first impact (onset {on_c * 1e3:.2f} ms): peak Fn composed {peak_c:.6g} N at "
          f"{at_c * 1e3:.3f} ms, monolithic {peak_m:.6g} N at {at_m * 1e3:.3f} ms (onset {on_m * 1e3:.2f} ms), "
          f"relative difference {dry_dev:.3g}")

    t, v, info = runs[LUB]
    F = np.hypot(v["joint.F[1]"], v["joint.F[2]"])
    k, km = int(np.argmax(F)), int(np.argmax(ml["Fjoint"]))
    lub_dev = abs(F[k] - ml["Fjoint"][km]) / ml["Fjoint"][km]
    print(f"lubricated 7pi [0, {SWAP_WINDOW:g}] s: peak |F| composed {F[k]:.6g} N at {t[k] * 1e3:.2f} ms, "
          f"monolithic {ml['Fjoint'][km]:.6g} N at {tl[km] * 1e3:.2f} ms, relative difference {lub_dev:.3g}; "
          f"max |F| deviation / range over the window {_rel(F, ml['Fjoint']):.3g}; "
          f"peak Fn composed {np.max(v['joint.Fn']):g}, monolithic {np.max(ml['Fn']):g}")
    print(f"swap: peak joint force {peak_c:.4g} N (dry) -> {F[k]:.4g} N (lubricated); body FMU "
          f"{body.name} unchanged (mtime, sha256 {before[1][:12]})")
    assert dry_dev <= PEAK_TOL, f"dry first impact: {peak_c:.6g} N vs {peak_m:.6g} N ({dry_dev:.3g})"
    assert lub_dev <= PEAK_TOL, f"lubricated peak |F|: {F[k]:.6g} N vs {ml['Fjoint'][km]:.6g} N ({lub_dev:.3g})"
    assert abs(t[k] - tl[km]) <= 0.05 * SWAP_WINDOW
    # the film carries the load: no solid contact in either, unlike the dry joint
    assert np.max(v["joint.Fn"]) == 0 and np.max(ml["Fn"]) == 0
    assert F[k] < 0.05 * peak_c


# ----------------------------------------------------------------------------- 3. libcosim
# system, stop [s], communication step [s], recorded outputs, bound of CS vs strong (stability)
LIBCOSIM_CASES = {
    "slider_crank_lubricated": (0.012, 1e-6, ["body.ex", "body.ey", "joint.F[1]", "joint.F[2]"], 1e-9),
    "two_disk_rub": (0.1, 1e-5, ["stator.x", "stator.y", "stator.Fn", "rotor.rNode[1]", "rotor.rNode[2]"], 1e-7),
}
LIBCOSIM_TOL = 1e-6
STABLE_TOL = 0.1


@pytest.mark.parametrize("name", [pytest.param(n, id=f"{n}-h{h * 1e6:g}us-{stop * 1e3:g}ms")
                                  for n, (stop, h, _, _) in LIBCOSIM_CASES.items()])
def test_libcosim_runs_composed_ssd(name, component_fmus, tmp_path):
    """libcosim runs the composed .ssd (copied with its FMUs into tmp_path) and agrees with our
    Co-Simulation master configured like libcosim, same step, within 1e-6 of the range; the
    step follows the strong coupling (the CS coupling is stable at this step)."""
    from wearcosim.fmi import libcosim
    from wearcosim.system.cosim import LIBCOSIM, run_cosim
    if not libcosim.available():
        pytest.skip("libcosimpy is not installed (pip install libcosimpy)")
    assert libcosim.MASTER == LIBCOSIM
    stop, h, rec, strong_tol = LIBCOSIM_CASES[name]
    ssd = tmp_path / f"{name}.ssd"
    shutil.copy(SYSTEMS / ssd.name, ssd)
    for c in _system(name).components:
        (tmp_path / c.source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SYSTEMS / c.source, tmp_path / c.source)
    system = ssp.read_ssd(ssd)
    assert all(Path(c.path).parent.parent == tmp_path for c in system.components)

    lc = libcosim.run_ssp(ssd, stop, h, outputs=[tuple(n.split(".", 1)) for n in rec])
    ours = run_cosim(system, stop, h, record=rec, **LIBCOSIM)
    assert len(lc.time) == round(stop / h) and len(ours.time) == round(stop / h) + 1
    dev = libcosim.compare(lc, ours, rec)
    t, strong, _ = simulate(system, stop, h, master="strong", tolerance=strong_tol, record=rec,
                            cache_dir=tmp_path / "containers", log=print)
    assert np.allclose(t, ours.time, rtol=0, atol=1e-6 * h)
    stab = {n: _rel(ours[n], strong[n]) for n in rec}
    print(f"{name}, h = {h:g} s, [0, {stop:g}] s: libcosim vs our master (LIBCOSIM), max deviation / range: "
          + ", ".join(f"{n} {d:.3g}" for n, d in dev.items()))
    print(f"{name}: our CS master vs strong coupling (tol {strong_tol:g}), max deviation / range: "
          + ", ".join(f"{n} {d:.3g}" for n, d in stab.items()))
    assert all(np.all(np.isfinite(lc[n])) for n in rec)
    assert max(dev.values()) <= LIBCOSIM_TOL, dev
    assert max(stab.values()) <= STABLE_TOL, f"the CS coupling does not follow the strong one at h = {h:g}: {stab}"


# ----------------------------------------------------------------------------- 4. the files
def test_committed_systems_are_the_examples():
    assert sorted(p.stem for p in SYSTEMS.glob("*.ssd")) == sorted(examples.EXAMPLES)


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_committed_system_validates(name, component_fmus):
    system = _system(name)
    assert problems(system) == []
    assert [c.source for c in system.components] == [f"{examples.FMU_FOLDER}/{fmu}.fmu"
                                                      for _, fmu, _ in examples.EXAMPLES[name]["components"]]


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_generation_reproduces_committed_file(name, component_fmus):
    """What ``python -m wearcosim.system.examples`` writes (system_of + declare_connectors +
    to_xml) is the committed file, byte for byte."""
    new = ssp.to_xml(examples.declare_connectors(examples.system_of(name)))
    old = (SYSTEMS / f"{name}.ssd").read_bytes()
    if new != old:
        diff = "".join(list(difflib.unified_diff(old.decode().splitlines(True), new.decode().splitlines(True),
                                                 f"committed {name}.ssd", "generated"))[:60])
        pytest.fail(f"cosim/systems/{name}.ssd differs from what wearcosim.system.examples writes "
                    f"(run python -m wearcosim.system.examples):\n{diff}")
