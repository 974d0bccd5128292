"""Law switches that a tool user can flip on a built FMU, and replaceable contact laws.

The Boolean law switches of the library (``lubricated`` of the clearance joint and its
mechanisms, ``variableStiffness`` of the gear mesh, ``elasticStator`` of the rub stator) are
declared ``annotation(Evaluate = false)``: the exporter keeps them as FMU parameters (both
laws are computed and the switch selects one by an if-expression) instead of folding them at
build time.  Acceptance: switching the parameter on a built FMU reproduces the FMU built with
the other value, to 1e-6 of each output's range (measured: bit-identical).

The replaceable laws (``NormalForce`` of the joint and of the rub, ``Stiffness`` of the mesh)
default to the laws of before; each has an example that redeclares it, which must differ from
the default example (a redeclare that rumoca dropped would not) and match a closed form where
one exists."""
import math
import textwrap

import fmpy
import numpy as np
import pytest
from fmpy import read_model_description

from wctest import PACKAGE, unzipped
from wearcosim.export.build import build_fmu

TOL = 1e-6


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """Build on demand, once per module: {short name: FMU path}."""
    out = tmp_path_factory.mktemp("law-switches")
    user = tmp_path_factory.mktemp("law-switches-user")
    built = {}

    def get(model, source=None):
        short = model.split(".")[-1]
        if short not in built:
            if source is None:
                built[short] = build_fmu(model, PACKAGE, out).fmu
            else:
                f = user / f"{short}.mo"
                f.write_text(textwrap.dedent(source))
                built[short] = build_fmu(short, f.parent, out, path=f).fmu
        return built[short]
    return get


def _outputs(fmu):
    md = read_model_description(str(fmu))
    return [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]


def _sim(fmu, stop=None, **start):
    kw = {} if stop is None else {"stop_time": stop}
    with unzipped(fmu) as d:
        return fmpy.simulate_fmu(d, output=_outputs(fmu), start_values=start, **kw)


def _worst(res, ref, names):
    """max over the signals of max|res - ref| / range(ref) (range 0: absolute difference)."""
    assert np.array_equal(res["time"], ref["time"])
    worst = 0.0
    for n in names:
        rng = float(np.ptp(ref[n]))
        d = float(np.max(np.abs(res[n] - ref[n])))
        worst = max(worst, d / rng if rng > 0 else d)
    return worst


def _variable(fmu, name):
    md = read_model_description(str(fmu))
    return next(v for v in md.modelVariables if v.name == name)


def _switch_check(fmu_a, fmu_b, name, value, stop=None):
    """fmu_a with ``name = value`` reproduces fmu_b; without the switch it does not."""
    v = _variable(fmu_a, name)
    assert v.causality == "parameter" and v.variability in ("fixed", "tunable") and v.type == "Boolean"
    names = _outputs(fmu_a)
    ref = _sim(fmu_b, stop)
    switched = _sim(fmu_a, stop, **{name: value})
    plain = _sim(fmu_a, stop)
    dev = _worst(switched, ref, names)
    print(f"{name} = {value}: worst deviation {dev:.3e} of range")
    assert dev <= TOL
    assert _worst(plain, ref, names) > 1e-3          # the switch changes the results
    return dev


def test_lubricated_switch_on_the_dry_fmu_reproduces_the_lubricated_example(fmus):
    dry = fmus("WearCosim.Examples.SliderCrank.SliderCrankDry")
    lub = fmus("WearCosim.Examples.SliderCrank.SliderCrankLubricated")
    _switch_check(dry, lub, "lubricated", True)
    # and back: the lubricated FMU switched to dry is the dry example
    _switch_check(lub, dry, "lubricated", False)


BUILD_TIME_VARIANTS = {
    # switch: (example, variant's name, its modification, experiment of the variant, value, stop)
    "variableStiffness": ("WearCosim.Examples.Gears.KuboDynamicFactor", "KuboConstant",
                          "variableStiffness = false", "StopTime = 0.03, Interval = 1e-6, Tolerance = 1e-7",
                          False, 0.01),
    "elasticStator": ("WearCosim.Examples.Rotor.TwoDiskRub", "TwoDiskRubElastic", "elasticStator = true",
                      "StopTime = 1.5, Interval = 2e-4, Tolerance = 1e-7", True, 0.3),
}


@pytest.mark.parametrize("switch", list(BUILD_TIME_VARIANTS))
def test_switch_reproduces_the_build_time_variant(fmus, switch):
    """KuboDynamicFactor with variableStiffness = false, TwoDiskRub with elasticStator = true,
    set on the built FMU, against a variant that fixes the choice when it is built."""
    example, name, mod, experiment, value, stop = BUILD_TIME_VARIANTS[switch]
    built = fmus(example)
    variant = fmus(name, f"""
        model {name} "{example.rsplit('.', 1)[-1]} with {mod} chosen at build time"
          extends {example}({mod});
          annotation (experiment({experiment}));
        end {name};
        """)
    _switch_check(built, variant, switch, value, stop=stop)


def test_a_final_switch_is_still_folded(fmus):
    """The force-element twins fix the law with a final modifier: a constant, not a parameter."""
    dry = fmus("WearCosim.Components.Joints.RevoluteClearanceDry")
    v = _variable(dry, "lubricated")
    assert v.variability == "constant" and v.causality != "parameter"


