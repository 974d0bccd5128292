"""The implicit coupling step of the co-simulation master (``algorithm="ijcsa"``): interface
Jacobians and Newton's method on the exchanged values.

The problem
    Over a communication step [t, t+h] every component advances its own state with its own
    solver, from inputs the master gives it.  A co-simulation that holds the inputs at their
    values from t (Jacobi, Gauss-Seidel) integrates the coupling *explicitly*: across a stiff
    contact (a force that changes by its whole range while the journal moves a micrometre)
    it is stable only for steps far below the contact's period, and is silently wrong above
    them.

The unknowns
    The exchanged Real values that feed components with continuous states (``z``; the joint
    force into the mechanism body).  A component without states computes its outputs at t+h
    from its inputs at t+h: it is evaluated, not iterated -- so absolute positions (0.35 m)
    are never iterated to a tolerance relative to their size, which would be 10**4 clearances.
    System inputs are constants.

One evaluation (:meth:`Implicit.phi`)
    Every component restored to its state at t; those with states first, their inputs the
    polynomial through (t, y(t)) and (t+h, z), and at order 2 also through the previous
    accepted point (:meth:`Implicit.coefficients`), given by ``fmi2SetRealInputDerivatives``
    (orders 1, 2) when the FMU declares ``canInterpolateInputs`` and accepts them (probed once,
    :meth:`Implicit.start`), else the polynomial's mean over the step held; then those without
    states, their inputs the line from their values at t to the outputs just computed; each
    steps, has its end values set (an output with direct feedthrough reads them) and its
    outputs read.  In C when it can be built (``wc_phi`` of :mod:`wearcosim.fmi.cloop`: one
    ctypes call instead of ~6 per component), else the same calls from Python.  The whole step
    below -- prediction, Newton's iterations, the Jacobian, the error estimate -- runs in C too
    (``wc_advance``, one call per step: :meth:`Implicit._advance_c`); the Python of
    :meth:`Implicit.advance` is the same method, taken without a C compiler or with
    ``WEARCOSIM_NO_CLOOP=1``, and for a step whose FMI call failed (to raise it with the log).

Newton's method
    On ``z = Phi_z(z)``, from the quadratic extrapolation of the last three accepted points:
    ``(I - J) dz = Phi_z(z) - z`` with ``J`` the interface Jacobian, differenced once
    (restore, step with one unknown perturbed: every component's step sensitivity and the
    chain through the ones without states in one column) and kept up to date by Broyden's
    rank-one updates; it is differenced again when the residual does not shrink by
    :data:`SLOW` per iteration or the step size has changed by more than :data:`JAC_RANGE`.
    Converged when the residual is below :data:`KAPPA` times the coupling tolerance; the
    components' states are those of the last evaluation.  An iteration that stalls (a kink of
    a contact law between iterates) takes its best iterate if that is within the tolerance
    itself; otherwise the step is redone with half the size (rollback).

Error estimate and step size
    The difference at mid-step between the polynomial the inputs followed and the one of the
    next order through one more accepted point (:meth:`Implicit.error`; at order 2 about h**3
    times the third derivative), relative to ``rtol_coupling*max|z| + atol_coupling``; the
    master's controller halves and doubles the step on the dyadic subdivision of its grid
    (exponent 1/(order+1)).

Events across the boundary
    A component's discrete outputs (Boolean, Integer, discrete Real) change only at its
    events.  A step over which one changed is redone smaller until it is at most
    ``step * rtol_coupling**EVENT_EXPONENT`` long (the master, ``cosim._run``).  The dry joint
    captures the impact velocity at contact onset (``when delta > 0``) from its inputs: located
    so, and with its inputs interpolated, it is the velocity of the onset, not of the end of a
    coarse step (hybrid mechanism, 1e-4 s: the contact force 84 % of its range off without the
    location, 0.6 % with it).

The energy estimate (:mod:`wearcosim.system.estimate`) measures the consistency of the
exchanged end values (the means of the two ends are reported as held); the interpolation's own
error over many steps is what the refinement check (:mod:`wearcosim.system.refine`) measures.
"""
from __future__ import annotations

from typing import Any

import numpy as np

