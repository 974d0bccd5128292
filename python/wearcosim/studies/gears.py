"""Gear studies (issue 5): SciPy reference of Cardona's torsional system (seed 003 eq. 27),
analysis helpers for the gear-pair FMUs, and the dynamic-factor sweep of Kubo's test.

    python -m wearcosim.studies.gears kubo --out results/gears      # full sweep + PNG (slow)
    python -m wearcosim.studies.gears cardona                       # eq. 27 in SciPy vs the FMUs

Units: SI everywhere.  Cardona's data (seed 003 Table 3) are published in inch-lbf-s; they are
converted once, in :func:`cardona_si` (the Modelica side does the same in
``WearCosim.Gears.CardonaData``).
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

INCH = 0.0254                 # m
LBF = 4.4482216152605         # N

#: Table 3 of seed 003 as published (inch, lbf, s, rad); inertias in lbf.in.s^2
CARDONA = dict(module=0.15748, alpha_deg=20.0, z1=25, z2=25, chi=0.1, km=1.477e7, X=0.0003937,
               Ia=0.0102, Ib=0.0102, I1=0.051, I2=0.0102, k1=1.7e7, k2=3.0e7, C1=0.076026,
               C2=0.12369, T=945.6, b_case2=0.001968)


def cardona_si(b_in: float = 0.0) -> dict:
    """Cardona's data in SI (the one place of the Python side where inch-lbf-s is converted)."""
    c = CARDONA
    lin = LBF * INCH          # lbf.in -> N.m (torque, torsional stiffness/damping, inertia lbf.in.s^2)
    d = dict(module=c["module"] * INCH, alpha=math.radians(c["alpha_deg"]), z1=c["z1"], z2=c["z2"],
             chi=c["chi"], km=c["km"] * LBF / INCH, X=c["X"] * INCH, b=b_in * INCH,
             Ia=c["Ia"] * lin, Ib=c["Ib"] * lin, I1=c["I1"] * lin, I2=c["I2"] * lin,
             k1=c["k1"] * lin, k2=c["k2"] * lin, C1=c["C1"] * lin, C2=c["C2"] * lin, T=c["T"] * lin)
    d["rho"] = d["module"] * d["z1"] / 2
    return d


def cardona_mean_pitch_force(d: dict | None = None) -> float:
    """Steady accelerating mesh force at the pitch circle, T*(Ib + I2)/(rho*sum(I)) [N]."""
    d = d or cardona_si()
    return d["T"] * (d["Ib"] + d["I2"]) / (d["rho"] * (d["I1"] + d["Ia"] + d["Ib"] + d["I2"]))