# ------------------------------------------------------------------ replaceable laws
def test_redeclared_joint_law_lankarani_nikravesh(fmus):
    """Same orbit regimes, different contact force: Lankarani-Nikravesh damps less than Flores
    at cr = 0.9 (3(1 - cr^2)/4 = 0.1425 vs 8(1 - cr)/(5 cr) = 0.178), so the contact force
    history differs while the slider acceleration stays the same order."""
    flores = _sim(fmus("WearCosim.Examples.SliderCrank.SliderCrankDry"))
    ln = _sim(fmus("WearCosim.Examples.SliderCrank.SliderCrankLankarani"))
    assert _worst(ln, flores, ["Fn", "ex", "ey"]) > 1e-3
    assert 0.5 < np.max(np.abs(ln["aSlider"])) / np.max(np.abs(flores["aSlider"])) < 2


def test_redeclared_mesh_stiffness_harmonic_matches_its_closed_form(fmus):
    """The harmonic law oscillates about the mean stiffness with the first-harmonic amplitude
    (kDouble - kSingle)*2/pi*sin(pi*(epsAlpha - 1)) of the rectangle wave."""
    fmu = fmus("WearCosim.Examples.Gears.KuboHarmonicStiffness")
    r = _sim(fmu, stop=0.01)
    kS, kD = 1.3e8, 2.3e8
    module, z, alpha = 4e-3, 25, 20 * math.pi / 180
    rho = module * z / 2
    eps = (2 * math.sqrt((rho + module) ** 2 - (rho * math.cos(alpha)) ** 2) - 2 * rho * math.sin(alpha)) \
        / (math.pi * module * math.cos(alpha))
    kmean = kS + (kD - kS) * (eps - 1)
    amp = (kD - kS) * 2 / math.pi * math.sin(math.pi * (eps - 1))
    k = r["k"]
    assert np.max(k) <= kmean + amp * (1 + 1e-9) and np.min(k) >= kmean - amp * (1 + 1e-9)
    assert np.max(k) == pytest.approx(kmean + amp, rel=1e-3)
    assert np.min(k) == pytest.approx(kmean - amp, rel=1e-3)
    rect = _sim(fmus("WearCosim.Examples.Gears.KuboDynamicFactor"), stop=0.01)
    # the default (smoothed rectangle) stays within [kSingle, kDouble]; its first harmonic
    # overshoots kDouble for this contact ratio (mean 0.61 of the step + amplitude 0.60)
    assert kS * (1 - 1e-9) <= np.min(rect["k"]) and np.max(rect["k"]) <= kD * (1 + 1e-9)
    assert np.max(k) > kD


def test_redeclared_rub_law_hunt_crossley(fmus):
    """Hunt-Crossley: the same elastic part k_c*delta, damping proportional to the penetration,
    so the contact force is continuous at the onset; the results differ from Kelvin-Voigt."""
    kv = _sim(fmus("WearCosim.Examples.Rotor.Jeffcott"), stop=0.3)
    hc = _sim(fmus("WearCosim.Examples.Rotor.JeffcottHuntCrossley"), stop=0.3)
    assert _worst(hc, kv, ["Fn"]) > 1e-3
    assert np.all(hc["Fn"] >= 0)


# ------------------------------------------------------------------ the exporter rule
def test_evaluate_false_keeps_integer_and_boolean_parameters_tunable(tmp_path):
    """Evaluate=false keeps a Boolean tunable, also through a binding; a final literal
    binding folds it; unannotated Integer/Boolean parameters are folded as before.  (rumoca
    refuses Evaluate=false on a parameter that fixes a dimension: MLS 10.1.)"""
    src = tmp_path / "Sw.mo"
    src.write_text(textwrap.dedent("""
        model Sw
          model Law
            parameter Boolean fast = false "switch" annotation(Evaluate = false);
            Real x(start = 1, fixed = true);
          equation
            if fast then
              der(x) = -2*x;
            else
              der(x) = -x;
            end if;
          end Law;
          parameter Boolean fast = false "top-level switch" annotation(Evaluate = false);
          parameter Integer n = 2 "a size: folded";
          parameter Boolean plain = false "no annotation: folded";
          Law a(fast = fast);
          Law b(final fast = true);
          Real v[n] = fill(a.x, n);
          output Real y = a.x + (if plain then 1 else 0);
        end Sw;
        """))
    fmu = build_fmu("Sw", tmp_path, tmp_path / "out", path=src).fmu
    md = {v.name: v for v in read_model_description(str(fmu)).modelVariables}
    assert md["fast"].causality == "parameter" and md["fast"].type == "Boolean"
    assert md["a.fast"].causality == "calculatedParameter"
    assert md["b.fast"].variability == "constant"
    assert md["n"].variability == "constant"
    assert md["plain"].variability == "constant"
    with unzipped(fmu) as d:
        slow = fmpy.simulate_fmu(d, stop_time=1, output=["y"])
        fast = fmpy.simulate_fmu(d, stop_time=1, output=["y"], start_values={"fast": True})
    assert slow["y"][-1] == pytest.approx(math.exp(-1), rel=1e-5)
    assert fast["y"][-1] == pytest.approx(math.exp(-2), rel=1e-5)
