"""The implicit coupling step of the co-simulation master (``algorithm="ijcsa"``): interface
Jacobians and Newton's method on the exchanged values.

The problem
    Over a communication step [t, t+h] every component advances its own state with its own
    solver, from inputs the master gives it.  A co-simulation that holds the inputs at their
    values from t (Jacobi, Gauss-Seidel) integrates the coupling *explicitly*: across a stiff
    contact (a force that changes by its whole range while the journal moves a micrometre)
    it is stable only for steps far below the contact's period, and is silently wrong above
    them.

The coupling step
    The unknowns are the exchanged Real values at the end of the step, the vector ``y1``
    (one entry per source: a component output or a system input).  For a candidate ``y1``,
    :meth:`Implicit.phi` restores every component to its state at t, gives it inputs that
    go linearly from their values at t to the candidate's (with ``fmi2SetRealInputDerivatives``
    when the FMU declares ``canInterpolateInputs``; otherwise the mean of both ends, held:
    the same integral over the step), steps it, sets the end values of its inputs (an output
    with direct feedthrough reads them) and reads its outputs: ``Phi(y1)``.  The step is
    consistent when ``y1 = Phi(y1)``, which is the trapezoidal rule on the interface.  It is
    solved by Newton's method,

        (I - dPhi/dy1) dy = Phi(y1) - y1,

    with the *interface Jacobian* ``dPhi/dy1`` assembled per component from the block of
    its outputs against the sources of its inputs:

    * a component without continuous states that provides directional derivatives: its
      outputs at t+h are functions of its inputs at t+h, and the block is
      ``fmi2GetDirectionalDerivative`` (exact; one call per source);
    * any other component: the step's sensitivity by finite differences -- restore, step
      with one source perturbed, difference (one step per source).

    The Jacobian is kept while Newton converges (a simplified Newton, as in implicit
    integrators) and evaluated again when it does not or when the step size has changed by
    more than a factor of two since it was evaluated.  Newton starts from the linear
    extrapolation of the last two exchanged values and stops when the residual
    ``Phi(y1) - y1`` is below :data:`KAPPA` times the coupling tolerance; the components'
    states are those of the last evaluation, whose outputs are taken as the values at t+h.
    A step on which Newton does not converge in :data:`MAX_ITER` evaluations with a fresh
    Jacobian is redone with half the size (rollback).

Error estimate
    Over an accepted step the inputs were linear in time; the exact coupled values are not.
    The interpolation error at mid-step is ``h**2/8 |y''|``, with ``y''`` the second divided
    difference through the last three exchanged values; its ratio to
    ``rtol_coupling*max|y| + atol_coupling`` (largest over the values that feed inputs) is the
    step's error, which the master's step-size control uses like the explicit algorithms'
    (exponent 1/2: the error scales with h**2).  The first step, and the first one after a
    jump, have no divided difference: the bound ``|y1 - y0|/2`` is used.
"""
from __future__ import annotations

from typing import Any

import numpy as np

#: Newton stops when the residual is below this fraction of the coupling tolerance
KAPPA = 1e-3
#: evaluations of Phi on one step before it is given up (with a fresh Jacobian)
MAX_ITER = 6
#: a residual that does not shrink by this factor per iteration asks for a fresh Jacobian
SLOW = 0.3