#: Newton stops when the residual is below this fraction of the coupling tolerance
KAPPA = 0.1
#: evaluations of Phi on one step before it is given up (with a fresh Jacobian)
MAX_ITER = 6
#: a residual that does not shrink by this factor per iteration asks for a fresh Jacobian
SLOW = 0.3
#: the highest order of the inputs' interpolating polynomial (2: quadratic through the previous
#: point, with second derivatives, when every component accepts them; else linear)
ORDER = 2
#: the Jacobian is differenced again when the step size has changed by more than this factor
#: since (Broyden's updates keep it in between)
JAC_RANGE = 8.0


class NotConverged(Exception):
    """Newton's method did not converge on a coupling step (the master redoes it smaller)."""

    def __init__(self, t: float, dt: float, residual: float, connection: str = ""):
        super().__init__(f"the implicit coupling step at t = {t:.9g} of {dt:.3g} s did not converge "
                         f"(residual {residual:.3g} x the tolerance"
                         + (f" at connection {connection})" if connection else ")"))
        self.t, self.dt, self.residual, self.connection = t, dt, residual, connection


class Implicit:
    """The coupling step of one master (:class:`wearcosim.system.cosim._Master`), whose units,
    exchange table and tolerances it uses."""

    def __init__(self, master: Any):
        self.m = master
        self.jac: np.ndarray | None = None        # d Phi_z / d z
        self.jac_dt = 0.0
        self.dirty = False                        # a component has stepped since the last save
        self.stats = master.stats
        n = len(master.y)
        for u in master.units:
            md = u.runner.md
            cs = md.coSimulation
            u.interp = bool(getattr(cs, "canInterpolateInputs", False))
            u.n_states = len(md.derivatives)
            u.order2 = False                      # decided by start() after initialisation
        # the unknowns: the values that feed components with states (a component without states
        # computes its outputs at t+h from its inputs at t+h: it is evaluated, not iterated)
        self.z = np.zeros(n, dtype=bool)
        for u in master.units:
            if u.n_states > 0 and len(u.in_real_src):
                self.z[u.in_real_src] = True
        for k, i in master.index.items():
            if k[0] is None:                     # a system input: constant over the run, not an unknown
                self.z[i] = False
        self.zi = np.flatnonzero(self.z)
        self.eye = np.eye(len(self.zi))
        # discrete outputs (Boolean, Integer, discrete Real) change only at a component's events
        self.discrete = []
        for u in master.units:
            by = {}
            for v in u.runner.md.modelVariables:
                if v.causality == "output" and (v.type != "Real" or v.variability == "discrete") \
                        and v.type in ("Real", "Integer", "Boolean", "Enumeration"):
                    by.setdefault("Integer" if v.type == "Enumeration" else v.type, []).append(v.valueReference)
            if by:
                self.discrete.append((u, sorted(by.items())))
        self.last_discrete: np.ndarray | None = None
        self.counts: dict | None = None                   # FMI calls of one evaluation in C
        self.nw: Any = None                                # wc_advance's Newton iteration (C)
        self.python = False                               # this step in Python (a C call failed)
        self.err_c: tuple | None = None                   # (new, dt, error) of wc_advance's step
        self.state_sync = True                            # the C units' saved-state pointers are stale
        self.d1, self.d2 = np.zeros(n), np.zeros(n)        # the inputs' polynomials, per table entry
        self.disc_views: list = []
        self.hist: list[tuple[float, np.ndarray]] = []     # accepted (t, y), the last one the step's start
        self.order = 1
        seq = list(dict.fromkeys(master.order))
        self.seq = [u for u in seq if u.n_states > 0] + [u for u in seq if u.n_states == 0]
        self.fast = self._fast()

    def _fast(self) -> Any:
        """The evaluation in C (``wc_phi`` of :mod:`wearcosim.fmi.cloop`) when it can be built
        and every exchanged value is Real; None: the Python loop (same calls, same results)."""
        import ctypes
        from ..fmi import cloop
        m = self.m
        from .. import cext
        if not cext.enabled():
            return None
        if any(u.in_other or u.out_other for u in m.units):
            return None
        phi = cloop.load_phi()
        if phi is None:
            return None
        index = {id(u): i for i, u in enumerate(m.units)}
        arr = (cloop.Unit * len(m.units))()
        keep = []
        disc_views: list = []

        def buf(a: Any, ctype: Any) -> int:
            x = np.ascontiguousarray(a, dtype=ctype)
            keep.append(x)
            return x.ctypes.data

        for i, u in enumerate(m.units):
            dll = u.slave.dll
            c = arr[i]
            c.comp = u.slave.component
            for name, fn in (("set_state", "fmi2SetFMUstate"), ("set_real", "fmi2SetReal"),
                             ("set_der", "fmi2SetRealInputDerivatives"), ("do_step", "fmi2DoStep"),
                             ("get_real", "fmi2GetReal"), ("get_state", "fmi2GetFMUstate"),
                             ("get_int", "fmi2GetInteger"), ("get_bool", "fmi2GetBoolean")):
                setattr(c, name, ctypes.cast(getattr(dll, fn), ctypes.c_void_p).value)
            c.interp, c.feedthrough = int(u.interp), int(bool(u.feedthrough))
            c.n_in, c.n_out, c.held_off = len(u.in_real_vr), len(u.out_real_vr), u.held_off
            c.in_vr = buf(u.in_real_vr, np.uint32)
            c.in_src = buf(u.in_real_src, np.int64)
            c.out_vr = buf(u.out_real_vr, np.uint32)
            c.out_dst = buf(u.out_real_dst, np.int64)
            c.scratch = buf(np.zeros(3 * max(1, len(u.in_real_vr))), np.float64)
            c.out_buf = buf(np.zeros(max(1, len(u.out_real_vr))), np.float64)
            c.ones = buf(np.ones(max(1, len(u.in_real_vr))), np.int32)
            c.twos = buf(np.full(max(1, len(u.in_real_vr)), 2), np.int32)
            c.given = int(u.n_states > 0)
            c.order2 = int(u.order2)
            groups = dict(next((g for v, g in self.discrete if v is u), []))
            views = []
            for typ, field, ctype in (("Boolean", "dbool", np.int32), ("Integer", "dint", np.int32),
                                      ("Real", "dreal", np.float64)):
                vrs = groups.get(typ, [])
                setattr(c, "n_" + field, len(vrs))
                setattr(c, field + "_vr", buf(vrs or [0], np.uint32))
                b = np.zeros(max(1, len(vrs)), dtype=ctype)
                keep.append(b)
                setattr(c, field + "_buf", b.ctypes.data)
                if vrs:
                    views.append(b[:len(vrs)])
            disc_views.extend(views)
        seq = np.array([index[id(u)] for u in self.seq], dtype=np.int64)
        keep.append(seq)
        self.disc_views = disc_views
        adv = cloop.load_advance()
        if adv is not None:
            k, n = len(self.zi), len(m.y)
            nw = cloop.Newton(n=n, k=k, zi=buf(self.zi, np.int64), jac_ok=0, worst=-1)
            self.nw_scale = np.ones(max(1, k))
            self.nw_z = np.zeros(max(1, k))
            nw.scale = self.nw_scale.ctypes.data
            nw.jac = buf(np.zeros(max(1, k * k)), np.float64)
            nw.work = buf(np.zeros(8 * k + k * k + n + 1), np.float64)
            nw.z_fail = buf(np.zeros(max(1, k)), np.float64)
            self.nw = nw
        return phi, arr, seq, keep, ctypes.c_long(0), cloop.load_save(), adv

    # -- one component over the step
    def _step_unit(self, u: Any, t: float, dt: float, a: np.ndarray, b: np.ndarray, d1: np.ndarray | None,
                   d2: np.ndarray | None, other: dict, out: np.ndarray, held: np.ndarray | None) -> None:
        """Inputs from ``a`` (at t) to ``b`` (at t+dt): the polynomial a + d1*s + d2*s**2/2
        (s = time since t; d1, d2 None: the line from a to b) when the FMU interpolates, else
        its mean over the step held; step; the end values set; the outputs read into ``out``."""
        m = self.m
        if len(a):
            if d1 is None:
                d1, d2 = (b - a) / dt, None
            mean = a + d1 * (dt / 2) + (d2 * (dt * dt / 6) if d2 is not None else 0.0)
            if u.interp:
                u.set_real_inputs(a)
                s = u.slave
                vrs = list(u.in_real_vr)
                m.calls["fmi2SetRealInputDerivatives"] += 1
                u.runner._call("fmi2SetRealInputDerivatives",
                               lambda: s.setRealInputDerivatives(vrs, [1] * len(vrs), d1.tolist()))
                if u.order2:
                    dd = d2 if d2 is not None else np.zeros(len(vrs))
                    m.calls["fmi2SetRealInputDerivatives"] += 1
                    u.runner._call("fmi2SetRealInputDerivatives",
                                   lambda: s.setRealInputDerivatives(vrs, [2] * len(vrs), dd.tolist()))
            else:
                u.set_real_inputs(mean)
            if held is not None:                  # the energy estimate: the exchange of the end values
                held[u.held_off:u.held_off + len(a)] = (a + b) / 2
        for typ, vr, key in u.in_other:
            m._set_other(u, typ, vr, other[key])
        u.do_step(t, dt)
        if len(a) and u.feedthrough:
            u.set_real_inputs(b)
        if u.out_real_vr:
            out[u.out_real_dst] = u.get_values("Real", u.out_real_vr)

    def coefficients(self, t: float, dt: float, y0: np.ndarray, z1: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The interpolating polynomial of the unknowns over the step, as derivatives at t:
        through (t, y0) and (t+dt, z1), and, at order 2, the previous point too."""
        zi = self.zi
        D1 = z1 - y0[zi]
        if self.order < 2 or len(self.hist) < 2:
            return D1 / dt, None
        tp, yp = self.hist[-2]
        hp = t - tp
        D0 = yp[zi] - y0[zi]
        b = (D1 / dt + D0 / hp) / (dt + hp)
        return D1 / dt - b * dt, 2.0 * b

    def phi(self, t: float, dt: float, y0: np.ndarray, z1: np.ndarray, held: np.ndarray | None = None
            ) -> tuple[np.ndarray, dict]:
        """Every component over [t, t+dt]: those with states from the candidate end values
        ``z1`` of their inputs (the interpolating polynomial, :meth:`coefficients`), then those
        without, from the outputs just computed (the line from their values at t).  Returns the
        exchanged values at t+dt and the Integer/Boolean ones."""
        m = self.m
        out = y0.copy()
        out[self.zi] = z1
        c1, c2 = self.coefficients(t, dt, y0, z1)
        d1 = self.d1
        d1[self.zi] = c1
        d2 = None
        if c2 is not None:
            d2 = self.d2
            d2[self.zi] = c2
        if self.fast is not None and not self.python:
            if self._phi_c(t, dt, y0, out, held, d1, d2):
                return out, m.other
            out = y0.copy()                      # failed: the Python loop repeats it, and raises
            out[self.zi] = z1
        if self.dirty:
            for u in m.units:
                u.restore()
            self.stats["rollbacks"] += 1
        self.dirty = True
        onew = dict(m.other)
        for u in self.seq:
            src = u.in_real_src
            if u.n_states > 0:
                self._step_unit(u, t, dt, y0[src], out[src], d1[src], None if d2 is None else d2[src],
                                m.other, out, held)
            else:
                self._step_unit(u, t, dt, y0[src], out[src], None, None, m.other, out, held)
            for typ, vr, key in u.out_other:
                onew[key] = u.get_values(typ, [vr])[0]
        self.stats["ijcsa_evaluations"] += 1
        return out, onew

    def _phi_c(self, t: float, dt: float, y0: np.ndarray, out: np.ndarray, held: np.ndarray | None,
               d1: np.ndarray, d2: np.ndarray | None) -> bool:
        """:meth:`phi` in C; False when a call failed (the Python loop then repeats the
        evaluation and raises the error with the component's log)."""
        import ctypes
        m = self.m
        phi, arr, seq, _, failed, _, _ = self.fast
        restore = self.dirty
        if restore:
            self.stats["rollbacks"] += 1
        self._sync_states()
        h = held.ctypes.data if held is not None else None
        st = phi(ctypes.addressof(arr), len(arr), seq.ctypes.data, len(seq), int(restore), t, dt,
                 y0.ctypes.data, out.ctypes.data, h, d1.ctypes.data, d2.ctypes.data if d2 is not None else None,
                 ctypes.byref(failed))
        self.dirty = True
        for u in m.units:
            u.time = t + dt
        c = m.calls
        if restore:
            c["fmi2SetFMUstate"] += len(arr)
        if self.counts is None:
            self.counts = self._counts()
        c.update(self.counts)
        self.stats["ijcsa_evaluations"] += 1
        return not st

    # -- the interface Jacobian
    def jacobian(self, t: float, dt: float, y0: np.ndarray, z1: np.ndarray, f1: np.ndarray,
                 scale: np.ndarray) -> np.ndarray:
        """d Phi_z / d z at ``z1`` (``f1`` = Phi_z(z1)) by differences of whole evaluations."""
        k = len(z1)
        J = np.zeros((k, k))
        for j in range(k):
            d = max(1e-7 * abs(z1[j]), 1e-2 * scale[j])
            zp = z1.copy()
            zp[j] += d
            out, _ = self.phi(t, dt, y0, zp)
            J[:, j] = (out[self.zi] - f1) / d
        self.stats["ijcsa_jacobians"] += 1
        self.stats["ijcsa_fd_evaluations"] += k
        return J

    # -- the step
    def advance(self, t: float, t1: float) -> tuple[np.ndarray, dict]:
        m = self.m
        dt = t1 - t
        y0 = m.y
        zi = self.zi
        if not m.have_prev or not self.hist or self.hist[-1][0] != t:
            self.hist = [(t, y0.copy())]                  # after a jump: no history across it
        if self.nw is not None and not self.python:
            return self._advance_c(t, t1, y0)
        z1 = self.predict(t1)
        scale = m.rtol * np.maximum(m.runmax[zi], np.abs(y0[zi])) + m.atol[zi]
        scale = np.where(scale > 0, scale, 1.0)
        if self.jac is not None and not (1 / JAC_RANGE <= dt / self.jac_dt <= JAC_RANGE):
            self.jac = None
        self.dirty = False
        fresh = False
        rprev = rn = np.inf
        zprev = rlast = None
        best = None
        for k in range(MAX_ITER):
            out, onew = self.phi(t, dt, y0, z1, m.held)
            r = out[zi] - z1
            rn = float(np.max(np.abs(r) / scale)) if len(r) else 0.0
            if rn <= KAPPA:
                self.stats["ijcsa_iterations"] += k + 1
                return out, onew
            if rn <= 1.0 and (best is None or rn < best[0]):
                best = (rn, z1)
            if k > 0 and rn > SLOW * rprev:
                if fresh:
                    break
                self.jac = None
            elif k > 0 and self.jac is not None:
                # Broyden's update of Phi's Jacobian from the last two evaluations: the
                # Jacobian is differenced again only when Newton slows down
                dz, dphi = z1 - zprev, (r + z1) - (rlast + zprev)
                nz = float(dz @ dz)
                if nz > 0:
                    self.jac += np.outer(dphi - self.jac @ dz, dz) / nz
            if self.jac is None:
                self.jac = self.jacobian(t, dt, y0, z1, out[zi], scale)
                self.jac_dt = dt
                fresh = True
            rprev = rn
            zprev, rlast = z1, r
            try:
                z1 = z1 + np.linalg.solve(self.eye - self.jac, r)
            except np.linalg.LinAlgError:
                break
        self.jac = None
        if best is not None:
            # Newton stalled (a kink of a contact law between the iterates) but an iterate is
            # consistent within the coupling tolerance itself: that one is taken
            out, onew = self.phi(t, dt, y0, best[1], m.held)
            self.stats["ijcsa_stalled"] += 1
            return out, onew
        self.stats["ijcsa_not_converged"] += 1
        where = ""
        if len(zi) and np.all(np.isfinite(r)):
            where = self.connection(int(zi[int(np.argmax(np.abs(r) / scale))]))
        raise NotConverged(t, dt, rn, where)

    def _advance_c(self, t: float, t1: float, y0: np.ndarray) -> tuple[np.ndarray, dict]:
        """:meth:`advance` in C (``wc_advance`` of :mod:`wearcosim.fmi.cloop`: the same
        prediction, evaluations, updates and decisions, and the step's :meth:`error`); an FMI
        call that fails there is repeated by the Python iteration, which raises it with the
        component's log."""
        import ctypes
        m = self.m
        phi, arr, seq, _, _, _, adv = self.fast
        nw = self.nw
        nw.max_iter, nw.kappa, nw.slow, nw.jac_range = MAX_ITER, KAPPA, SLOW, JAC_RANGE
        hist = self.hist[-4:]
        nw.n_hist = len(hist)
        for i, (th, yh) in enumerate(hist):
            nw.hist_t[i] = th
            nw.hist_y[i] = yh.ctypes.data
        nw.order, nw.rtol, nw.t1 = self.order, m.rtol, t1
        dt = t1 - t
        nw.runmax, nw.atol = m.runmax.ctypes.data, m.atol.ctypes.data
        self.dirty = False
        self._sync_states()
        before = (nw.evaluations, nw.restores, nw.iterations, nw.jacobians, nw.fd_evaluations, nw.stalled,
                  nw.not_converged)
        out = np.empty(len(y0))
        st = adv(ctypes.addressof(arr), len(arr), seq.ctypes.data, len(seq), ctypes.addressof(nw), t, dt,
                 y0.ctypes.data, self.nw_z.ctypes.data, out.ctypes.data, m.held.ctypes.data, self.d1.ctypes.data,
                 self.d2.ctypes.data)
        after = (nw.evaluations, nw.restores, nw.iterations, nw.jacobians, nw.fd_evaluations, nw.stalled,
                 nw.not_converged)
        delta = [a - b for a, b in zip(after, before)]
        for key, d in zip(("ijcsa_evaluations", "rollbacks", "ijcsa_iterations", "ijcsa_jacobians",
                           "ijcsa_fd_evaluations", "ijcsa_stalled", "ijcsa_not_converged"), delta):
            if d:
                self.stats[key] += d
        ev, rs = delta[0], delta[1]
        if self.counts is None:
            self.counts = self._counts()
        c = m.calls
        for name, v in self.counts.items():
            c[name] += v * ev
        c["fmi2SetFMUstate"] += rs * len(arr)
        for u in m.units:
            u.time = t + dt
        self.dirty = ev > 0
        if st == 0 or st == 1:
            self.err_c = (out, dt, float(nw.err))
            return out, m.other
        if st == 2:
            where = self.connection(int(nw.worst)) if nw.worst >= 0 else ""
            raise NotConverged(t, dt, float(nw.residual), where)
        # a failing FMI call: the Python iteration repeats the step and raises it with the log
        for u in m.units:
            u.restore()
        self.python = True
        try:
            return self.advance(t, t1)
        finally:
            self.python = False
            self.state_sync = True

    def _sync_states(self) -> None:
        """The C units' saved-state pointers from the components' (after they saved one by one)."""
        if self.state_sync:
            arr = self.fast[1]
            for i, u in enumerate(self.m.units):
                arr[i].state = u.state.value if u.state is not None else None
            self.state_sync = False

    def _counts(self) -> dict:
        """The FMI calls of one evaluation in C (:meth:`_phi_c`, ``wc_advance``)."""
        return {"fmi2DoStep": len(self.seq),
                "fmi2SetReal": sum(1 + bool(u.feedthrough) for u in self.seq if len(u.in_real_vr)),
                "fmi2SetRealInputDerivatives": sum((1 + u.order2) for u in self.seq
                                                   if u.interp and len(u.in_real_vr)),
                "fmi2GetReal": sum(1 for u in self.seq if len(u.out_real_vr))}

    def connection(self, index: int) -> str:
        """``"<source> -> <destination>[, ...]"`` of the exchanged value ``index``."""
        m = self.m
        src = next(k for k, i in m.index.items() if i == index)
        name = (lambda e: f"{e[0]}.{e[1]}" if e[0] is not None else e[1])
        dsts = [name(d) for s, d, typ in m.flows if s == src and typ == "Real"]
        return f"{name(src)} -> {', '.join(dsts)}"

    def start(self, t0: float) -> None:
        """After initialisation: the interpolation order (2 when every component with states
        that takes inputs interpolates them and accepts second derivatives -- probed once with
        zeros), the history, the discrete outputs' reference."""
        m = self.m
        ok = True
        for u in self.seq:
            if u.n_states == 0 or not len(u.in_real_vr):
                continue
            if not u.interp:
                ok = False
                continue
            try:
                s, vrs = u.slave, list(u.in_real_vr)
                u.runner._call("fmi2SetRealInputDerivatives",
                               lambda: s.setRealInputDerivatives(vrs, [2] * len(vrs), [0.0] * len(vrs)))
                u.order2 = True
            except Exception:
                ok = False
        self.order = 2 if ok and ORDER >= 2 else 1
        m.p = self.order
        self.counts = None
        if self.fast is not None:
            for i, u in enumerate(m.units):
                self.fast[1][i].order2 = int(u.order2)
        self.hist = [(t0, m.y.copy())]
        self.accept_discrete()

    def accepted(self, t1: float, new: np.ndarray) -> None:
        """An accepted step: its end is the next step's start (history of four points)."""
        self.hist.append((t1, new.copy()))
        del self.hist[:-4]
        self.accept_discrete()

    def discrete_values(self, fresh: bool = False) -> np.ndarray:
        """The components' discrete outputs after the last evaluation (read by it, in C), or
        now through FMI calls (``fresh``, or the Python loop)."""
        if self.fast is not None and not fresh:
            return np.concatenate([v.astype(float) for v in self.disc_views]) if self.disc_views else np.zeros(0)
        vals = [float(x) for u, groups in self.discrete for typ, vrs in groups for x in u.get_values(typ, vrs)]
        return np.array(vals)

    def save(self) -> bool:
        """fmi2GetFMUstate of every component in one C call; False: not available (the master
        saves them one by one)."""
        import ctypes
        from fmpy.fmi2 import fmi2FMUstate
        if self.fast is None or self.fast[5] is None:
            return False
        m = self.m
        arr, failed = self.fast[1], self.fast[4]
        if self.fast[5](ctypes.addressof(arr), len(arr), ctypes.byref(failed)):
            return False                         # the Python path repeats it and raises with the log
        for i, u in enumerate(m.units):
            if u.state is None:
                u.state = fmi2FMUstate()
            u.state.value = arr[i].state
            u.saved_time = u.time
            u.last_in = None                     # the C evaluations set inputs behind its back
        m.calls["fmi2GetFMUstate"] += len(arr)
        return True

    def event_in_step(self) -> bool:
        """Whether a discrete output changed over the step just taken (an event inside it);
        the values are kept as the reference of the next step when it did not."""
        if not self.discrete:
            return False
        now = self.discrete_values()
        if self.last_discrete is None:
            self.last_discrete = now
            return False
        return not np.array_equal(now, self.last_discrete)

    def accept_discrete(self) -> None:
        """The step is accepted: its discrete outputs are the next step's reference."""
        if self.discrete:
            self.last_discrete = self.discrete_values(fresh=self.last_discrete is None)

    def predict(self, t1: float) -> np.ndarray:
        """The unknowns at t1 extrapolated through the last (up to three) accepted points."""
        zi = self.zi
        pts = self.hist[-3:]
        z = np.zeros(len(zi))
        for j, (tj, yj) in enumerate(pts):            # Lagrange
            w = 1.0
            for k, (tk, _) in enumerate(pts):
                if k != j:
                    w *= (t1 - tk) / (tj - tk)
            z += w * yj[zi]
        return z

    def error(self, new: np.ndarray, dt: float) -> float:
        """The step's interpolation error over its tolerance (module docstring): the
        difference at mid-step between the polynomial the inputs followed and the one of
        next higher order through one more accepted point."""
        if self.err_c is not None and self.err_c[0] is new and self.err_c[1] == dt:
            return self.err_c[2]                       # computed by wc_advance
        m = self.m
        c = self.z
        if not c.any():
            return 0.0
        t1 = self.hist[-1][0] + dt
        pts = self.hist[-(self.order + 1):] + [(t1, new)]
        if len(pts) < self.order + 2:
            pts = self.hist[-2:] + [(t1, new)]
        if len(pts) < 3:
            e = np.abs(new[c] - m.y[c]) / 2.0
        else:
            # the divided difference over all points, as weights of the values (1 / prod of the
            # node differences), times the node polynomial of the interpolant used at mid-step
            ts = [p[0] for p in pts]
            tm = t1 - dt / 2
            w = 1.0
            for tj in ts[1:]:
                w *= tm - tj
            acc = None
            for j, (tj, yj) in enumerate(pts):
                den = 1.0
                for k, tk in enumerate(ts):
                    if k != j:
                        den *= tj - tk
                term = yj[c] * (w / den)
                acc = term if acc is None else acc + term
            e = np.abs(acc)
        scale = m.rtol * np.maximum(m.runmax[c], np.abs(new[c])) + m.atol[c]
        r = np.where(e == 0, 0.0, e / scale)                 # (inside the master's np.errstate)
        return float(r.max())
