"""Issue 5: spatial gear pair (WearCosim.Gears) verified on seed 003's tests.

Measured figures (this machine, see the report of issue 5): case 1 RMS(F_spatial - F_eq27) =
0.14 % of the mean; case 2 peaks equal to 0.02 %; bevel-planetary ratios to 1e-8; static mesh
deflection F/k_m to 1e-12; Kubo peak 12 500 rpm vs 12 681 rpm analytic.
"""
from __future__ import annotations

import math

import fmpy
import numpy as np
import pytest

from wearcosim.studies import gears as G
from wearcosim.wear.archard import SectorSurface, archard_depth

EX = "WearCosim.Examples.Gears."
T_END = 0.02            # CardonaCase1/2 StopTime: ~20 ms from rest, 7 000 periods of the mesh mode
DT = 2e-6
B2_IN = 0.001968        # case 2 backlash [in]


def _sim(fmu, out, stop=T_END, dt=DT, **sv):
    r = fmpy.simulate_fmu(str(fmu), stop_time=stop, output_interval=dt, output=out, start_values=sv)
    return r["time"], {k: np.asarray(r[k], dtype=float) for k in out}


@pytest.fixture(scope="module")
def cardona(build_example):
    res = {}
    for case, b in ((1, 0.0), (2, B2_IN)):
        t, a = _sim(build_example(EX + f"CardonaCase{case}"), ["F", "Fpitch", "inContact", "wa"])
        t2, tor = _sim(build_example(EX + "CardonaTorsional"), ["F", "Fpitch", "inContact"], **{"data.b_in": b})
        ts, Fs, _, cs = G.cardona_torsional(b, t_end=T_END, dt=DT)
        assert np.allclose(t, t2) and np.allclose(t, ts)
        res[case] = dict(t=t, spatial=a, torsional=tor, scipy=dict(F=Fs, inContact=cs))
    return res


def test_cardona_mean_force(cardona):
    """Mean mesh force = T(Ib + I2)/(rho sum I) = 120.1 lbf at the pitch circle (spatial model).
    The shaft modes (damping ratio ~1e-4) keep oscillating with an amplitude of the order of the
    mean; over 5..20 ms their residual in the window mean is < 1 %: tolerance 1.5 %."""
    F0 = G.cardona_mean_pitch_force()
    assert abs(F0 / G.LBF - 120.09) < 0.01
    for case in (1, 2):
        d = cardona[case]
        sel = d["t"] >= 0.005
        mean = d["spatial"]["Fpitch"][sel].mean()
        assert abs(mean / F0 - 1) < 0.015, (case, mean / G.LBF)


def test_cardona_case1_spatial_vs_eq27(cardona):
    """Case 1: RMS of F_spatial - F_eq27 <= 2 % of the mean, against the torsional FMU and SciPy.
    (Measured 0.14 %: the spatial model's exact geometry differs from eq. 27 only at second order.)"""
    d = cardona[1]
    Fa = d["spatial"]["F"]
    mean = d["scipy"]["F"][d["t"] >= 0.005].mean()
    for ref in ("torsional", "scipy"):
        rms = np.sqrt(np.mean((Fa - d[ref]["F"]) ** 2))
        assert rms <= 0.02 * mean, (ref, rms / mean)
    # the two eq. 27 implementations agree far better than the 2 % criterion
    assert np.sqrt(np.mean((d["torsional"]["F"] - d["scipy"]["F"]) ** 2)) <= 1e-3 * mean


def test_cardona_case2_impacts_and_separations(cardona):
    """Case 2 (backlash 50 um): impact peak within 5 %; each contact loss (separation > 10 us) of
    one model has one in the other within one mesh period 2 pi/(z1 w_a); the first losses (before
    the rattling becomes sensitive to second-order geometry) within 10 us."""
    d = cardona[2]
    t = d["t"]
    wa = d["spatial"]["wa"]
    Fa, Fr = d["spatial"]["F"], d["scipy"]["F"]
    assert Fr.max() > 3 * G.cardona_mean_pitch_force()           # real impacts
    assert abs(Fa.max() / Fr.max() - 1) < 0.05
    assert abs(d["torsional"]["F"].max() / Fr.max() - 1) < 0.05
    la = G.contact_loss_intervals(t, d["spatial"]["inContact"], 10e-6)
    lr = G.contact_loss_intervals(t, d["scipy"]["inContact"], 10e-6)
    lt = G.contact_loss_intervals(t, d["torsional"]["inContact"], 10e-6)
    assert len(lr) >= 8
    for x, y in ((la, lr), (lr, la), (lt, lr)):
        for tl, _ in x:
            w = max(np.interp(tl, t, wa), 1e-9)
            Tm = 2 * math.pi / (25 * w)
            assert min(abs(tl - s) for s, _ in y) <= Tm, (tl, [s for s, _ in y])
    for (ta, _), (tr, _) in zip(la[:6], lr[:6]):
        assert abs(ta - tr) <= 10e-6, (ta, tr)


