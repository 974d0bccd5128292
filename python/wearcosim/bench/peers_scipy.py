"""Benchmark peers (not library code): the library's examples written plainly in NumPy and
integrated with ``scipy.integrate.solve_ivp`` -- what a researcher would otherwise write.  Same
equations and parameters as the library's examples, unworn bearing / stator:

* ``HybridDry``: ``WearCosim.Examples.HybridMechanism.DrySpeed32pi`` (gPlane = 0), chain 3's
  Lagrange equations;
* ``SliderCrankDry``: ``WearCosim.Examples.SliderCrank.SliderCrankDry``, the rod's Lagrange
  equation and the slider's Newton equation;
* ``RotorRub``: ``WearCosim.Examples.Rotor.TwoDiskRub``, the finite-element rotor's matrices
  taken from ROSS 2.3.0 and the rub contact of ``WearCosim.Rotor.RubContact``.

The mechanisms with the Flores contact force (impact velocity captured at contact onset by a
terminal event, with the FMU's hysteresis) and Ambrosio friction; the rotor with a penalty
normal force with contact damping and tanh friction, switched by the same hysteresis events.
"""
from __future__ import annotations

import math

import numpy as np
from typing import Any, Callable

Vec = np.ndarray
from scipy.integrate import solve_ivp

P = dict(q10=0.354, q20=0.409, qAmp=0.005, xD3=0.0, yD3=-0.08, xA3=0.0, yA3=0.0, l31=0.30, l32=0.25,
         l33=0.06, m31=1.0, m32=0.8, m33=0.5, s33=0.03, J31=7.5e-3, J32=4.2e-3, J33=5e-4, elbow=1.0,
         Rj=0.01, L=0.04, Ej=207e9, nuj=0.3, Eb=110e9, nub=0.34, cr=0.9, mu=0.1, v0=1e-4, v1=1e-2,
         vImpactMin=1e-3, eReg=1e-12)


class _EventDriven:
    """solve_ivp restarted at every contact onset/separation (terminal events), as one would
    write it by hand; subclasses give initial(), kin(), rhs(), orbit()."""
    vImpactMin = 1e-3
    eReg = 1e-12

    def delta(self, t, y):
        rJ, _, rB, _ = self.kin(t, y)
        e = rJ - rB
        return math.sqrt(e[0] ** 2 + e[1] ** 2 + self.eReg ** 2) - self.c

    def edot(self, t, y):
        rJ, vJ, rB, vB = self.kin(t, y)
        ev = rJ - rB
        e = math.sqrt(ev[0] ** 2 + ev[1] ** 2 + self.eReg ** 2)
        return float(ev @ (vJ - vB)) / e

    def contact(self, t, y, wJ):
        """Journal force F (global) and torque about the journal centre: Flores + Ambrosio."""
        rJ, vJ, rB, vB = self.kin(t, y)
        ev = rJ - rB
        e = math.sqrt(ev[0] ** 2 + ev[1] ** 2 + self.eReg ** 2)
        n = ev / e
        tg = np.array([-n[1], n[0]])
        dv = vJ - vB
        eDot = float(n @ dv)
        vs = float(tg @ dv) + self.Rj * wJ
        delta = e - self.c
        Fn = max(0.0, self.K * delta ** 1.5 * (1 + self.damp * eDot / self.vImpact)) if delta > 0 else 0.0
        cd = min(1.0, max(0.0, (abs(vs) - self.v0) / (self.v1 - self.v0)))
        Ft = -self.mu * cd * Fn * vs / max(abs(vs), self.v0)
        return -Fn * n + Ft * tg, self.Rj * Ft

    def orbit(self, t, y):
        rJ, _, rB, _ = self.kin(t, y)
        return rJ[0] - rB[0], rJ[1] - rB[1]

    def simulate(self, stop: float, t_eval: Vec, rtol: float = 1e-7, atol: float | None = None,
                 method: str = "LSODA") -> tuple[Vec, Vec, Vec, int]:
        """Integrate with contact-onset events; returns (t_eval, ex, ey, nfev)."""
        self.vImpact = 1.0

        def onset(t, y, entering):     # contact onset: capture the impact velocity
            if entering:
                self.vImpact = max(self.edot(t, y), self.vImpactMin)
        tt, Y, nfev = contact_segments(self.rhs, lambda t, y: self.delta(t, y), self.initial(), stop, t_eval,
                                       rtol, atol, method, onset)
        ex, ey = np.array([self.orbit(tk, Y[:, k]) for k, tk in enumerate(tt)]).T
        return tt, ex, ey, nfev


