"""Random, valid, well-posed Modelica models: seed -> :class:`~.ast.Model`.

A model is a composition of blocks (``BLOCKS``); each block declares its variables and their
equations, reads bounded signals of the blocks before it (always through a bounded function:
``tanh``, ``sin``, ``atan``, ``x/(1+x^2)``), and offers some of its own as signals.  Every block
is stable or bounded over the horizon by construction (damped oscillators, decays, bounded
nonlinearities, contractions for the algebraic loops), and every event comes from a *driver*
(``sin`` of a phase state or of time, a decay, a sawtooth, a falling ball) that crosses its
threshold transversally, so that accurate simulators agree to a tolerance.

What the grammar covers is :data:`COVERAGE`; what it leaves out, :data:`NOT_COVERED`.

Never generated in a valid model (:data:`REFUSED`): the constructs rumoca 0.10.2 refuses and
docs/exporter.md lists as refused -- ``while`` loops and ``break`` in functions, ``mod()``/``rem()``
of a for-index in a subscript, when-equations assigning array elements, reductions and
comprehensions whose range depends on a for-equation index.  The first two appear in the
mutants (``generate(seed, refused=True)``), where a refusal with the construct's line is the
expected answer.
"""
from __future__ import annotations

import math
import random
from typing import Any, Iterator

from . import tree as A
from .tree import Call, IfExp, Num, Op, Ref

PI = Ref("pi")


def add(a: Any, b: Any) -> Op:
    return Op("+", (a, b))


def sub(a: Any, b: Any) -> Op:
    return Op("-", (a, b))


def mul(a: Any, b: Any) -> Op:
    return Op("*", (a, b))


def neg(a: Any) -> Op:
    return Op("neg", (a,))

#: the constructs of docs/exporter.md's "Supported Modelica subset" the generator produces
COVERAGE = [
    "Real/Integer/Boolean parameters and variables, constants, parameter-dependent parameters, discrete Real",
    "top-level outputs (output Real y, algebraic)",
    "arrays (vectors up to 30, 2x2 and 3x3 matrices), array equations der(x) = v, for-equations, ranges with a step",
    "computed subscripts in for-equations: i+1, i-1, N+1-i, div(i+1,2)",
    "array comprehensions {p*sin(i*pi/(N+1)) for i in 1:N}, fill, zeros, ones, linspace, cat as start values; each start/fixed",
    "records (parameter with field modifiers or a record constructor; record input of a function, r.a in equations)",
    "functions: for-loops over a range, if/elseif/else, several outputs (tuple equation, or the first in an expression), "
    "array input a[:] with size(), protected variables, a run-time subscript a[integer(...)]",
    "when/elsewhen (priority of the first branch), pre, edge, change, reinit, initial(); Booleans assigned in when-clauses",
    "initial equations (v = expr, der(v) = 0) for states with fixed = false",
    "parameter-dependent start values",
    "nonlinear algebraic loops (scalar cubic, w = c sin w + e, w + exp(0.3 w) = e, a two-variable contraction)",
    "events from relations: if-expressions, if-equations, when-conditions, time events; noEvent",
    "built-ins: sin cos tanh atan atan2 exp log sqrt abs sign min max mod rem div floor ceil integer sum product "
    "size fill zeros ones identity diagonal transpose cross skew linspace cat smooth; matrix-vector products",
]

NOT_COVERED = [
    "packages, extends, modifiers of components (the generator writes one flat model)",
    "top-level inputs",
    "terminate, assert",
    "sample(start, interval) (tests/export/test_msl38_passes.py covers it)",
    "tan, asin, acos, sinh, cosh in the model (only where they cannot leave their domain would be valid)",
    "sign/floor/ceil/integer/mod/rem/div of continuous signals outside when-clauses (they generate events)",
    "if-equations with different variables in the branches, algorithm sections in the model",
    "nonlinear initial equations beyond der(v) = 0 and v = expr",
    "Evaluate=true and final parameters, protected parameters of the model",
]

#: constructs the valid-model grammar must not produce (rumoca 0.10.2 refuses them; docs/exporter.md)
REFUSED = [
    "while-loops and break in functions",
    "mod()/rem() of a for-index in a subscript",
    "when-equations assigning array elements",
    "reductions/comprehensions whose range depends on a for-equation index",
]