class NotConverged(Exception):
    """Newton's method did not converge on a coupling step (the master redoes it smaller)."""

    def __init__(self, t: float, dt: float, residual: float):
        super().__init__(f"the implicit coupling step at t = {t:.9g} of {dt:.3g} s did not converge "
                         f"(residual {residual:.3g} x the tolerance)")
        self.t, self.dt, self.residual = t, dt, residual


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
            u.dd = bool(getattr(cs, "providesDirectionalDerivative", False))
        # the unknowns: the values that feed components with states (a component without states
        # computes its outputs at t+h from its inputs at t+h: it is evaluated, not iterated)
        self.z = np.zeros(n, dtype=bool)
        for u in master.units:
            if u.n_states > 0 and len(u.in_real_src):
                self.z[u.in_real_src] = True
        self.zi = np.flatnonzero(self.z)
        self.eye = np.eye(len(self.zi))
        seq = list(dict.fromkeys(master.order))
        self.seq = [u for u in seq if u.n_states > 0] + [u for u in seq if u.n_states == 0]
        self.fast = self._fast()

    def _fast(self) -> Any:
        """The evaluation in C (``wc_phi`` of :mod:`wearcosim.fmi.cloop`) when it can be built
        and every exchanged value is Real; None: the Python loop (same calls, same results)."""
        import ctypes
        import os
        from ..fmi import cloop
        m = self.m
        if os.environ.get("WEARCOSIM_NO_CLOOP", "") not in ("", "0"):
            return None
        if any(u.in_other or u.out_other for u in m.units):
            return None
        phi = cloop.load_phi()
        if phi is None:
            return None
        index = {id(u): i for i, u in enumerate(m.units)}
        arr = (cloop.Unit * len(m.units))()
        keep = []

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
                             ("get_real", "fmi2GetReal")):
                setattr(c, name, ctypes.cast(getattr(dll, fn), ctypes.c_void_p).value)
            c.interp, c.feedthrough = int(u.interp), int(bool(u.feedthrough))
            c.n_in, c.n_out, c.held_off = len(u.in_real_vr), len(u.out_real_vr), int(getattr(u, "held_off", 0))
            c.in_vr = buf(u.in_real_vr, np.uint32)
            c.in_src = buf(u.in_real_src, np.int64)
            c.out_vr = buf(u.out_real_vr, np.uint32)
            c.out_dst = buf(u.out_real_dst, np.int64)
            c.scratch = buf(np.zeros(2 * max(1, len(u.in_real_vr))), np.float64)
            c.out_buf = buf(np.zeros(max(1, len(u.out_real_vr))), np.float64)
            c.ones = buf(np.ones(max(1, len(u.in_real_vr))), np.int32)
        seq = np.array([index[id(u)] for u in self.seq], dtype=np.int64)
        keep.append(seq)
        return phi, arr, seq, keep, ctypes.c_long(0)

    # -- one component over the step
    def _step_unit(self, u: Any, t: float, dt: float, a: np.ndarray, b: np.ndarray, other: dict,
                   out: np.ndarray, held: np.ndarray | None) -> None:
        """Inputs from ``a`` (at t) to ``b`` (at t+dt), linear when the FMU interpolates, else
        their mean held; step; the end values set; the outputs read into ``out``."""
        m = self.m
        if len(a):
            if u.interp:
                u.set_real_inputs(a)
                s = u.slave
                d = ((b - a) / dt).tolist()
                m.calls["fmi2SetRealInputDerivatives"] += 1
                u.runner._call("fmi2SetRealInputDerivatives",
                               lambda: s.setRealInputDerivatives(list(u.in_real_vr), [1] * len(d), d))
            else:
                u.set_real_inputs((a + b) / 2)
            if held is not None:
                held[u.held_off:u.held_off + len(a)] = (a + b) / 2
        for typ, vr, key in u.in_other:
            m._set_other(u, typ, vr, other[key])
        u.do_step(t, dt)
        if len(a) and u.feedthrough:
            u.set_real_inputs(b)
        if u.out_real_vr:
            out[u.out_real_dst] = u.get_values("Real", u.out_real_vr)

    def phi(self, t: float, dt: float, y0: np.ndarray, z1: np.ndarray, held: np.ndarray | None = None
            ) -> tuple[np.ndarray, dict]:
        """Every component over [t, t+dt]: those with states from the candidate end values
        ``z1`` of their inputs, then those without, from the outputs just computed.  Returns the
        exchanged values at t+dt and the Integer/Boolean ones."""
        m = self.m
        out = y0.copy()
        out[self.zi] = z1
        if self.fast is not None:
            work = out.copy()
            if self._phi_c(t, dt, y0, work, held):
                return work, m.other
        if self.dirty:
            for u in m.units:
                u.restore()
            self.stats["rollbacks"] += 1
        self.dirty = True
        onew = dict(m.other)
        for u in self.seq:
            src = u.in_real_src
            self._step_unit(u, t, dt, y0[src], out[src], m.other, out, held)
            for typ, vr, key in u.out_other:
                onew[key] = u.get_values(typ, [vr])[0]
        self.stats["ijcsa_evaluations"] += 1
        return out, onew

    def _phi_c(self, t: float, dt: float, y0: np.ndarray, out: np.ndarray, held: np.ndarray | None) -> bool:
        """:meth:`phi` in C; False when a call failed (the Python loop then repeats the
        evaluation and raises the error with the component's log)."""
        import ctypes
        m = self.m
        phi, arr, seq, _, failed = self.fast
        restore = self.dirty
        if restore:
            self.stats["rollbacks"] += 1
        for i, u in enumerate(m.units):
            arr[i].state = u.state.value if u.state is not None else None
        h = held.ctypes.data if held is not None else None
        st = phi(ctypes.addressof(arr), len(arr), seq.ctypes.data, len(seq), int(restore), t, dt,
                 y0.ctypes.data, out.ctypes.data, h, ctypes.byref(failed))
        self.dirty = True
        for u in m.units:
            u.last_in = None
            u.time = t + dt
        n = len(m.units)
        c = m.calls
        if restore:
            c["fmi2SetFMUstate"] += n
        c["fmi2DoStep"] += len(seq)
        c["fmi2SetReal"] += sum(1 + u.feedthrough for u in self.seq if len(u.in_real_vr))
        c["fmi2SetRealInputDerivatives"] += sum(1 for u in self.seq if u.interp and len(u.in_real_vr))
        c["fmi2GetReal"] += sum(1 for u in self.seq if len(u.out_real_vr))
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
        if m.have_prev:
            z1 = y0[zi] + (y0[zi] - m.yprev[zi]) * (dt / m.hprev)
        else:
            z1 = y0[zi].copy()
        scale = m.rtol * np.maximum(m.runmax[zi], np.abs(y0[zi])) + m.atol[zi]
        scale = np.where(scale > 0, scale, 1.0)
        if self.jac is not None and not (0.5 <= dt / self.jac_dt <= 2.0):
            self.jac = None
        self.dirty = False
        fresh = False
        rprev = rn = np.inf
        for k in range(MAX_ITER):
            out, onew = self.phi(t, dt, y0, z1, m.held)
            r = out[zi] - z1
            rn = float(np.max(np.abs(r) / scale)) if len(r) else 0.0
            if rn <= KAPPA:
                self.stats["ijcsa_iterations"] += k + 1
                return out, onew
            if k > 0 and rn > SLOW * rprev:
                if fresh:
                    break
                self.jac = None
            if self.jac is None:
                self.jac = self.jacobian(t, dt, y0, z1, out[zi], scale)
                self.jac_dt = dt
                fresh = True
                # the units are now at a perturbed evaluation: the next phi restores them
            rprev = rn
            try:
                z1 = z1 + np.linalg.solve(self.eye - self.jac, r)
            except np.linalg.LinAlgError:
                break
        self.stats["ijcsa_not_converged"] += 1
        self.jac = None
        raise NotConverged(t, dt, rn)

    def error(self, new: np.ndarray, dt: float) -> float:
        """The step's interpolation error over its tolerance (module docstring)."""
        m = self.m
        c = self.z
        if not c.any():
            return 0.0
        y0 = m.y
        if m.have_prev:
            d2 = 2.0 * ((new - y0) / dt - (y0 - m.yprev) / m.hprev) / (dt + m.hprev)
            e = dt * dt / 8.0 * np.abs(d2)
        else:
            e = np.abs(new - y0) / 2.0
        scale = m.rtol * np.maximum(m.runmax, np.abs(new)) + m.atol
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(e[c] == 0, 0.0, e[c] / scale[c])
        return float(np.max(r))