def test_static_mesh_deflection(build_example):
    """Zero backlash, static torque: mesh deflection = F/k_m and F = T/(rho_a cos(alpha) cos(beta))
    (helical pair, elastic bearings of wheel a)."""
    t, r = _sim(build_example(EX + "StaticMesh"), ["F", "ds", "FbyK", "Fexpected"], stop=0.01, dt=1e-5)
    assert r["ds"][-1] > 0
    assert abs(r["ds"][-1] / r["FbyK"][-1] - 1) < 1e-9
    assert abs(r["F"][-1] / r["Fexpected"][-1] - 1) < 1e-6


def test_bevel_planetary_kinematics(build_example):
    """Angular velocities follow the rigid-gear ratios within 0.1 % (bevel 1:1, carrier = bevel
    wheel, sun 1 + zR/zS, planets 1 - zR/zP); planet centre velocity = w_c e_z x r_P within 0.1 %."""
    out = ["w1", "w2", "wS", "wP[1]", "wP[2]", "wP[3]", "w1Rigid", "wSRigid", "wPRigid"]
    out += [f"{v}[{i},{j}]" for v in ("vP", "rP") for i in (1, 2, 3) for j in (1, 2)]
    t, r = _sim(build_example(EX + "BevelPlanetary"), out, stop=0.05, dt=1e-4)
    sel = t >= 0.01
    w2 = r["w2"][sel]
    assert np.all(np.abs(w2) > 10)        # accelerated from rest by 100 N.mm
    assert np.max(np.abs(r["w1"][sel] / r["w1Rigid"][sel] - 1)) < 1e-3
    assert np.max(np.abs(r["wS"][sel] / r["wSRigid"][sel] - 1)) < 1e-3
    assert abs(r["wSRigid"][-1] / r["w2"][-1] - 10 / 3) < 1e-12
    for i in (1, 2, 3):
        assert np.max(np.abs(r[f"wP[{i}]"][sel] / r["wPRigid"][sel] - 1)) < 1e-3
        v = np.c_[r[f"vP[{i},1]"], r[f"vP[{i},2]"]][sel]
        vr = np.c_[-r["w2"] * r[f"rP[{i},2]"], r["w2"] * r[f"rP[{i},1]"]][sel]
        err = np.linalg.norm(v - vr, axis=1) / np.linalg.norm(vr, axis=1)
        assert err.max() < 1e-3, (i, err.max())


def test_kubo_dynamic_factor_peaks(build_example):
    """Dynamic factor peaks where harmonics of the mesh frequency meet the analytic torsional
    natural frequency (within 10 %): with Table 2's chi = 0.3 the global maximum at f_m = f_n;
    with light damping (chi = 0.05) distinct peaks at f_m = f_n and 2 f_m = f_n. Coarse sweep."""
    fmu = build_example(EX + "KuboDynamicFactor")
    res = G.kubo_resonance_speeds_rpm()
    assert abs(G.kubo_natural_frequency() - 5284) < 5
    rpm = np.arange(9000, 16001, 500)
    kd = G.kubo_sweep(fmu, rpm)
    n_max = rpm[np.argmax(kd)]
    assert abs(n_max / res[1] - 1) < 0.10, (n_max, res[1])
    assert kd.max() > 1.5 and G.dynamic_factor(fmu, 1500) < 1.15   # quasi-static limit -> 1
    rpm2 = np.r_[np.arange(5000, 8001, 250), np.arange(11000, 14001, 250)]
    kd2 = G.kubo_sweep(fmu, rpm2, chi=0.05)
    peaks = G.local_maxima(rpm2, kd2)
    for h in (1, 2):
        assert any(abs(p / res[h] - 1) < 0.10 for p in peaks), (h, peaks, res[h])