def contact_segments(rhs: Callable[[float, Vec], Vec], delta: Callable[[float, Vec], float], y0: Vec, stop: float,
                     t_eval: Vec, rtol: float, atol: float | Vec, method: str,
                     on_event: Callable[[float, Vec, bool], Any] | None = None,
                     h: float = 1e-10) -> tuple[Vec, Vec, int]:
    """solve_ivp from 0 to ``stop``, restarted at every contact onset (delta rising through +h)
    and separation (falling through -h): the hysteresis of the FMU's event indicators;
    ``on_event(t, y, entering)`` is called at each.  Returns the solution on ``t_eval``
    (t, Y[n_states, n_t]) and the number of RHS evaluations."""
    atol = atol if atol is not None else rtol * 1e-3
    t, y = 0.0, y0
    ts, ys, nfev = [], [], 0
    in_contact = False

    def ev(t, y):
        return delta(t, y) + h if in_contact else delta(t, y) - h
    ev.terminal = True
    while t < stop:
        ev.direction = -1 if in_contact else 1
        sol = solve_ivp(rhs, (t, stop), y, method=method, rtol=rtol, atol=atol, events=ev, dense_output=True)
        nfev += sol.nfev
        seg = t_eval[(t_eval >= t) & (t_eval <= sol.t[-1])]
        if seg.size:
            ts.append(seg)
            ys.append(sol.sol(seg))
        t, y = sol.t[-1], sol.y[:, -1].copy()
        if sol.status == 1:
            in_contact = not in_contact
            if on_event is not None:
                on_event(t, y, in_contact)
        elif sol.status != 0:
            raise RuntimeError(sol.message)
    tt = np.concatenate(ts)
    Y = np.concatenate(ys, axis=1)
    _, idx = np.unique(tt, return_index=True)
    return tt[idx], Y[:, idx], nfev


def _flores_K(Ei, nui, Ej, nuj, Rb, Rj):
    si = (1 - nui ** 2) / (math.pi * Ei)
    sj = (1 - nuj ** 2) / (math.pi * Ej)
    return 4 / (3 * math.pi * (si + sj)) * math.sqrt(Rb * Rj / (Rb - Rj))


class SliderCrankDry(_EventDriven):
    """Flores-Ambrosio slider-crank, clearance rod/slider; states (phi2, w2, x3, v3)."""

    def __init__(self, c: float = 0.5e-3, omega: float = 5000 * 2 * math.pi / 60, phi0: float = 0.0) -> None:
        self.r, self.l, self.m2, self.m3, self.J2, self.g = 0.05, 0.12, 0.21, 0.14, 2.5e-4, 9.81
        self.c, self.w, self.phi0, self.Rj = c, omega, phi0, 0.01
        self.mu, self.v0, self.v1, cr = 0.01, 1e-4, 1e-2, 0.9
        self.K = _flores_K(207e9, 0.3, 207e9, 0.3, self.Rj + c, self.Rj)
        self.damp = 8 * (1 - cr) / (5 * cr)
        self.JB = self.J2 + self.m2 * self.l ** 2 / 4
        self.vImpact = 1.0

    def initial(self) -> Vec:
        p2 = math.asin(-self.r / self.l * math.sin(self.phi0))
        w2 = -self.r / self.l * self.w * math.cos(self.phi0) / math.cos(p2)
        return np.array([p2, w2, self.r * math.cos(self.phi0) + self.l * math.cos(p2), 0.0])

    def kin(self, t: float, y: Vec) -> tuple[Vec, Vec, Vec, Vec]:
        p2, w2, x3, v3 = y
        p1 = self.phi0 + self.w * t
        rB_ = self.r * np.array([math.cos(p1), math.sin(p1)])
        vB_ = self.r * self.w * np.array([-math.sin(p1), math.cos(p1)])
        rJ = rB_ + self.l * np.array([math.cos(p2), math.sin(p2)])
        vJ = vB_ + self.l * w2 * np.array([-math.sin(p2), math.cos(p2)])
        return rJ, vJ, np.array([x3, 0.0]), np.array([v3, 0.0])

    def rhs(self, t: float, y: Vec) -> Vec:
        p2, w2, x3, v3 = y
        F, tau = self.contact(t, y, w2)
        p1 = self.phi0 + self.w * t
        aB = -self.r * self.w ** 2 * np.array([math.cos(p1), math.sin(p1)])
        u = np.array([-math.sin(p2), math.cos(p2)])
        dw2 = (-self.m2 * self.l / 2 * float(u @ aB) - self.m2 * self.g * self.l / 2 * math.cos(p2)
               + self.l * float(u @ F) + tau) / self.JB
        return np.array([w2, dw2, v3, -F[0] / self.m3])


