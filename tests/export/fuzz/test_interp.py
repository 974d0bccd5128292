"""The fuzzer's reference interpreter on tiny models with closed forms (no exporter involved)."""
import math

import numpy as np
import pytest

from wearcosim.export.fuzz import tree as A
from wearcosim.export.fuzz.interp import ModelError, simulate
from wearcosim.export.fuzz.tree import Call, IfExp, Num, Op, Ref


def der(x):
    return Call("der", (x,))


def model(*blocks, params=(), functions=(), records=(), stop=2.0, dt=0.02):
    return A.Model("T", records=list(records), functions=list(functions),
                   params=[A.Decl("Real", "pi", prefix="constant", binding=Num(math.pi))] + list(params),
                   blocks=list(blocks), stop=stop, dt=dt)


def test_decay_with_parameter_dependent_start():
    # der(y) = -a y, y(0) = 2 p + 0.5 with p = 0.25, a = 1.5 -> y = exp(-a t)
    b = A.Block("decay", decls=[A.Decl("Real", "y", mods={"start": Op("+", (Op("*", (Num(2.0), Ref("p"))), Num(0.5))),
                                                            "fixed": Num(True)})],
                eqs=[A.Eq(der(Ref("y")), Op("neg", (Op("*", (Ref("a"), Ref("y"))),)))])
    r = simulate(model(b, params=[A.Decl("Real", "p", prefix="parameter", binding=Num(0.25)),
                                  A.Decl("Real", "a", prefix="parameter", binding=Num(1.5))]))
    assert np.allclose(r.data["y"], np.exp(-1.5 * r.t), rtol=1e-8, atol=1e-10)


def test_oscillator_chain_with_comprehension_start_and_for_equations():
    # N uncoupled oscillators x'' = -k x, x_i(0) = c sin(i pi / (N+1)), v(0) = 0: x_i = x_i(0) cos(sqrt(k) t)
    N, k, c = 30, 4.0, 0.3
    i = Ref("i")
    st = A.Compr(Op("*", (Ref("c"), Call("sin", (Op("/", (Op("*", (i, Ref("pi"))), Op("+", (Ref("N"), Num(1))))),)))),
                 "i", Num(1), Ref("N"))
    b = A.Block("osc", decls=[A.Decl("Real", "x", (Ref("N"),), mods={"start": st, "each fixed": Num(True)}),
                              A.Decl("Real", "v", (Ref("N"),), mods={"each start": Num(0.0), "each fixed": Num(True)})],
                eqs=[A.ForEq("i", Num(1), Ref("N"), [A.Eq(der(Ref("x", (i,))), Ref("v", (i,)))]),
                     A.ForEq("i", Num(1), Ref("N"), [A.Eq(der(Ref("v", (i,))), Op("neg", (Op("*", (Num(k), Ref("x", (i,)))),)))])])
    r = simulate(model(b, params=[A.Decl("Integer", "N", prefix="parameter", binding=Num(N)),
                                  A.Decl("Real", "c", prefix="parameter", binding=Num(c))]))
    for j in (1, 3, 17, 30):
        want = c * math.sin(j * math.pi / (N + 1)) * np.cos(2.0 * r.t)
        assert np.allclose(r.data[f"x[{j}]"], want, atol=1e-8), j


def test_shift_coupling_reads_the_next_element():
    # der(r[i]) = r[i+1] - r[i] for i < 3, der(r[3]) = 0, r(0) = {0, 0, 1}: r3 = 1, r2 = 1 - e^-t,
    # r1 = 1 - e^-t - t e^-t
    one = Num(1)
    i = Ref("i")
    b = A.Block("lag", decls=[A.Decl("Real", "r", (Num(3),), mods={"start": A.Arr((Num(0.0), Num(0.0), Num(1.0))),
                                                                   "each fixed": Num(True)})],
                eqs=[A.ForEq("i", one, Num(2), [A.Eq(der(Ref("r", (i,))), Op("-", (Ref("r", (Op("+", (i, one)),)), Ref("r", (i,)))))]),
                     A.Eq(der(Ref("r", (Num(3),))), Num(0.0))])
    r = simulate(model(b))
    t = r.t
    assert np.allclose(r.data["r[2]"], 1 - np.exp(-t), atol=1e-8)
    assert np.allclose(r.data["r[1]"], 1 - np.exp(-t) - t * np.exp(-t), atol=1e-8)


