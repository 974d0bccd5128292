"""Benchmark peer (not library code): SUNDIALS CVODES through CasADi's ``integrator`` on the
exporter's own equations.

The exporter turns a model into CasADi SX functions (:func:`wearcosim.export.codegen.build_functions`):
``deriv`` (state derivatives and event indicators), ``eval`` (derivatives, outputs, discrete
algebraics), ``rel`` (relation values), ``cond`` / ``fire`` (when-clauses), ``params`` and
``init`` (initialisation).  :class:`CvodesPeer` integrates exactly those equations with CVODES
(BDF or Adams, CasADi's ``cvodes`` plugin) and handles the events the way an FMI importer does,
by restarting at crossings.

Compiled or interpreted (``compiled``).  Compiled (the default, and the run the benchmark's
acceptance uses): every function the peer evaluates -- the ODE right-hand side and the
Jacobian CVODES asks for (CasADi's ``jit`` of the integrators' functions), the event
indicators, the outputs and the event iteration's functions -- is generated as C by CasADi and
compiled with the FMU's flags, ``gcc -O2 -std=c99 -ffp-contract=off`` (+ ``-fPIC``, linked
``-shared``), when the peer is built: set-up, outside the timed runs, like the FMU's
compilation.  Interpreted: the same SX functions in CasADi's virtual machine, no code
compiled (reported beside the compiled run, never instead).  The compiled run saves 15-22 % on
the benchmark's mechanisms (the right-hand side is a small part of CVODES' time there: its
own linear algebra, step control and CasADi's call overhead per integrator call are the rest)
and about half on the 61-state rotor (docs/benchmarks.md, 2026-12-06); the point is equal
terms: our FMU's model code is compiled C, so is the peer's.

Events:

* the output grid is integrated in chunks of ``chunk`` grid intervals (one integrator call per
  chunk, outputs at the grid points);
* after each chunk the event indicators are evaluated at its grid points; at the first sign
  change the crossing is bracketed more finely by integrating again from the last point before
  it with ``SAMPLES`` outputs across the bracket, level by level, until the bracket is shorter
  than ``EVENT_RESOLUTION`` x the grid interval; the event is applied at the bracket's right end
  (just after the crossing, as the runtime does: the indicators have hysteresis, see
  :mod:`wearcosim.export.events`);
* the event is the runtime's event iteration (``mdl_event`` in ``fmu/templates/model.c.in``):
  pre values <- values, relation memories re-evaluated, outputs, when-conditions, when-equations,
  repeated until nothing changes; then CVODES restarts from the event.

A contact shorter than one grid interval would be missed (indicators are sampled on the
grid); on the benchmark's cases the shortest contact lasts more than 3 grid intervals.  Models
with nonlinear loops (Newton unknowns) are not supported.

Time is scaled inside each call (``t = a + b tau``, tau = 1, 2, ... at the outputs), so that three
integrators built once (chunk, bracket, single interval) serve every call: building them is
set-up, like compiling an FMU, and is not part of :meth:`CvodesPeer.simulate`.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import casadi as ca
import numpy as np

#: outputs per bracketing call when an event is located
SAMPLES = 32
#: an event is located to this fraction of the grid interval
EVENT_RESOLUTION = 1e-7
#: event iteration passes before giving up (the runtime's RT_MAX_EVENT_ITER is of this order)
MAX_EVENT_PASSES = 20
#: C compiler and flags of the compiled peer: the FMU's (wearcosim.export.package), CasADi's
#: "shell" compiler adds -fPIC when compiling and -shared when linking
CC = "gcc"
CFLAGS = ("-O2", "-std=c99", "-ffp-contract=off")


#: the compiler front end of the compiled peer: CasADi's shell compiler calls it as
#: ``<it> FLAGS -fPIC -c SRC.c -o OBJ.o``; it compiles with CC unless an object of the same
#: source and flags is in the folder's cache (the integrators of every rung of a ladder, and the
#: chunk, bracket and single-interval integrators of one rung, generate the same C)
_CC_SCRIPT = """#!/bin/sh
src=; obj=; prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && obj=$a
  case "$a" in *.c) src=$a ;; esac
  prev=$a