class HybridDry(_EventDriven):
    def __init__(self, omega: float = 32 * math.pi, c: float = 0.25e-3, **over: float) -> None:
        p = dict(P, **over)
        self.p, self.w, self.c = p, omega, c
        self.a3 = p["l31"] + p["l33"]
        self.M11 = p["m31"] * p["l31"] ** 2 / 4 + p["J31"] + p["m32"] * p["l31"] ** 2 + p["m33"] * (p["l31"] + p["s33"]) ** 2 + p["J33"]
        self.M22 = p["m32"] * p["l32"] ** 2 / 4 + p["J32"] + p["m33"] * p["l32"] ** 2
        self.hM = p["m32"] * p["l31"] * p["l32"] / 2 + p["m33"] * (p["l31"] + p["s33"]) * p["l32"]
        self.K = _flores_K(p["Eb"], p["nub"], p["Ej"], p["nuj"], p["Rj"] + c, p["Rj"])
        self.Rj, self.mu, self.v0, self.v1 = p["Rj"], p["mu"], p["v0"], p["v1"]
        self.vImpactMin, self.eReg = p["vImpactMin"], p["eReg"]
        self.damp = 8 * (1 - p["cr"]) / (5 * p["cr"])
        self.vImpact = 1.0

    def initial(self) -> Vec:
        p, a3, w = self.p, self.a3, self.w
        p0 = np.array([p["q10"] + p["xD3"] - p["xA3"], p["q20"] - p["qAmp"] + p["yD3"] - p["yA3"]])
        d0 = math.hypot(*p0)
        al = math.atan2(p0[1], p0[0]) + p["elbow"] * math.acos((a3 ** 2 + d0 ** 2 - p["l32"] ** 2) / (2 * a3 * d0))
        be = math.atan2(p0[1] - a3 * math.sin(al), p0[0] - a3 * math.cos(al))
        det = a3 * p["l32"] * math.sin(be - al)
        return np.array([al, be, p["l32"] * math.cos(be) * (-p["qAmp"] * w) / det, -a3 * math.cos(al) * (-p["qAmp"] * w) / det])

    def kin(self, t: float, y: Vec) -> tuple[Vec, Vec, Vec, Vec]:
        p, a3, w = self.p, self.a3, self.w
        al, be, ad, bd = y
        rJ = np.array([p["xA3"] + a3 * math.cos(al) + p["l32"] * math.cos(be), p["yA3"] + a3 * math.sin(al) + p["l32"] * math.sin(be)])
        vJ = np.array([-a3 * ad * math.sin(al) - p["l32"] * bd * math.sin(be), a3 * ad * math.cos(al) + p["l32"] * bd * math.cos(be)])
        rB = np.array([p["q10"] - p["qAmp"] * math.sin(w * t) + p["xD3"], p["q20"] - p["qAmp"] * math.cos(w * t) + p["yD3"]])
        vB = p["qAmp"] * w * np.array([-math.cos(w * t), math.sin(w * t)])
        return rJ, vJ, rB, vB

    def rhs(self, t: float, y: Vec) -> Vec:
        p, a3 = self.p, self.a3
        al, be, ad, bd = y
        F, tau = self.contact(t, y, ad)
        s, co = math.sin(al - be), math.cos(al - be)
        M = np.array([[self.M11, self.hM * co], [self.hM * co, self.M22]])
        Q = np.array([a3 * (-math.sin(al) * F[0] + math.cos(al) * F[1]) + tau - self.hM * s * bd ** 2,
                      p["l32"] * (-math.sin(be) * F[0] + math.cos(be) * F[1]) + self.hM * s * ad ** 2])
        acc = np.linalg.solve(M, Q)
        return np.array([ad, bd, acc[0], acc[1]])