def test_constant_index_past_the_end_is_a_model_error():
    b = A.Block("bad", decls=[A.Decl("Real", "r", (Num(3),), mods={"each start": Num(0.0), "each fixed": Num(True)})],
                eqs=[A.ForEq("i", Num(1), Num(3), [A.Eq(der(Ref("r", (Ref("i"),))), Ref("r", (Op("+", (Ref("i"), Num(1))),)))])])
    with pytest.raises(ModelError, match="outside"):
        simulate(model(b))


def test_bouncing_ball_event_times_and_reinit():
    # h'' = -g from h0, v(0) = 0; at h < 0: v := -e pre(v).  First impact at sqrt(2 h0 / g), the
    # second one 2 e v1 / g later.
    g, h0, e = 9.81, 1.0, 0.8
    b = A.Block("bounce", decls=[A.Decl("Real", "h", mods={"start": Num(h0), "fixed": Num(True)}),
                                 A.Decl("Real", "v", mods={"start": Num(0.0), "fixed": Num(True)})],
                eqs=[A.Eq(der(Ref("h")), Ref("v")), A.Eq(der(Ref("v")), Num(-g)),
                     A.When([(Op("<", (Ref("h"), Num(0.0))), [A.Reinit(Ref("v"), Op("*", (Num(-e), Call("pre", (Ref("v"),)))))])])])
    r = simulate(model(b, stop=1.5))
    t1 = math.sqrt(2 * h0 / g)
    v1 = g * t1
    t2 = t1 + 2 * e * v1 / g
    # (the relation h < 0 turning false again just after each impact is an event too)
    assert abs(r.events[0] - t1) < 1e-7
    assert min(abs(x - t2) for x in r.events) < 1e-6
    k = int(np.searchsorted(r.t, t1 + 0.1))
    tt = r.t[k] - t1
    assert abs(r.data["h"][k] - (e * v1 * tt - g * tt ** 2 / 2)) < 1e-7


def test_counter_with_elsewhen_edge_change_and_pre():
    # s = sin(w t + ph) crosses 0.5 upward at known times; a Boolean set/reset with hysteresis and
    # counters of its edges and changes
    w, ph = 5.0, 0.3
    d = Call("sin", (Op("+", (Op("*", (Num(w), Ref("time"))), Num(ph))),))
    b = A.Block("hyst", decls=[A.Decl("Boolean", "b", mods={"start": Num(False)}),
                               A.Decl("Integer", "ne", mods={"start": Num(0)}),
                               A.Decl("Integer", "nc", mods={"start": Num(0)}),
                               A.Decl("Integer", "n", mods={"start": Num(0)})],
                eqs=[A.When([(Op(">", (d, Num(0.5))), [A.Eq(Ref("b"), Num(True))]),
                             (Op("<", (d, Num(-0.5))), [A.Eq(Ref("b"), Num(False))])]),
                     A.When([(Call("edge", (Ref("b"),)), [A.Eq(Ref("ne"), Op("+", (Call("pre", (Ref("ne"),)), Num(1))))])]),
                     A.When([(Call("change", (Ref("b"),)), [A.Eq(Ref("nc"), Op("+", (Call("pre", (Ref("nc"),)), Num(1))))])]),
                     A.When([(Op(">", (d, Num(0.5))), [A.Eq(Ref("n"), Op("+", (Call("pre", (Ref("n"),)), Num(1))))])])])
    stop = 3.0
    r = simulate(model(b, stop=stop, dt=0.01))
    # upward crossings of 0.5 and downward crossings of -0.5 in (0, stop]
    ups = [(math.asin(0.5) - ph + 2 * math.pi * k) / w for k in range(5)]
    downs = [(math.pi + math.asin(0.5) - ph + 2 * math.pi * k) / w for k in range(5)]
    ups = [t for t in ups if 0 < t <= stop]
    downs = [t for t in downs if 0 < t <= stop]
    assert int(r.data["n"][-1]) == len(ups)
    assert int(r.data["ne"][-1]) == len(ups)          # every rise of b is an upward crossing
    assert int(r.data["nc"][-1]) == len(ups) + len([t for t in downs if t > ups[0]])
    k = int(np.searchsorted(r.t, ups[0] + 0.01))
    assert r.data["b"][k] == 1.0 and r.data["b"][k - 3] == 0.0