done
key=$( { for a in "$@"; do case "$a" in *.c|*.o) ;; *) echo "$a" ;; esac; done; cat "$src"; } | sha1sum | cut -c1-40)
cache=$(dirname "$0")/objects
if [ -f "$cache/$key.o" ]; then cp "$cache/$key.o" "$obj"; exit 0; fi
%s "$@" || exit 1
mkdir -p "$cache" && cp "$obj" "$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key.o"
"""


class JitFolder:
    """A temporary folder for compiled peers' objects, with the compiler front end in it; one
    may serve several peers (a contender's rungs), which then share its object cache.
    :meth:`cleanup` removes it (also when the object is garbage-collected); functions compiled
    into it keep working (their shared objects stay mapped)."""

    def __init__(self) -> None:
        import os
        import shutil
        import tempfile
        import weakref
        self.path = tempfile.mkdtemp(prefix="wc_cvodes_jit_")
        self.cc = os.path.join(self.path, "cc")
        with open(self.cc, "w") as f:
            f.write(_CC_SCRIPT % CC)
        os.chmod(self.cc, 0o755)
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)

    def options(self) -> dict[str, Any]:
        """CasADi function options that compile a function's generated C with :data:`CC` and
        :data:`CFLAGS` (+ ``-fPIC``; linked ``-shared``) into a shared object in this folder
        when the function is created; an object of the same C source and flags compiled
        before in this folder is reused."""
        return {"jit": True, "compiler": "shell", "jit_cleanup": False,
                "jit_options": {"compiler": self.cc, "linker": CC, "flags": list(CFLAGS), "directory": self.path,
                                "cleanup": False}}

    def cleanup(self) -> None:
        """Remove the folder (idempotent)."""
        self._finalizer()


def _compiled(f: Any, opts: dict[str, Any]) -> Any:
    """The SX function ``f`` again, with ``opts`` (:func:`jit_options`): the same expressions,
    evaluated by compiled C instead of CasADi's virtual machine."""
    ins = f.sx_in()
    return ca.Function(f.name() + "_c", ins, f.call(ins), f.name_in(), f.name_out(), opts)


@dataclass
class CvodesStats:
    """Counters of one :meth:`CvodesPeer.simulate` run (summed over the integrator calls)."""
    nfev: int = 0           #: right-hand side evaluations (CVODES ``nfevals``)
    nsteps: int = 0         #: internal steps
    njev: int = 0           #: Jacobian evaluations (BDF: CasADi's analytic Jacobian)
    calls: int = 0          #: integrator calls
    events: int = 0         #: events applied
    extra: dict = field(default_factory=dict)


def functions_of(model: str, package_dir: Path | None = None) -> Any:
    """The exporter's :class:`~wearcosim.export.codegen.Generated` functions of ``model`` (a
    class of the library's package unless ``package_dir`` is given)."""
    from ..export.build import DEFAULT_PACKAGE, generate, model_path
    pkg = Path(package_dir) if package_dir is not None else DEFAULT_PACKAGE
    return generate(model, model_path(pkg, model))[2]


class CvodesPeer:
    """CVODES (``method``: ``"bdf"`` or ``"adams"``) on the exporter's functions of a model;
    :meth:`simulate` returns the named outputs on a uniform grid.

    ``rtol`` None: CVODES' defaults as CasADi sets them (reltol 1e-6, abstol 1e-8), else
    ``rtol`` and ``atol`` (default 1e-3 x rtol, as the CS FMU's).  ``compiled``: the functions
    compiled to C at construction (module docstring; needs ``gcc``) into ``jit`` (a
    :class:`JitFolder` several peers may share) or a folder of its own, else interpreted by
    CasADi's virtual machine."""

    def __init__(self, gen: Any, signals: Sequence[str], stop: float, n: int, rtol: float | None,
                 method: str = "bdf", atol: float | None = None, chunk: int = 16, compiled: bool = True,
                 jit: JitFolder | None = None) -> None:
        from ..export import codegen
        L, F = gen.layout, gen.functions
        if L.n["W"]:
            raise ValueError("models with nonlinear loops are not supported by the CVODES peer")
        self.compiled = bool(compiled)
        #: where the compiled objects are: ``jit`` (the caller's, shared) or a folder of its own,
        #: removed by :meth:`close` or when the peer is garbage-collected
        self.jit_folder = (jit or JitFolder()) if self.compiled else None
        self._own_folder = self.compiled and jit is None
        jit = self.jit_folder.options() if self.compiled else {}
        if jit:
            F = {k: _compiled(f, jit) if k in ("eval", "rel", "cond", "fire", "params", "init") else f
                 for k, f in F.items()}
        self.L, self.F, self.stop, self.n = L, F, float(stop), int(n)
        self.split = bool(gen.split_eval)
        self.dt = self.stop / self.n
        self.method = method
        self.chunk = max(1, min(int(chunk), self.n))
        nx, nv = L.n["X"], L.NV
        self.nx, self.ox = nx, L.off["X"]
        names = [s.name for s in L.slots]
        # where each signal is in wc_eval's output (dx unless split, y, discrete algebraics)
        eval_rows = ([] if gen.split_eval else list(range(L.off["DX"], L.off["DX"] + nx))) + \
            list(range(L.off["Y"], L.off["Y"] + L.n["Y"])) + list(range(L.off["D"], L.off["D"] + L.n["DALG"]))
        self.signals = list(signals)
        picks = []                  # per signal: ("x", i) state, ("e", i) row of wc_eval, ("v", k) slot
        for s in self.signals:
            if s not in names:
                raise KeyError(f"no variable {s!r} in the model")
            k = names.index(s)
            if self.ox <= k < self.ox + nx:
                picks.append(("x", k - self.ox))
            elif k in eval_rows:
                picks.append(("e", eval_rows.index(k)))
            else:
                picks.append(("v", k))
        # start vector as wc_start: numeric start values, 0 elsewhere
        v = np.zeros(nv)
        for k, s in enumerate(L.slots):
            num = codegen.to_num(s.start) if s.start is not None else None
            if num is not None:
                v[k] = float(num)
        self.v_start = v
        # scaled time: t = a + b tau
        x = ca.SX.sym("x", nx)
        P = ca.SX.sym("V", nv)
        a, b, tau = ca.SX.sym("a"), ca.SX.sym("b"), ca.SX.sym("tau")
        V = ca.vertcat(P[:self.ox], x, P[self.ox + nx:])
        t = a + b * tau
        dz = F["deriv"](V, t, 0)
        ode = b * dz[:nx]
        dae = {"x": x, "p": ca.vertcat(a, b, P), "t": tau, "ode": ode}
        opts = {"linear_multistep_method": method, "max_num_steps": 10 ** 7, **jit}
        if rtol is not None:
            opts.update(reltol=rtol, abstol=atol if atol is not None else rtol * 1e-3)
        if method == "adams":          # non-stiff: fixed-point iteration, no Jacobian
            opts["nonlinear_solver_iteration"] = "functional"
        # (compiled: CasADi writes a copy of an integrator's generated C into the current
        # folder too, whatever jit_options' directory says: built from inside the jit folder)
        with contextlib.chdir(self.jit_folder.path) if self.compiled else contextlib.nullcontext():
            self.I_chunk = ca.integrator("chunk", "cvodes", dae, 0.0, [float(k) for k in range(1, self.chunk + 1)],
                                         opts)
            self.I_fine = ca.integrator("fine", "cvodes", dae, 0.0, [float(k) for k in range(1, SAMPLES + 1)], opts)
            self.I_one = ca.integrator("one", "cvodes", dae, 0.0, [1.0], opts)
        tt = ca.SX.sym("t")
        Vt = ca.vertcat(P[:self.ox], x, P[self.ox + nx:])
        G = gen.functions                # the SX functions (F may hold their compiled copies)
        z = G["zc"](Vt, tt, 0)
        ev = G["eval"](Vt, tt, 0)
        src = {"x": x, "e": ev, "v": P}
        y = ca.vertcat(*[src[w][i] for w, i in picks]) if picks else ca.SX(0, 1)
        self.Z = ca.Function("z", [x, tt, P], [z], jit)
        self.Y = ca.Function("y", [x, tt, P], [y], jit)
        # the grid's columns at once: one function of the chunk's (or samples') columns
        self.Zc, self.Zf, self.Yc = (_compiled(f, jit) if jit else f
                                     for f in (self._mapped(x, tt, P, z, self.chunk, "zc"),
                                               self._mapped(x, tt, P, z, SAMPLES, "zf"),
                                               self._mapped(x, tt, P, y, self.chunk, "yc")))
        self.stats = CvodesStats()

    def close(self) -> None:
        """Remove the compiled objects' folder if the peer made it (a shared one is its
        owner's to remove)."""
        if self._own_folder and self.jit_folder is not None:
            self.jit_folder.cleanup()

    @staticmethod
    def _mapped(x: Any, t: Any, P: Any, out: Any, m: int, name: str) -> Any:
        """An SX function of (X [nx, m], t [m], P) giving ``out`` of (x, t, P) column by column."""
        return ca.Function(name, [x, t, P], [out]).map(m).expand()



    # -------------------------------------------------------------- numeric model steps
    def _sl(self, name):
        return slice(self.L.off[name], self.L.off[name] + self.L.n[name])

    def _num(self, f, v, t, init=0.0):
        return np.asarray(f(v, t, init)).ravel()

    def _eval(self, v, t, init=0.0):
        L, nx = self.L, self.nx
        out = self._num(self.F["eval"], v, t, init)
        if not self.split:
            v[self._sl("DX")] = out[:nx]
            out = out[nx:]
        v[self._sl("Y")] = out[:L.n["Y"]]
        v[L.off["D"]:L.off["D"] + L.n["DALG"]] = out[L.n["Y"]:]

    def initial(self) -> np.ndarray:
        """The value vector after initialisation and the initial event iteration
        (``mdl_calc_params``, ``mdl_initialize``, then event passes with initial() true)."""
        L, nx = self.L, self.nx
        v = self.v_start.copy()
        if L.n["P_CALC"]:
            o = L.off["P"] + L.n["P_INDEP"]
            v[o:o + L.n["P_CALC"]] = self._num(self.F["params"], v, 0.0)
        out = self._num(self.F["init"], v, 0.0, 1.0)
        nd, ndalg = L.n["D"], L.n["DALG"]
        v[self._sl("X")] = out[:nx]
        v[L.off["D"] + ndalg:L.off["D"] + nd] = out[nx + ndalg:nx + nd]
        if L.n["M"]:
            for _ in range(2):
                self._eval(v, 0.0)
                v[self._sl("M")] = self._num(self.F["rel"], v, 0.0, 1.0)
            v[self._sl("MPRE")] = v[self._sl("M")]
        self._eval(v, 0.0)
        if L.n["C"]:
            v[self._sl("C")] = self._num(self.F["cond"], v, 0.0, 0.0)
            v[self._sl("CPRE")] = v[self._sl("C")]
        v[self._sl("DPRE")] = v[self._sl("D")]
        return self.event(v, 0.0, initial=True)

    def event(self, v: np.ndarray, t: float, initial: bool = False) -> np.ndarray:
        """The runtime's event iteration at time ``t`` on value vector ``v`` (a copy is
        returned): passes until relation memories, when-conditions and discrete values no
        longer change."""
        L, nx = self.L, self.nx
        v = v.copy()
        init = 1.0 if initial else 0.0
        nd, ndalg = L.n["D"], L.n["DALG"]
        ndisc = nd - ndalg
        for _ in range(MAX_EVENT_PASSES):
            v[self._sl("DPRE")] = v[self._sl("D")]
            v[self._sl("MPRE")] = v[self._sl("M")]
            v[self._sl("CPRE")] = v[self._sl("C")]
            if L.n["M"]:
                v[self._sl("M")] = self._num(self.F["rel"], v, t, init)
            self._eval(v, t)
            if L.n["C"]:
                v[self._sl("C")] = self._num(self.F["cond"], v, t, init)
            f = self._num(self.F["fire"], v, t, init)
            v[L.off["D"] + ndalg:L.off["D"] + nd] = f[:ndisc]
            if f[ndisc + nx] != 0.0:
                v[self._sl("X")] = f[ndisc:ndisc + nx]
            self._eval(v, t)
            same = all(np.array_equal(v[self._sl(a)], v[self._sl(b)]) for a, b in (("M", "MPRE"), ("C", "CPRE"), ("D", "DPRE")))
            if same:
                return v
        raise RuntimeError(f"event iteration does not converge at t={t!r}")

    # -------------------------------------------------------------- integration
    def _call(self, I, x0, a, b, v):
        r = I(x0=x0, p=np.concatenate(([a, b], v)))
        st = I.stats()
        s = self.stats
        s.calls += 1
        s.nfev += int(st.get("nfevals", 0))
        s.nsteps += int(st.get("nsteps", 0))
        s.njev += int(st.get("n_call_jacF", 0))
        return np.asarray(r["xf"])

    def _locate(self, tl, xl, tr, zl, v):
        """Bracket the first sign change of the indicators in (tl, tr]: (t just after the
        crossing, state there)."""
        width = tr - tl
        xr = None
        while width > EVENT_RESOLUTION * self.dt or xr is None:
            h = width / SAMPLES
            X = self._call(self.I_fine, xl, tl, h, v)
            ts = tl + h * np.arange(1, SAMPLES + 1)
            Z = np.asarray(self.Zf(X, ts, v))
            flip = np.any(np.sign(Z) != np.sign(zl)[:, None], axis=0)
            j = int(np.argmax(flip)) if flip.any() else SAMPLES - 1
            if j > 0:
                tl, xl = ts[j - 1], X[:, j - 1]
                zl = Z[:, j - 1]
            tr, xr = ts[j], X[:, j]
            width = tr - tl
        return tr, xr

    def simulate(self, v0: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Integrate from 0 to ``stop``: (t on the grid, outputs [n_signals, n + 1]); counters
        in :attr:`stats`.  ``v0``: the value vector of :meth:`initial` (computed if omitted)."""
        self.stats = CvodesStats()
        v = (self.initial() if v0 is None else v0).copy()
        n, dt, K = self.n, self.dt, self.chunk
        tg = dt * np.arange(n + 1)
        Y = np.empty((len(self.signals), n + 1))
        x = v[self.ox:self.ox + self.nx].copy()
        Y[:, 0] = np.asarray(self.Y(x, 0.0, v)).ravel()
        t, k = 0.0, 0                    # time, index of the last grid point written
        while k < n:
            z0 = np.asarray(self.Z(x, t, v)).ravel()
            if t == tg[k] and k + K <= n:
                X = self._call(self.I_chunk, x, t, dt, v)
                ts = tg[k + 1:k + K + 1]
                Z = np.asarray(self.Zc(X, ts, v))
                Yk = np.asarray(self.Yc(X, ts, v))
            else:                        # after an event, or the grid's last points: one interval
                X = self._call(self.I_one, x, t, tg[k + 1] - t, v)
                ts = tg[k + 1:k + 2]
                Z = np.asarray(self.Z(X[:, 0], ts[0], v)).reshape(-1, 1)
                Yk = np.asarray(self.Y(X[:, 0], ts[0], v)).reshape(-1, 1)
            flip = np.any(np.sign(Z) != np.sign(z0)[:, None], axis=0)
            if not flip.any():
                m = X.shape[1]
                Y[:, k + 1:k + 1 + m] = Yk
                x, t, k = X[:, -1].copy(), ts[-1], k + m
                continue
            j = int(np.argmax(flip))
            if j > 0:                    # grid points before the crossing are final
                Y[:, k + 1:k + 1 + j] = Yk[:, :j]
                x, t, k = X[:, j - 1].copy(), ts[j - 1], k + j
                z0 = Z[:, j - 1]
            te, xe = self._locate(t, x, ts[j], z0, v)
            v[self.ox:self.ox + self.nx] = xe
            v = self.event(v, te)
            self.stats.events += 1
            x, t = v[self.ox:self.ox + self.nx].copy(), te
            if t >= tg[k + 1]:           # the crossing was at the grid point itself
                Y[:, k + 1] = np.asarray(self.Y(x, t, v)).ravel()
                k += 1
        return tg, Y


__all__ = ["CvodesPeer", "CvodesStats", "JitFolder", "functions_of"]