def cardona_torsional(b_in: float = 0.0, t_end: float = 0.02, dt: float = 2e-6,
                      base_radius: bool = True, rtol: float = 1e-10,
                      atol: float = 1e-14) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integrate eq. 27 of seed 003 (its intended form) with SciPy, independently of Modelica.

    State y = [th1, th2, th3, th4, w1, wa, wb, w2]; th3, th4 counted in the sense of rotation of
    wheel a.  The dead zone and the contact-only damping are piecewise: one adaptive DOP853 run
    (rtol 1e-10, max_step 2e-6 s) whose error control shrinks the steps onto each kink.
    Returns (t, F, ds, in_contact) on the grid 0:dt:t_end; F along the line of action.
    """
    from scipy.integrate import solve_ivp

    d = cardona_si(b_in)
    r = d["rho"] * math.cos(d["alpha"]) if base_radius else d["rho"]
    bm = 2 * d["chi"] * math.sqrt(d["km"] * d["Ia"] * d["Ib"] / (d["Ia"] * d["rho"] ** 2 + d["Ib"] * d["rho"] ** 2))
    b2 = d["b"] / 2

    def ds_of(y):
        return r * (y[1] - y[2]) + d["X"] * (1 - math.cos(d["z1"] * y[1]))

    def force(y, mode):
        ds = ds_of(y)
        damp = bm * r * (y[5] - y[6])
        if mode > 0:
            return d["km"] * (ds - b2) + damp
        if mode < 0:
            return d["km"] * (ds + b2) + damp
        return 0.0

    def mode_of(y):
        ds = ds_of(y)
        return 1 if ds > b2 else (-1 if ds < -b2 else 0)

    def rhs(t, y):
        F = force(y, mode_of(y))
        s1 = d["C1"] * (y[4] - y[5]) + d["k1"] * (y[0] - y[1])
        s2 = d["C2"] * (y[6] - y[7]) + d["k2"] * (y[2] - y[3])
        return [y[4], y[5], y[6], y[7],
                (d["T"] - s1) / d["I1"], (s1 - r * F) / d["Ia"], (r * F - s2) / d["Ib"], s2 / d["I2"]]

    t_grid = np.arange(0.0, t_end + 0.5 * dt, dt)
    # the kinks of H and the switch of the damping are left to the error control of the
    # adaptive DOP853 (rejected steps shrink onto each switch; max_step well below the
    # shortest period, 2*pi/1.1e5 s)
    sol = solve_ivp(rhs, (0.0, t_end), np.zeros(8), method="DOP853", t_eval=t_grid,
                    rtol=rtol, atol=atol, max_step=2e-6)
    Y = sol.y.T
    modes = np.array([mode_of(y) for y in Y])
    F = np.array([force(Y[k], modes[k]) for k in range(len(t_grid))])
    ds = np.array([ds_of(Y[k]) for k in range(len(t_grid))])
    return t_grid, F, ds, modes != 0


def contact_loss_intervals(t: np.ndarray, in_contact: np.ndarray,
                           min_duration: float = 0.0) -> list[tuple[float, float]]:
    """[(t_loss, t_regain)] of the separations (contact flag falls, rises) longer than min_duration."""
    c = np.asarray(in_contact, dtype=int)
    dc = np.diff(c)
    lost = list(t[1:][dc == -1])
    back = list(t[1:][dc == 1])
    out = []
    for tl in lost:
        later = [tb for tb in back if tb > tl]
        tb = later[0] if later else t[-1]
        if tb - tl >= min_duration:
            out.append((tl, tb))
    return out


# ----------------------------------------------------------------------------- Kubo's test

def kubo_parameters() -> dict[str, Any]:
    """Kubo's pair (seed 003 Table 2) with the stiffness and wheel data chosen in
    WearCosim.Examples.Gears.KuboDynamicFactor (kept in one place here for the analytic values)."""
    m, z, alpha, width, rho_s = 4e-3, 25, math.radians(20.0), 0.01, 7800.0
    rho = m * z / 2
    mass = rho_s * math.pi * rho ** 2 * width
    I = mass * rho ** 2 / 2
    ra, rb = rho + m, rho * math.cos(alpha)
    eps = (2 * math.sqrt(ra ** 2 - rb ** 2) - 2 * rho * math.sin(alpha)) / (math.pi * m * math.cos(alpha))
    k_single, k_double = 1.3e8, 2.3e8
    k_mean = k_single + (k_double - k_single) * (eps - 1)
    return dict(module=m, z=z, alpha=alpha, rho=rho, rb=rb, I=I, eps=eps, k_single=k_single,
                k_double=k_double, k_mean=k_mean, T=1.0)


def kubo_natural_frequency(p: dict | None = None) -> float:
    """Torsional natural frequency of the pair [Hz]: omega_n^2 = k_mean (Ia rb_b^2 + Ib rb_a^2)/(Ia Ib),
    with the base radii (the lever arm of the tooth normal in the spatial model)."""
    p = p or kubo_parameters()
    I, rb = p["I"], p["rb"]
    return math.sqrt(p["k_mean"] * (I * rb ** 2 + I * rb ** 2) / (I * I)) / (2 * math.pi)


def kubo_resonance_speeds_rpm(harmonics: Sequence[int] = (1, 2, 3), p: dict | None = None) -> dict[int, float]:
    """Speeds [rpm] where harmonic h of the mesh frequency z*n/60 meets the natural frequency."""
    p = p or kubo_parameters()
    fn = kubo_natural_frequency(p)
    return {h: 60 * fn / (h * p["z"]) for h in harmonics}


def dynamic_factor(fmu: Any, rpm: float, chi: float | None = None, mesh_periods_settle: int = 120,
                   mesh_periods_measure: int = 40) -> float:
    """Dynamic factor max(F)/F_static of the KuboDynamicFactor FMU at a constant speed.

    The FMU starts both wheels at the rigid speeds for rpm, drives a by T and brakes b by T
    (constant mean speed); the first mesh_periods_settle mesh periods (transient) are skipped.
    chi: mesh damping factor (None: the FMU's default, Table 2's 0.3).  ``fmu``: a path, or an
    open runner (:func:`wearcosim.fmi.runner.open_fmu`), which sweeps reuse: reset per speed."""
    from ..fmi.runner import Runner, open_fmu
    runner = fmu if isinstance(fmu, Runner) else open_fmu(fmu)
    try:
        p = kubo_parameters()
        w = rpm * 2 * math.pi / 60
        Tm = 2 * math.pi / (p["z"] * w)
        n_per = 200
        sv = {"nRpm": float(rpm)}
        if chi is not None:
            sv["chi"] = float(chi)
        runner.reset()
        runner.set(sv)
        runner.setup(0.0, (mesh_periods_settle + mesh_periods_measure) * Tm, None, Tm / n_per)
        runner.initialize()
        _, y = runner.step_record((mesh_periods_settle + mesh_periods_measure) * n_per, runner.vr(["F", "Fstatic"]))
        return float(np.max(y[mesh_periods_settle * n_per - 1:, 0]) / y[-1, 1])
    finally:
        if runner is not fmu:
            runner.terminate()


def kubo_sweep(fmu: str | Path, rpms: Sequence[float], **kw: Any) -> np.ndarray:
    """Dynamic factor at each speed of ``rpms``; one FMU instance, reset per speed."""
    from ..fmi.runner import open_fmu
    runner = open_fmu(fmu)
    try:
        return np.array([dynamic_factor(runner, n, **kw) for n in rpms])
    finally:
        runner.terminate()


def local_maxima(x: Sequence[float], y: Sequence[float]) -> list[float]:
    """x positions of the strict interior local maxima of y(x)."""
    y = np.asarray(y)
    return [x[i] for i in range(1, len(y) - 1) if y[i] > y[i - 1] and y[i] > y[i + 1]]


def plot_dynamic_factor(rpms: Sequence[float], kd: Sequence[float], path: str | Path, p: dict | None = None,
                        kd_light: Sequence[float] | None = None) -> Path:
    """Dynamic factor against speed with the resonance speeds marked, in the project's figure
    style (:mod:`wearcosim.plots.style`): ``path`` with .pdf and 300-dpi .png; returns the PNG."""
    from ..plots.style import COLUMN, figure, save
    res = kubo_resonance_speeds_rpm(p=p)
    fig, ax = figure(COLUMN, 0.7)
    ax.plot(rpms, kd, "o-", ms=2.5, label="damping ratio 0.3 (seed 003, Table 2)")
    if kd_light is not None:
        ax.plot(rpms, kd_light, "s-", ms=2, lw=0.8, label="damping ratio 0.05")
    top = max(np.max(kd), np.max(kd_light) if kd_light is not None else 0)
    for h, n in res.items():
        ax.axvline(n, color="grey", ls="--", lw=0.6)
        ax.text(n, top, r"$f_m = f_n$" if h == 1 else rf"${h} f_m = f_n$", rotation=90, va="top", ha="right",
                fontsize=6)
    ax.set_xlabel("pinion speed (rpm)")
    ax.set_ylabel(r"dynamic factor $F_{max}/F_{static}$ (-)")
    ax.set_title("Spur pair z = 25/25, m = 4 mm: quasi-steady speeds")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=6)
    return save(fig, Path(path))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.studies.gears")
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kubo", help="dynamic factor vs speed (full sweep, slow) + PNG")
    k.add_argument("--fmu", help="KuboDynamicFactor.fmu (built if omitted)")
    k.add_argument("--out", default="results/gears")
    k.add_argument("--n0", type=float, default=1000)
    k.add_argument("--n1", type=float, default=20000)
    k.add_argument("--points", type=int, default=77)
    c = sub.add_parser("cardona", help="eq. 27 in SciPy: mean force and contact losses")
    c.add_argument("--b", type=float, default=0.0, help="backlash [in]")
    a = ap.parse_args(argv)
    if a.cmd == "kubo":
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        fmu = a.fmu
        if not fmu:
            from ..export.build import build_fmu, DEFAULT_PACKAGE
            fmu = build_fmu("WearCosim.Examples.Gears.KuboDynamicFactor", DEFAULT_PACKAGE, out).fmu
        rpms = np.linspace(a.n0, a.n1, a.points)
        kd = kubo_sweep(fmu, rpms)
        kd_light = kubo_sweep(fmu, rpms, chi=0.05)
        np.savetxt(out / "kubo_dynamic_factor.csv", np.c_[rpms, kd, kd_light], delimiter=",",
                   header="rpm,dynamic_factor_chi0.3,dynamic_factor_chi0.05", comments="")
        plot_dynamic_factor(rpms, kd, out / "kubo_dynamic_factor.png", kd_light=kd_light)
        print("peaks (chi 0.3):", local_maxima(rpms, kd), " (chi 0.05):", local_maxima(rpms, kd_light))
        print("natural frequency %.1f Hz; resonance speeds" % kubo_natural_frequency(),
              {h: round(v) for h, v in kubo_resonance_speeds_rpm().items()})
        print("wrote", out / "kubo_dynamic_factor.png")
    else:
        t, F, ds, c_ = cardona_torsional(a.b)
        print("mean pitch force %.2f lbf (expected %.2f)" % (
            F[len(F) // 4:].mean() * math.cos(math.radians(20)) / LBF, cardona_mean_pitch_force() / LBF))
        print("contact losses [ms]:", [(round(x * 1e3, 3), round(y * 1e3, 3)) for x, y in contact_loss_intervals(t, c_)])


if __name__ == "__main__":
    main()