class _Gen:
    def __init__(self, seed: int, max_blocks: int = 6, refused: bool = False):
        self.seed = seed
        self.r = random.Random(seed)
        self.m = A.Model(f"Fz{seed}", seed=seed)
        self.k = 0
        self.signals: list = []       # bounded scalar continuous signals
        self.drivers: list = []       # (expr, lo, hi): oscillating/monotone signals for events
        self.pvals: dict = {}         # parameter name -> value
        self.max_blocks = max_blocks
        self.m.params.append(A.Decl("Real", "pi", prefix="constant", binding=Num(math.pi)))
        self.pvals["pi"] = math.pi
        self.m.stop = self.r.choice([2.0, 2.0, 3.0])
        # constructs rumoca 0.10.2 refuses (docs/exporter.md: while-loops in functions, mod() of a
        # for-index in a subscript): never in a valid model; ``refused=True`` makes them the first
        # choice wherever they fit (the mutants' "refused-construct")
        self.refused_ok = refused
        self.m.dt = self.r.choice([0.02, 0.05])

    # ------------------------------------------------------------------ helpers
    def name(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def u(self, lo, hi, nd=3):
        return round(self.r.uniform(lo, hi), nd)

    def param(self, value, prefix="p", typ="Real"):
        """A parameter of this value: a literal binding, or one computed from an earlier parameter."""
        n = self.name(prefix)
        real = [k for k, v in self.pvals.items() if isinstance(v, float) and k != "pi"]
        if typ == "Real" and real and self.r.random() < 0.3:
            q = self.r.choice(real)
            c = round(self.r.choice([0.5, 2.0, -1.0, 0.25]), 3)
            rest = round(value - c * self.pvals[q], 6)
            b = Op("+", (Op("*", (Num(c), Ref(q))), Num(rest)))
            value = c * self.pvals[q] + rest
        else:
            b = Num(value if typ != "Real" else float(value))
        self.m.params.append(A.Decl(typ, n, prefix="parameter", binding=b))
        self.pvals[n] = value if typ != "Real" else float(value)
        return Ref(n)

    def coef(self, lo, hi):
        v = self.u(lo, hi)
        return self.param(v) if self.r.random() < 0.5 else Num(v)

    def bounded(self, s):
        f = self.r.choice(["tanh", "sin", "atan", "rat", "cos", "min", "abs"])
        if f == "rat":
            return Op("/", (s, Op("+", (Num(1.0), Op("^", (s, Num(2)))))))
        if f == "min":
            return Call("min", (Call("max", (s, Num(-1.0))), Num(1.0)))
        if f == "abs":
            return Call("tanh", (Call("abs", (s,)),))
        return Call(f, (s,))

    def forcing(self, scale=0.3):
        """A bounded function of 0..2 earlier signals (or 0)."""
        if not self.signals or self.r.random() < 0.25:
            return None
        a = self.r.choice(self.signals)
        t = self.bounded(a)
        if len(self.signals) > 1 and self.r.random() < 0.3:
            b = self.r.choice(self.signals)
            t = self.r.choice([Op("*", (t, self.bounded(b))), Call("sin", (Op("-", (a, b)),)),
                               Call("atan2", (self.bounded(a), Op("+", (Num(1.5), self.bounded(b)))))])
        return Op("*", (Num(self.u(-scale, scale)), t))

    def plus(self, e, f):
        return e if f is None else Op("+", (e, f))

    def driver(self):
        """(expr, amplitude range) of a signal that oscillates in [-1, 1] and crosses |c| <= 0.7
        transversally: sin of a phase state or of time."""
        if self.drivers and self.r.random() < 0.5:
            return self.r.choice(self.drivers)
        w = self.u(2.0, 9.0)
        ph0 = self.u(0.0, 3.0)
        if self.r.random() < 0.5:
            ph = self.name("ph")
            b = A.Block("phase", decls=[A.Decl("Real", ph, mods={"start": Num(ph0), "fixed": Num(True)})],
                        eqs=[A.Eq(Call("der", (Ref(ph),)), self.coef(w, w))])
            self.m.blocks.append(b)
            d = Call("sin", (Ref(ph),))
        else:
            d = Call("sin", (Op("+", (Op("*", (Num(w), Ref("time"))), Num(ph0))),))
        self.drivers.append(d)
        return d

    def thr(self):
        return self.u(-0.7, 0.7, 2)

    def dims_start(self, N, n, kind):
        """A start value of an N-vector (N the parameter, n its value)."""
        i = Ref("i")
        opts = ["compr_sin", "each", "fill", "compr_lin"]
        if n >= 2:
            opts += ["linspace", "cat"]
        c = self.r.choice(opts)
        a = self.u(0.05, 0.6)
        if c == "compr_sin":
            amp = self.param(a) if self.r.random() < 0.7 else Num(a)
            return "start", A.Compr(Op("*", (amp, Call("sin", (Op("/", (Op("*", (i, PI)), Op("+", (N, Num(1))))),)))),
                                    "i", Num(1), N)
        if c == "each":
            return ("each start", Num(a)) if self.r.random() < 0.5 else ("start", mul(Num(a), Call("ones", (N,))))
        if c == "fill":
            return "start", Call("fill", (Num(a), N))
        if c == "compr_lin":
            return "start", A.Compr(Op("/", (Op("*", (Num(a), i)), N)), "i", Num(1), N)
        if c == "linspace":
            return "start", Call("linspace", (Num(a), Num(-a / 2), N))
        return "start", Call("cat", (Num(1), A.Arr((Num(a),)), Call("fill", (Num(-a / 2), Op("-", (N, Num(1)))))))

    def sizes(self):
        return self.r.choice([1, 2, 3, 4, 5, 8, 11, 12, 15, 20, 24, 30])

    # ------------------------------------------------------------------ blocks
    def osc_chain(self):
        n = self.sizes()
        N = self.param(n, "N", "Integer")
        x, v = self.name("x"), self.name("v")
        i = Ref("i")
        key, st = self.dims_start(N, n, "x")
        fx = "each fixed"
        vkey, vst = self.r.choice([("start", Call("zeros", (N,))), ("each start", Num(0.0)),
                                   ("start", A.Compr(Op("*", (Num(0.1), Call("cos", (i,)))), "i", Num(1), N))])
        k, c = self.u(1.0, 6.0), self.u(0.3, 1.0)
        K, Cc = self.coef(k, k), self.coef(c, c)
        g = self.u(0.05, 0.45) * c * math.sqrt(k)
        G = self.coef(g, g)
        b = A.Block("osc_chain", decls=[
            A.Decl("Real", x, (N,), mods={key: st, fx: Num(True)}),
            A.Decl("Real", v, (N,), mods={vkey: vst, fx: Num(True)})])

        def X(e):
            return Ref(x, (e,))

        def base(ix):
            return Op("-", (Op("neg", (Op("*", (K, X(ix))),)), Op("*", (Cc, Ref(v, (ix,))))))

        def dv(ix):
            return Call("der", (Ref(v, (ix,)),))
        if self.r.random() < 0.3:
            b.eqs.append(A.Eq(Call("der", (Ref(x),)), Ref(v)))
        else:
            b.eqs.append(A.ForEq("i", Num(1), N, [A.Eq(Call("der", (X(i),)), Ref(v, (i,)))]))
        forms = ["none", "rev"] + (["lap", "shift", "back", "step"] if n >= 3 else [])
        form = "ring" if self.refused_ok else self.r.choice(forms)
        f = self.forcing()
        one = Num(1)
        if form == "none":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(dv(i), self.plus(base(i), f))]))
        elif form == "rev":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(dv(i), self.plus(
                Op("+", (base(i), Op("*", (G, Op("-", (X(Op("-", (Op("+", (N, one)), i))), X(i))))))), f))]))
        elif form == "ring":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(dv(i), self.plus(
                Op("+", (base(i), Op("*", (G, Op("-", (X(Op("+", (Call("mod", (i, N)), one))), X(i))))))), f))]))
        elif form == "lap":
            two = Num(2)
            b.eqs.append(A.Eq(dv(one), self.plus(add(base(one), mul(G, sub(X(two), mul(two, X(one))))), f)))
            lap = add(sub(X(sub(i, one)), mul(two, X(i))), X(add(i, one)))
            b.eqs.append(A.ForEq("i", two, sub(N, one), [A.Eq(dv(i), add(base(i), mul(G, lap)))]))
            b.eqs.append(A.Eq(dv(N), add(base(N), mul(G, sub(X(sub(N, one)), mul(two, X(N)))))))
        elif form == "shift":
            b.eqs.append(A.ForEq("i", one, sub(N, one), [A.Eq(dv(i), add(base(i), mul(G, sub(X(add(i, one)), X(i)))))]))
            b.eqs.append(A.Eq(dv(N), self.plus(base(N), f)))
        elif form == "back":
            b.eqs.append(A.Eq(dv(one), self.plus(base(one), f)))
            b.eqs.append(A.ForEq("i", Num(2), N, [A.Eq(dv(i), add(base(i), mul(G, sub(X(sub(i, one)), X(i)))))]))
        else:   # odd and even elements in two loops with steps
            k2 = self.coef(k * 1.5, k * 1.5)
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(dv(i), self.plus(base(i), f))], step=Num(2)))
            b.eqs.append(A.ForEq("i", Num(2), N, [A.Eq(dv(i), Op("-", (Op("neg", (Op("*", (k2, X(i))),)), Op("*", (Cc, Ref(v, (i,)))))))], step=Num(2)))
        self.m.blocks.append(b)
        self.signals += [X(Num(1)), X(Num(n))]
        return x, n

    def lag_chain(self):
        n = self.sizes()
        N = self.param(n, "N", "Integer")
        r = self.name("r")
        i, one = Ref("i"), Num(1)
        key, st = self.dims_start(N, n, "r")
        b = A.Block("lag_chain", decls=[A.Decl("Real", r, (N,), mods={key: st, "each fixed": Num(True)})])
        a, bb = self.coef(*(2 * [self.u(0.5, 3.0)])), self.coef(*(2 * [self.u(0.1, 1.0)]))

        def R(e):
            return Ref(r, (e,))

        def d(e):
            return Call("der", (R(e),))
        forms = ["rev", "div", "sinrev"] + (["shift"] if n >= 2 else [])
        form = "ring" if self.refused_ok else self.r.choice(forms)
        f = self.forcing()
        if form == "shift":
            b.eqs.append(A.ForEq("i", one, Op("-", (N, one)), [A.Eq(d(i), Op("*", (a, Op("-", (R(Op("+", (i, one))), R(i))))))]))
            b.eqs.append(A.Eq(d(N), self.plus(Op("neg", (Op("*", (a, R(N))),)), f)))
        elif form == "rev":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(d(i), self.plus(Op("-", (Op("*", (a, Op("-", (R(Op("-", (Op("+", (N, one)), i))), R(i))))), Op("*", (bb, R(i))))), f))]))
        elif form == "ring":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(d(i), Op("-", (Op("*", (a, Op("-", (R(Op("+", (Call("mod", (i, N)), one))), R(i))))), Op("*", (bb, R(i))))))]))
        elif form == "div":
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(d(i), self.plus(Op("+", (Op("neg", (Op("*", (bb, R(i))),)), Op("*", (a, Call("tanh", (R(Call("div", (Op("+", (i, one)), Num(2)))),)))))), f))]))
        else:
            b.eqs.append(A.ForEq("i", one, N, [A.Eq(d(i), Op("+", (Op("neg", (Op("*", (a, R(i))),)), Op("*", (bb, Call("sin", (R(Op("-", (Op("+", (N, one)), i))),)))))))]))
        self.m.blocks.append(b)
        self.signals.append(R(Num(self.r.randint(1, n))))
        if self.r.random() < 0.4:                   # a mean of the vector: sum() and size()
            mn = self.name("mean")
            b.decls.append(A.Decl("Real", mn))
            b.eqs.append(A.Eq(Ref(mn), Op("/", (Call("sum", (Ref(r),)), Call("size", (Ref(r), one))))))
            self.signals.append(Ref(mn))

    def decay(self):
        y = self.name("y")
        a = self.u(0.3, 3.0)
        A_ = self.coef(a, a)
        yinf = self.u(-1, 1)
        f = self.forcing()
        rhs = self.plus(Op("neg", (Op("*", (A_, Op("-", (Ref(y), Num(yinf))))),)), f)
        form = self.r.choice(["lit", "pdep", "init_eq", "init_der"])
        b = A.Block("decay")
        if form == "lit":
            b.decls.append(A.Decl("Real", y, mods={"start": Num(self.u(-1, 1)), "fixed": Num(True)}))
        elif form == "pdep":
            p = self.param(self.u(-1, 1))
            b.decls.append(A.Decl("Real", y, mods={"start": Op("+", (Op("*", (Num(2.0), p)), Num(0.5))), "fixed": Num(True)}))
        else:
            b.decls.append(A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(False)}))
            if form == "init_eq":
                p = self.param(self.u(-1, 1))
                b.init.append(A.Eq(Ref(y), Op("-", (Op("*", (Num(0.5), p)), Num(0.25)))))
            else:
                b.init.append(A.Eq(Call("der", (Ref(y),)), Num(0.0)))
        b.eqs.append(A.Eq(Call("der", (Ref(y),)), rhs))
        self.m.blocks.append(b)
        self.signals.append(Ref(y))

    def function_block(self):
        fn = self.name("f")
        u, w = Ref("u"), Ref("w")
        body, outs, prot = [], [], []
        kinds = ["for", "if", "forarr", "lookup"]
        parts = self.r.sample(kinds, self.r.randint(2, 3))
        if self.refused_ok:
            parts[0] = self.r.choice(["while_sqrt", "while_exp"])
        arr = None
        if "forarr" in parts or "lookup" in parts:
            cands = [b for b in self.m.blocks if b.kind in ("osc_chain", "lag_chain")]
            if not cands:
                parts = [x for x in parts if x not in ("forarr", "lookup")] or ["for"]
            else:
                arr = cands[-1].decls[0].name
        ins = [("Real", "u", ()), ("Real", "w", ())] + ([("Real", "a", (":",))] if arr else [])
        for j, part in enumerate(parts):
            y = f"y{j + 1}"
            outs.append(("Real", y))
            if part == "for":
                n = self.r.randint(2, 6)
                c = self.u(0.2, 1.0)
                body += [A.Assign(Ref(y), Num(0.0)),
                         A.ForSt("k", Num(1), Num(n), [A.Assign(Ref(y), Op("+", (Ref(y), Op("/", (Op("*", (Num(c), Call("sin", (Op("*", (Ref("k"), u)),)))), Ref("k"))))))])]
            elif part == "forarr":
                body += [A.Assign(Ref(y), Num(0.0)),
                         A.ForSt("k", Num(1), Call("size", (Ref("a"), Num(1))), [A.Assign(Ref(y), Op("+", (Ref(y), Op("/", (Call("sin", (Ref("a", (Ref("k"),)),)), Call("size", (Ref("a"), Num(1))))))))])]
            elif part == "lookup":          # a subscript computed at run time: integer() of an input
                kn = f"k{j}"
                prot.append(("Integer", kn))
                n_a = Call("size", (Ref("a"), Num(1)))
                pos = add(add(Num(1.0), mul(add(Num(0.5), mul(Num(0.5), Call("tanh", (u,)))), sub(n_a, Num(1)))), Num(0.5))
                body += [A.Assign(Ref(kn), Call("min", (Call("max", (Call("integer", (pos,)), Num(1))), n_a))),
                         A.Assign(Ref(y), add(mul(Num(self.u(0.2, 1.0)), Ref("a", (Ref(kn),))), mul(Num(0.1), w)))]
            elif part == "while_sqrt":      # Heron: y = sqrt(1 + u^2) - 1
                prot += [("Real", f"s{j}"), ("Real", f"q{j}")]
                s, q = Ref(f"s{j}"), Ref(f"q{j}")
                body += [A.Assign(q, Op("+", (Num(1.0), Op("*", (u, u))))), A.Assign(s, q),
                         A.WhileSt(Op(">", (Call("abs", (Op("-", (Op("*", (s, s)), q)),)), Op("*", (Num(1e-13), q)))),
                                   [A.Assign(s, Op("*", (Num(0.5), Op("+", (s, Op("/", (q, s)))))))]),
                         A.Assign(Ref(y), Op("-", (s, Num(1.0))))]
            elif part == "while_exp":       # Taylor series of exp(-w^2/(1+w^2)) summed until the term is negligible
                prot += [("Real", f"t{j}"), ("Real", f"z{j}"), ("Integer", f"n{j}")]
                t, z, n = Ref(f"t{j}"), Ref(f"z{j}"), Ref(f"n{j}")
                body += [A.Assign(z, Op("neg", (Op("/", (Op("*", (w, w)), Op("+", (Num(1.0), Op("*", (w, w)))))),))),
                         A.Assign(t, Num(1.0)), A.Assign(Ref(y), Num(1.0)), A.Assign(n, Num(0)),
                         A.WhileSt(Op(">", (Call("abs", (t,)), Num(1e-16))),
                                   [A.Assign(n, Op("+", (n, Num(1)))), A.Assign(t, Op("/", (Op("*", (t, z)), n))),
                                    A.Assign(Ref(y), Op("+", (Ref(y), t)))])]
            else:                            # continuous piecewise definition
                c = self.u(0.2, 0.8)
                body += [A.IfSt([(Op(">", (u, w)), [A.Assign(Ref(y), Op("-", (u, w)))]),
                                 (Op("<", (u, Op("-", (w, Num(1.0))))), [A.Assign(Ref(y), Op("-", (Op("*", (Num(c), Op("-", (u, w)))), Num(1 - c))))])],
                                [A.Assign(Ref(y), Op("-", (u, w)))]) if self.r.random() < 0.5 else
                         A.IfSt([(Op(">", (u, w)), [A.Assign(Ref(y), Op("*", (Op("-", (u, w)), Op("-", (u, w)))))])],
                                [A.Assign(Ref(y), Op("*", (Num(-c), Op("*", (Op("-", (u, w)), Op("-", (u, w)))))))])]
        f = A.Function(fn, ins, outs, prot, body)
        self.m.functions.append(f)
        sig = [self.r.choice(self.signals) if self.signals else Num(self.u(-1, 1)) for _ in range(2)]
        args = (self.bounded(sig[0]), Op("*", (Num(self.u(0.2, 1.0)), sig[1]))) + ((Ref(arr),) if arr else ())
        names = [self.name("fo") for _ in outs]
        b = A.Block("function", decls=[A.Decl("Real", n) for n in names])
        if len(names) == 1 or self.r.random() < 0.2:       # expression context: the first output
            b.decls, names = b.decls[:1], names[:1]
            b.eqs.append(A.Eq(Ref(names[0]), Call(fn, args)))
        else:
            b.eqs.append(A.Eq(tuple(Ref(n) for n in names), Call(fn, args)))
        # a state driven by the outputs, so that the comparison sees them integrated too
        y = self.name("yf")
        b.decls.append(A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(True)}))
        b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (Op("*", (Num(0.3), self.bounded(Ref(names[0])))), Op("*", (Num(0.5), Ref(y)))))))
        self.m.blocks.append(b)
        self.signals += [self.bounded(Ref(n)) for n in names] + [Ref(y)]

    def record_block(self):
        rn = self.name("R")
        self.m.records.append(A.Record(rn, [("Real", "a"), ("Real", "b")]))
        pn = self.name("rp")
        av, bv = self.u(0.5, 2.0), self.u(-0.5, 0.5)
        if self.r.random() < 0.5:
            self.m.params.append(A.Decl(rn, pn, prefix="parameter", fields={"a": Num(av), "b": Num(bv)}))
        else:
            self.m.params.append(A.Decl(rn, pn, prefix="parameter", binding=A.RecCon(rn, (("a", Num(av)), ("b", Num(bv))))))
        q = self.name("q")
        b = A.Block("record", decls=[A.Decl("Real", q, mods={"start": Num(self.u(-1, 1)), "fixed": Num(True)})])
        f = self.forcing() or Num(0.1)
        b.eqs.append(A.Eq(Call("der", (Ref(q),)), Op("+", (Op("neg", (Op("*", (Ref(pn + ".a"), Ref(q))),)), Op("*", (Ref(pn + ".b"), Op("+", (Num(1.0), f))))))))
        if self.r.random() < 0.6:
            gn = self.name("g")
            self.m.functions.append(A.Function(gn, [(rn, "rr", ()), ("Real", "u", ())], [("Real", "y")], [],
                                               [A.Assign(Ref("y"), Op("+", (Op("*", (Ref("rr.a"), Call("sin", (Ref("u"),)))), Ref("rr.b"))))]))
            z = self.name("z")
            b.decls.append(A.Decl("Real", z))
            b.eqs.append(A.Eq(Ref(z), Call(gn, (Ref(pn), Ref(q)))))
            self.signals.append(self.bounded(Ref(z)))
        self.m.blocks.append(b)
        self.signals.append(Ref(q))

    def counter(self):
        d = self.driver()
        n = self.name("cnt")
        b = A.Block("counter", decls=[A.Decl("Integer", n, mods={"start": Num(0)})])
        c = self.thr()
        rel = Op(">", (d, Num(c))) if self.r.random() < 0.5 else Op("<", (d, Num(c)))
        b.eqs.append(A.When([(rel, [A.Eq(Ref(n), Op("+", (Call("pre", (Ref(n),)), Num(1))))])]))
        if self.r.random() < 0.5:
            y = self.name("yc")
            b.decls.append(A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(True)}))
            b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (Op("*", (Num(0.2), Ref(n))), Ref(y)))))
            self.signals.append(Op("*", (Num(0.1), Ref(y))))
        self.m.blocks.append(b)

    def hysteresis(self):
        d = self.driver()
        c1 = self.u(0.1, 0.7, 2)
        c2 = self.u(-0.7, c1 - 0.2, 2)
        bn, nc, ne, z = self.name("b"), self.name("nch"), self.name("ned"), self.name("zh")
        b = A.Block("hysteresis", decls=[A.Decl("Boolean", bn, mods={"start": Num(False)}),
                                         A.Decl("Integer", nc, mods={"start": Num(0)}),
                                         A.Decl("Integer", ne, mods={"start": Num(0)}),
                                         A.Decl("Real", z, mods={"start": Num(0.0), "fixed": Num(True)})])
        b.eqs.append(A.When([(Op(">", (d, Num(c1))), [A.Eq(Ref(bn), Num(True))]),
                             (Op("<", (d, Num(c2))), [A.Eq(Ref(bn), Num(False))])]))
        b.eqs.append(A.When([(Call("change", (Ref(bn),)), [A.Eq(Ref(nc), Op("+", (Call("pre", (Ref(nc),)), Num(1))))])]))
        e = Call("edge", (Ref(bn),)) if self.r.random() < 0.7 else Ref(bn)
        b.eqs.append(A.When([(e, [A.Eq(Ref(ne), Op("+", (Call("pre", (Ref(ne),)), Num(1))))])]))
        a = self.u(0.5, 3.0)
        b.eqs.append(A.Eq(Call("der", (Ref(z),)), IfExp(Ref(bn), Op("neg", (Op("*", (Num(a), Op("-", (Ref(z), Num(1.0))))),)),
                                                        Op("neg", (Op("*", (Num(a), Ref(z))),)))))
        self.m.blocks.append(b)
        self.signals.append(Ref(z))

    def sawtooth(self):
        s, n = self.name("s"), self.name("ns")
        rate = self.u(0.8, 4.0)
        f = self.forcing(0.4)
        speed = Op("*", (self.coef(rate, rate), Op("+", (Num(1.0), Op("*", (Num(0.5), Call("sin", (f,)))) if f is not None else Num(0.0)))))
        b = A.Block("sawtooth", decls=[A.Decl("Real", s, mods={"start": Num(self.u(0.0, 0.5)), "fixed": Num(True)}),
                                       A.Decl("Integer", n, mods={"start": Num(0)})])
        b.eqs.append(A.Eq(Call("der", (Ref(s),)), speed))
        reset = Op("-", (Ref(s), Num(1.0))) if self.r.random() < 0.5 else Num(0.0)
        b.eqs.append(A.When([(Op(">", (Ref(s), Num(1.0))), [A.Reinit(Ref(s), reset), A.Eq(Ref(n), Op("+", (Call("pre", (Ref(n),)), Num(1))))])]))
        self.m.blocks.append(b)
        self.signals.append(Ref(s))
        self.drivers.append(Op("-", (Op("*", (Num(1.6), Ref(s))), Num(0.8))))

    def bounce(self):
        h, v = self.name("h"), self.name("vb")
        e = self.u(0.8, 0.9)
        g = 9.81
        for _ in range(10):
            h0 = self.u(0.5, 1.5)
            t0 = math.sqrt(2 * h0 / g)
            if t0 * (1 + e) / (1 - e) > 1.6 * self.m.stop:
                break
        b = A.Block("bounce", decls=[A.Decl("Real", h, mods={"start": Num(h0), "fixed": Num(True)}),
                                     A.Decl("Real", v, mods={"start": Num(0.0), "fixed": Num(True)})])
        b.eqs += [A.Eq(Call("der", (Ref(h),)), Ref(v)), A.Eq(Call("der", (Ref(v),)), Num(-g)),
                  A.When([(Op("<", (Ref(h), Num(0.0))), [A.Reinit(Ref(v), Op("*", (Num(-e), Call("pre", (Ref(v),)))))])])]
        self.m.blocks.append(b)
        self.signals.append(Call("tanh", (Ref(h),)))

    def sample_hold(self):
        d = self.driver()
        dn, y = self.name("d"), self.name("yh")
        val = self.r.choice(self.signals) if self.signals else Ref("time")
        b = A.Block("sample_hold", decls=[A.Decl("Real", dn, prefix="discrete", mods={"start": Num(0.0)}),
                                          A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(True)})])
        b.eqs.append(A.When([(Op(">", (d, Num(self.thr()))), [A.Eq(Ref(dn), Op("+", (self.bounded(val), Op("*", (Num(0.5), Call("pre", (Ref(dn),)))))))])]))
        b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("*", (Num(self.u(0.5, 2)), Op("-", (Ref(dn), Ref(y)))))))
        self.m.blocks.append(b)
        self.signals.append(Ref(y))

    def elsewhen_priority(self):
        d = self.driver()
        m_ = self.name("mode")
        c = self.thr()
        same = self.r.random() < 0.5
        c2 = c if same else round(c - self.u(0.1, 0.3), 2)
        b = A.Block("priority", decls=[A.Decl("Integer", m_, mods={"start": Num(0)})])
        b.eqs.append(A.When([(Op(">", (d, Num(c))), [A.Eq(Ref(m_), Op("+", (Call("pre", (Ref(m_),)), Num(1))))]),
                             (Op(">", (d, Num(c2))), [A.Eq(Ref(m_), Op("+", (Call("pre", (Ref(m_),)), Num(100))))])]))
        self.m.blocks.append(b)

    def initial_when(self):
        dn = self.name("di")
        p = self.param(self.u(-1, 1))
        b = A.Block("initial_when", decls=[A.Decl("Real", dn, prefix="discrete", mods={"start": Num(0.0)})])
        b.eqs.append(A.When([(Call("initial", ()), [A.Eq(Ref(dn), Op("*", (Num(2.0), p)))])]))
        y = self.name("yi")
        b.decls.append(A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(True)}))
        b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (Ref(dn), Ref(y)))))
        self.m.blocks.append(b)
        self.signals.append(Call("tanh", (Ref(y),)))

    def algebraic_loop(self):
        e = self.forcing(1.0) or Num(self.u(-1, 1))
        form = self.r.choice(["cubic", "sine", "pair", "exp"])
        b = A.Block("loop")
        if form == "cubic":
            w = self.name("w")
            b.decls.append(A.Decl("Real", w, mods={"start": Num(0.0)}))
            b.eqs.append(A.Eq(Op("+", (Ref(w), Op("*", (Num(self.u(0.2, 2.0)), Op("^", (Ref(w), Num(3))))))), e))
            out = [w]
        elif form == "sine":
            w = self.name("w")
            b.decls.append(A.Decl("Real", w, mods={"start": Num(0.0)}))
            b.eqs.append(A.Eq(Ref(w), Op("+", (Op("*", (Num(self.u(-0.8, 0.8)), Call("sin", (Ref(w),)))), e))))
            out = [w]
        elif form == "exp":
            w = self.name("w")
            b.decls.append(A.Decl("Real", w, mods={"start": Num(0.0)}))
            b.eqs.append(A.Eq(Op("+", (Ref(w), Call("exp", (Op("*", (Num(0.3), Ref(w))),)))), Op("+", (e, Num(1.0)))))
            out = [w]
        else:
            w1, w2 = self.name("w"), self.name("w")
            a = self.u(0.2, 0.9)
            bb = self.u(0.2, 0.8 / a)
            e2 = self.forcing(1.0) or Num(self.u(-1, 1))
            b.decls += [A.Decl("Real", w1, mods={"start": Num(0.0)}), A.Decl("Real", w2, mods={"start": Num(0.0)})]
            b.eqs += [A.Eq(Ref(w1), add(e, mul(Num(a), Call("tanh", (Ref(w2),))))),
                      A.Eq(Ref(w2), sub(e2, mul(Num(bb), Call("atan", (Ref(w1),)))))]
            out = [w1, w2]
        y = self.name("yl")
        b.decls.append(A.Decl("Real", y, mods={"start": Num(0.0), "fixed": Num(True)}))
        b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (self.bounded(Ref(out[0])), Ref(y)))))
        self.m.blocks.append(b)
        self.signals += [self.bounded(Ref(w)) for w in out] + [Ref(y)]

    def matrix_block(self):
        b = A.Block("matrix")
        if self.r.random() < 0.5:
            a, w = self.u(0.2, 1.0), self.u(0.5, 4.0)
            An = self.name("Am")
            self.m.params.append(A.Decl("Real", An, (Num(2), Num(2)), prefix="parameter",
                                        binding=A.Mat(((Num(-a), Num(w)), (Num(-w), Num(-a))))))
            z = self.name("z")
            b.decls.append(A.Decl("Real", z, (Num(2),), mods={"start": A.Arr((Num(self.u(-1, 1)), Num(self.u(-1, 1)))), "each fixed": Num(True)}))
            M = self.r.choice([Ref(An), Call("transpose", (Ref(An),)),
                               Op("+", (Ref(An), Call("diagonal", (A.Arr((Num(-0.1), Num(-0.2))),)))),
                               Op("-", (Ref(An), Op("*", (Num(0.1), Call("identity", (Num(2),))))))])
            f = self.forcing()
            rhs = Op("*", (M, Ref(z)))
            if f is not None:
                rhs = Op("+", (rhs, A.Arr((f, Num(0.0)))))
            b.eqs.append(A.Eq(Call("der", (Ref(z),)), rhs))
            self.signals.append(Ref(z, (Num(1),)))
        else:
            wn = self.name("wv")
            wv = [self.u(-2, 2) for _ in range(3)]
            self.m.params.append(A.Decl("Real", wn, (Num(3),), prefix="parameter", binding=A.Arr(tuple(Num(x) for x in wv))))
            r = self.name("r3")
            a = self.u(0.1, 0.8)
            b.decls.append(A.Decl("Real", r, (Num(3),), mods={"start": A.Arr((Num(1.0), Num(0.0), Num(self.u(-1, 1)))), "each fixed": Num(True)}))
            rot = Call("cross", (Ref(wn), Ref(r))) if self.r.random() < 0.5 else Op("*", (Call("skew", (Ref(wn),)), Ref(r)))
            b.eqs.append(A.Eq(Call("der", (Ref(r),)), Op("-", (rot, Op("*", (Num(a), Ref(r)))))))
            self.signals.append(Ref(r, (Num(self.r.randint(1, 3)),)))
        self.m.blocks.append(b)

    def if_block(self):
        d = self.driver()
        y, u = self.name("yi"), self.name("ui")
        c = self.thr()
        a = self.u(0.5, 2.0)
        b = A.Block("if", decls=[A.Decl("Real", y, mods={"start": Num(self.u(-1, 1)), "fixed": Num(True)})])
        hi, lo = Num(self.u(0.2, 1.0)), Num(self.u(-1.0, -0.2))
        form = self.r.choice(["ifeq", "ifexp", "time", "noevent"])
        if form == "ifeq":
            b.decls.append(A.Decl("Real", u))
            b.eqs.append(A.IfEq(Op(">", (d, Num(c))), [A.Eq(Ref(u), hi)], [A.Eq(Ref(u), lo)]))
            b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (Ref(u), Op("*", (Num(a), Ref(y)))))))
        elif form == "ifexp":
            b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (IfExp(Op("<", (d, Num(c))), hi, lo), Op("*", (Num(a), Ref(y)))))))
        elif form == "time":
            t1 = round(self.r.uniform(0.1, 0.9) * self.m.stop, 2) + 0.0037
            b.eqs.append(A.Eq(Call("der", (Ref(y),)), Op("-", (IfExp(Op(">", (Ref("time"), Num(t1))), hi, lo), Op("*", (Num(a), Ref(y)))))))
        else:
            ne = Call("noEvent", (IfExp(Op(">", (d, Num(c))), mul(hi, d), mul(lo, d)),))
            b.eqs.append(A.Eq(Call("der", (Ref(y),)), sub(ne, mul(Num(a), Ref(y)))))
        self.m.blocks.append(b)
        self.signals.append(Ref(y))

    def builtins_block(self) -> None:
        """The remaining built-ins where they cannot hide an event: smooth ones of a bounded
        signal; sign, floor, ceil, integer, mod, rem, div of discrete values in a when-clause."""
        s = self.r.choice(self.signals) if self.signals else Call("sin", (Ref("time"),))
        y, z = self.name("yb"), self.name("zb")
        k, dd, n = self.name("kb"), self.name("db"), self.name("nb")
        b = A.Block("builtins", decls=[A.Decl("Real", y), A.Decl("Real", z, mods={"start": Num(0.0), "fixed": Num(True)}),
                                       A.Decl("Integer", k, mods={"start": Num(0)}),
                                       A.Decl("Real", dd, prefix="discrete", mods={"start": Num(0.0)}),
                                       A.Decl("Integer", n, mods={"start": Num(0)})])
        s2 = Op("^", (s, Num(2)))
        smooth = [Call("sqrt", (add(Num(1.0), s2),)), Call("log", (add(Num(1.0), s2),)),
                  Call("exp", (neg(s2),)), Call("product", (A.Arr((Num(self.u(0.5, 1.5)), s, Num(self.u(0.5, 1.5)))),)),
                  Call("smooth", (Num(1), mul(s, Call("abs", (s,)))))]
        b.eqs.append(A.Eq(Ref(y), add(add(*self.r.sample(smooth, 2)), mul(Num(0.3), self.r.choice(smooth)))))
        step = self.r.choice([Call("mod", (add(Call("pre", (Ref(k),)), Num(1)), Num(3))),
                              Call("rem", (add(Call("pre", (Ref(k),)), Num(2)), Num(3))),
                              Call("div", (add(Call("pre", (Ref(k),)), Num(7)), Num(2)))])
        pd = Call("pre", (Ref(dd),))
        dval = self.r.choice([sub(Call("floor", (add(mul(Num(1.7), pd), Num(1.2)),)), Call("ceil", (mul(Num(0.5), pd),))),
                              add(mul(Num(0.5), pd), Call("sign", (sub(Call("pre", (Ref(k),)), Num(1)),)))])
        rel = Op(">", (self.driver(), Num(self.thr())))
        b.eqs.append(A.When([(rel, [A.Eq(Ref(k), step), A.Eq(Ref(dd), dval),
                                    A.Eq(Ref(n), Call("integer", (add(mul(Num(2.5), pd), Num(0.3)),)))])]))
        b.eqs.append(A.Eq(Call("der", (Ref(z),)), sub(add(add(mul(Num(0.3), Ref(k)), mul(Num(0.2), Ref(dd))),
                                                          add(mul(Num(0.1), Ref(n)), mul(Num(0.2), Call("tanh", (Ref(y),))))), Ref(z))))
        self.m.blocks.append(b)
        self.signals.append(Call("tanh", (Ref(y),)))

    BLOCKS = {"osc_chain": 3, "lag_chain": 2, "decay": 2, "function": 2, "record": 1, "counter": 1,
              "hysteresis": 2, "sawtooth": 1, "bounce": 1, "sample_hold": 1, "elsewhen_priority": 1,
              "initial_when": 0.5, "algebraic_loop": 2, "matrix_block": 1, "if_block": 2, "builtins_block": 1}

    def generate(self) -> A.Model:
        nb = self.r.randint(2, self.max_blocks)
        names, weights = zip(*self.BLOCKS.items())
        for _ in range(nb):
            b = self.r.choices(names, weights)[0]
            {"function": self.function_block, "record": self.record_block}.get(b, getattr(self, b, None))()
        if not any(isinstance(e, A.Eq) and any(isinstance(n, Call) and n.f == "der" for x in A.equation_exprs(e) for n in A.walk(x))
                   for e in _flat(self.m.equations())):
            self.decay()
        # top-level outputs: some algebraic scalars (not assigned in a when-clause) get the prefix
        alg = [d for bl in self.m.blocks if bl.kind in ("function", "loop", "lag_chain", "builtins", "record")
               for d in bl.decls if d.type == "Real" and not d.dims and not d.mods and not d.prefix]
        for d in self.r.sample(alg, min(len(alg), self.r.choice([0, 1, 2]))):
            d.prefix = "output"
        return self.m


def _flat(eqs: list) -> Iterator:
    for e in eqs:
        if isinstance(e, A.ForEq):
            yield from _flat(e.body)
        else:
            yield e


def generate(seed: int, max_blocks: int = 6, refused: bool = False) -> A.Model:
    """The valid model of this seed (``refused``: with the constructs rumoca refuses, see
    :data:`REFUSED`, wherever they fit: the mutants' expected refusals)."""
    return _Gen(seed, max_blocks, refused).generate()