def test_function_with_for_if_and_two_outputs_in_a_tuple_equation():
    # y1 = sum_{k=1..4} sin(k u)/k, y2 = |u - w| through if/else
    f = A.Function("f", [("Real", "u", ()), ("Real", "w", ())], [("Real", "y1"), ("Real", "y2")], [],
                   [A.Assign(Ref("y1"), Num(0.0)),
                    A.ForSt("k", Num(1), Num(4), [A.Assign(Ref("y1"), Op("+", (Ref("y1"), Op("/", (Call("sin", (Op("*", (Ref("k"), Ref("u"))),)), Ref("k"))))))]),
                    A.IfSt([(Op(">", (Ref("u"), Ref("w"))), [A.Assign(Ref("y2"), Op("-", (Ref("u"), Ref("w"))))])],
                           [A.Assign(Ref("y2"), Op("-", (Ref("w"), Ref("u"))))])])
    b = A.Block("function", decls=[A.Decl("Real", "a"), A.Decl("Real", "c")],
                eqs=[A.Eq((Ref("a"), Ref("c")), Call("f", (Ref("time"), Num(0.7))))])
    r = simulate(model(b, functions=[f]))
    t = r.t
    assert np.allclose(r.data["a"], sum(np.sin(k * t) / k for k in range(1, 5)), atol=1e-12)
    assert np.allclose(r.data["c"], np.abs(t - 0.7), atol=1e-12)


def test_negative_literal_to_a_power():
    # (-0.9)^2 = 0.81 (a negative literal's code is parenthesized)
    b = A.Block("x", decls=[A.Decl("Real", "z")], eqs=[A.Eq(Ref("z"), Op("^", (Num(-0.9), Num(2))))])
    r = simulate(model(b))
    assert np.allclose(r.data["z"], 0.81)


def test_cubic_algebraic_loop_and_initial_equation():
    # w + w^3 = time (Newton; Cardano's closed form), y: der(y) = -y + 1 with der(y) = 0 initially -> y = 1
    b = A.Block("loop", decls=[A.Decl("Real", "w", mods={"start": Num(0.0)}),
                               A.Decl("Real", "y", mods={"start": Num(0.0), "fixed": Num(False)})],
                eqs=[A.Eq(Op("+", (Ref("w"), Op("^", (Ref("w"), Num(3))))), Ref("time")),
                     A.Eq(der(Ref("y")), Op("+", (Op("neg", (Ref("y"),)), Num(1.0))))],
                init=[A.Eq(der(Ref("y")), Num(0.0))])
    r = simulate(model(b))
    t = r.t
    q = np.sqrt(t ** 2 / 4 + 1 / 27)
    want = np.cbrt(t / 2 + q) + np.cbrt(t / 2 - q)
    assert np.allclose(r.data["w"], want, atol=1e-9)
    assert np.allclose(r.data["y"], 1.0, atol=1e-9)


def test_record_parameter_and_if_expression_event():
    # der(q) = -rp.a q + rp.b (if time > 0.5 then 1 else 0): q = b/a (1 - exp(-a (t - 0.5))) after 0.5
    R = A.Record("R", [("Real", "a"), ("Real", "b")])
    p = A.Decl("R", "rp", prefix="parameter", binding=A.RecCon("R", (("a", Num(2.0)), ("b", Num(0.5)))))
    b = A.Block("record", decls=[A.Decl("Real", "q", mods={"start": Num(0.0), "fixed": Num(True)})],
                eqs=[A.Eq(der(Ref("q")), Op("+", (Op("neg", (Op("*", (Ref("rp.a"), Ref("q"))),)),
                                                   Op("*", (Ref("rp.b"), IfExp(Op(">", (Ref("time"), Num(0.5))), Num(1.0), Num(0.0)))))))])
    r = simulate(model(b, params=[p], records=[R]))
    t = r.t
    want = np.where(t > 0.5, 0.25 * (1 - np.exp(-2.0 * (t - 0.5))), 0.0)
    assert np.allclose(r.data["q"], want, atol=1e-8)
    assert abs(r.events[0] - 0.5) < 1e-8