class RotorRub:
    """Two-disk FE rotor rubbing on a rigid, misaligned stator (``TwoDiskRub``, unworn stator):
    M q'' + (C + Omega G) q' + K q = f_unb(t) + F_rub on the 28 lateral DOFs {x, y, alpha, beta}
    of nodes 1..7 (ROSS's DOFs 0, 1, 3, 4 of its six per node; M, K, C, G from ROSS); states
    (q, q'), spin angle Omega t.  Rub at disk 1 (node 3, DOFs 8, 9):
    delta = |e| - c, Fn = max(0, k_c delta + c_c delta') while in contact, Ft = -mu Fn tanh(vSlip/vEps),
    vSlip = R Omega + t.v; contact switched by terminal events at delta = +-h (the FMU's relation
    hysteresis h = 1e-10 m on ``delta > 0``)."""

    def __init__(self, vEps: float = 1e-3, eReg: float = 1e-12, hyst: float = 1e-10) -> None:
        import contextlib
        import os
        import warnings
        from ..studies.rotor import BASELINE, SCENARIOS, TWO_DISK, lateral_dofs, ross_rotor
        # the parameter set of TwoDiskRub's partial rub (kept in step with the .mo in studies.rotor)
        self.node = TWO_DISK["rub_node"]
        omega, c = BASELINE["rotor.Omega0"], BASELINE["c"]
        k_c, c_c, mu = BASELINE["k_c"], BASELINE["c_c"], BASELINE["mu"]
        unbalance, R = TWO_DISK["unbalance"], TWO_DISK["disk_od"] / 2
        statorOffset = (0.0, SCENARIOS["partial"]["statorOffset[2]"])
        with warnings.catch_warnings(), open(os.devnull, "w") as null:
            warnings.simplefilter("ignore")
            out = os.dup(1)             # ross imports ccp, which prints REFPROP notes from C
            os.dup2(null.fileno(), 1)
            try:
                with contextlib.redirect_stdout(null):
                    rotor = ross_rotor()
            finally:
                os.dup2(out, 1)
                os.close(out)
        ix = lateral_dofs(rotor.ndof)
        sub = lambda A: A[np.ix_(ix, ix)]
        M, K, C, G = sub(rotor.M()), sub(rotor.K(omega)), sub(rotor.C(omega)), sub(rotor.G())
        n = M.shape[0]
        Minv = np.linalg.inv(M)
        self.n = n
        self.A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ K, -Minv @ (C + omega * G)]])
        self.B = np.vstack([np.zeros((n, 2)), Minv[:, 4 * self.node:4 * self.node + 2]])   # force on the disk
        self.w, self.u, self.c, self.R = omega, unbalance, c, R
        self.k_c, self.c_c, self.mu, self.vEps = k_c, c_c, mu, vEps
        self.rS = np.asarray(statorOffset, float)
        self.eReg, self.h = eReg, hyst
        self.inContact = False

    def disk(self, y: Vec) -> tuple[Vec, Vec]:
        i = 4 * self.node
        return y[i:i + 2] - self.rS, y[self.n + i:self.n + i + 2]

    def delta(self, y: Vec) -> float:
        e, _ = self.disk(y)
        return math.sqrt(e[0] ** 2 + e[1] ** 2 + self.eReg ** 2) - self.c

    def force(self, y: Vec) -> Vec:
        """Unbalance + rub force on disk 1 (x, y)."""
        e, v = self.disk(y)
        F = np.zeros(2)
        if self.inContact:
            em = math.sqrt(e[0] ** 2 + e[1] ** 2 + self.eReg ** 2)
            n = e / em
            tg = np.array([-n[1], n[0]])
            Fn = max(0.0, self.k_c * (em - self.c) + self.c_c * float(n @ v))
            Ft = -self.mu * Fn * math.tanh((self.R * self.w + float(tg @ v)) / self.vEps)
            F = -Fn * n + Ft * tg
        return F

    def rhs(self, t: float, y: Vec) -> Vec:
        F = self.force(y)
        wt = self.w * t
        F[0] += self.u * self.w ** 2 * math.cos(wt)
        F[1] += self.u * self.w ** 2 * math.sin(wt)
        return self.A @ y + self.B @ F

    def simulate(self, stop: float, t_eval: Vec, rtol: float = 1e-7, atol: float | None = None,
                 method: str = "LSODA") -> tuple[Vec, Vec, Vec, int]:
        """From rest, restarted at every contact onset/separation; returns (t_eval, x, y, nfev),
        x, y: disk 1 relative to the stator centre (the FMU's outputs x, y)."""
        self.inContact = False

        def switch(t, y, entering):
            self.inContact = entering
        tt, Y, nfev = contact_segments(self.rhs, lambda t, y: self.delta(y), np.zeros(2 * self.n), stop, t_eval,
                                       rtol, atol, method, switch, self.h)
        i = 4 * self.node
        return tt, Y[i] - self.rS[0], Y[i + 1] - self.rS[1], nfev