def _wear_run(fmu, h, stop=0.012):
    sv = {f"wearDepth[{i + 1}]": float(v) for i, v in enumerate(h)}
    out = ["Fn", "sContact", "vSlip", "halfWidth", "te", "hC", "inContact", "profileLength", "delta"]
    return _sim(fmu, out, stop=stop, dt=2e-6, **sv)


def test_gear_wear_profile_interface(build_example):
    """Gear wear through the profile interface: Archard wear of one mesh cycle accumulated from
    the FMU outputs is ~0 at the pitch point (< 5 % of the peak) and largest away from it, at
    the ends of the active profile; a worn flank raises the transmission-error amplitude by
    about the wear depth range seen along the path of contact."""
    fmu = build_example(EX + "GearWear")
    md = fmpy.read_model_description(str(fmu))
    names = {v.name: v for v in md.modelVariables}
    n = sum(1 for k in names if k.startswith("wearDepth["))
    assert n == 20 and names["wearDepth[1]"].causality == "input"
    for k in ("Fn", "Ft", "delta", "sContact", "vSlip", "halfWidth", "inContact"):
        assert names[k].causality == "output", k
    t, r = _wear_run(fmu, np.zeros(n))
    Lp = r["profileLength"][-1]
    sel = t > 0.002
    s, v, Fn, bh = r["sContact"][sel], r["vSlip"][sel], r["Fn"][sel], r["halfWidth"][sel]
    assert s.min() >= 0 and s.max() <= Lp * (1 + 1e-9)
    assert np.all(Fn > 0)
    # Archard per sector (the master's law: semi-elliptic Hertz pressure over +-b, slip |v| dt)
    dt = np.gradient(t[sel])
    ds_ = Lp / n
    wear = archard_depth(SectorSurface(n, 0.02, extent=Lp), s, Fn, bh, v, dt, 1.0, 1.0)
    i_pitch = int(np.argmin(np.abs(v)))
    k_pitch = min(int(s[i_pitch] / ds_), n - 1)
    assert wear[k_pitch] < 0.05 * wear.max(), wear / wear.max()
    assert np.argmax(wear) in (0, 1, n - 2, n - 1)
    assert np.all(np.diff(wear[:k_pitch + 1]) < 0)            # falls towards the pitch point
    # worn flank: transmission-error amplitude grows with the wear
    h = 5e-6 * wear / wear.max()
    t2, r2 = _wear_run(fmu, h)
    sel2 = t2 > 0.002
    te0, te1 = np.ptp(r["te"][sel]), np.ptp(r2["te"][sel2])
    hrange = np.ptp(r2["hC"][sel2])
    assert te0 < 1e-9
    assert te1 > 0.8 * hrange and hrange > 3e-6, (te0, te1, hrange)


def test_gear_wear_through_the_master(tmp_path):
    """cosim/gear_wear.toml through the wear master (8 of its 40 cycles): the pinion flank wears
    least in the sector of the pitch point (sliding ~0) and most at the end of the active
    profile; the transmission-error amplitude per mesh cycle grows with every wear update
    (measured: 0 -> 0.24 -> ... -> 1.9 um; min/max sector depth 0.039/1.87 um)."""
    from wctest import ROOT
    from wearcosim.master import store
    from wearcosim.master.loop import WearMaster
    from wearcosim.master.scenario import from_dict, load
    sc = load(ROOT / "cosim" / "gear_wear.toml")
    d = dict(sc.raw)
    d["wear"] = dict(d["wear"], cycles=8)
    meta, series, w = store.read_results(WearMaster(from_dict(d, "gear"), tmp_path, progress=False).run())
    final = w["final"]
    n_cyc = sc.transient_cycles + 8
    per = len(series["time"]) // n_cyc
    s = np.asarray(series["sContact"]).reshape(n_cyc, per)
    v = np.asarray(series["vSlip"]).reshape(n_cyc, per)
    te = np.asarray(series["te"]).reshape(n_cyc, per)
    i = np.argmin(np.abs(v[0]))
    k_pitch = int(s[0, i] / (w["sector_centres"][1] - w["sector_centres"][0]))
    assert abs(int(np.argmin(final)) - k_pitch) <= 1, (np.argmin(final), k_pitch)
    assert final[k_pitch] < 0.1 * final.max()
    assert int(np.argmax(final)) in (0, len(final) - 1)
    amp = np.ptp(te, axis=1)[sc.transient_cycles:]
    assert amp[0] < 0.05 * amp[-1] and np.all(np.diff(amp) > 0), amp
    print("TE amplitude per cycle [um]:", np.round(amp * 1e6, 3))
