"""A modifier's value reaches a subcomponent through a binding, and the parameter it modifies
stays the one that counts (Modelica 3.6, 7.2: a modification replaces the binding of the
element it names; ``Inner inner1(final k = k)`` binds ``inner1.k`` to the *expression* ``k``
of the enclosing class, whatever value modifies ``k``).

rumoca 0.10.2 copies the modifier's value into the inner binding instead (``o.inner1.k = 2``,
not ``= o.k``): the default is right, but ``o.k`` set on the FMU then changes nothing -- the
exporter's front end binds the copy to its owner again (frontend._restore_propagated_bindings).
Models written for this test from the language specification; the closed forms are y = k t."""
import pytest
from fmpy import read_model_description, simulate_fmu

from wearcosim.export.build import build_fmu

MODELS = """
package PropMod
  model Inner
    parameter Real k = 1 "gain";
    Real y = k * time;
  end Inner;
  model Outer
    parameter Real k = 1 "the outer gain";
    parameter Real twice = 2 * k;
    Inner inner1(final k = k);
    Inner inner2(k = twice);
  end Outer;
  model Top "a modifier two levels up"
    Outer o(k = 2);
  end Top;
  model TopExtends "a modifier of an extends clause"
    extends Outer(k = 3);
  end TopExtends;
  model Each "one modifier for every element: independent parameters"
    Inner a[2](each k = 3);
  end Each;
  model Inner5 = Inner(k = 5);
  model Holder
    Inner5 h;
  end Holder;
  model Short "one short class's modifier in two instances at two depths: independent parameters"
    Inner5 p;
    Holder s;
  end Short;
end PropMod;
"""


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    d = tmp_path_factory.mktemp("propmod")
    (d / "PropMod.mo").write_text(MODELS)
    return {m: build_fmu(f"PropMod.{m}", path=d / "PropMod.mo", out_dir=d / "out").fmu
            for m in ("Top", "TopExtends", "Each", "Short")}


def _at_1(fmu, names, **start):
    r = simulate_fmu(str(fmu), stop_time=1.0, output_interval=0.5, output=names, start_values=start)
    return {n: float(r[n][-1]) for n in names}


def _causality(fmu):
    return {v.name: v.causality for v in read_model_description(str(fmu)).modelVariables}


def test_the_modified_parameter_drives_what_it_is_bound_to(fmus):
    fmu = fmus["Top"]
    c = _causality(fmu)
    assert c["o.k"] == "parameter" and c["o.inner1.k"] == "calculatedParameter"
    names = ["o.inner1.y", "o.inner2.y"]
    assert _at_1(fmu, names) == pytest.approx({"o.inner1.y": 2.0, "o.inner2.y": 4.0})
    assert _at_1(fmu, names, **{"o.k": 5.0}) == pytest.approx({"o.inner1.y": 5.0, "o.inner2.y": 10.0})


def test_an_extends_modifier_too(fmus):
    fmu = fmus["TopExtends"]
    assert _at_1(fmu, ["inner1.y"]) == pytest.approx({"inner1.y": 3.0})
    assert _at_1(fmu, ["inner1.y", "inner2.y"], k=0.5) == pytest.approx({"inner1.y": 0.5, "inner2.y": 1.0})


def test_each_and_short_class_modifiers_stay_independent(fmus):
    c = _causality(fmus["Each"])
    assert c["a[1].k"] == c["a[2].k"] == "parameter"
    assert _at_1(fmus["Each"], ["a[1].y", "a[2].y"], **{"a[1].k": 7.0}) == \
        pytest.approx({"a[1].y": 7.0, "a[2].y": 3.0})
    c = _causality(fmus["Short"])
    assert c["p.k"] == c["s.h.k"] == "parameter"
    got = _at_1(fmus["Short"], ["p.y", "s.h.y"], **{"p.k": 1.0})
    assert got == pytest.approx({"p.y": 1.0, "s.h.y": 5.0})
