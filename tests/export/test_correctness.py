"""Exporter correctness on models written from the Modelica specification and textbooks
(issue 15): what the FMUs compute is checked against closed-form answers and rumoca's own
simulator of the same .mo file, in Co-Simulation (embedded solver) and Model Exchange.

* Nonlinear algebraic loops start Newton from the variables' ``start`` values (a loop whose
  Jacobian is singular at 0; a cubic with several roots, where ``start`` selects one).
* The equations of a when-clause are solved together at the event: an equation that uses
  another variable assigned at the same event sees its new value (MLS 8.3.5), ``pre()`` only
  where it is written.
* A linear block whose matrix is singular for every value of its coefficients is refused at
  build time, naming its variables and equations.
"""
import math

import numpy as np
import pytest

from wctest import fixture_path, unzipped
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

FMI_TYPES = ["CoSimulation", "ModelExchange"]


@pytest.fixture(scope="module")
def fmu_of(tmp_path_factory):
    """fmu_of("TwoLinkElbow") -> the fixture's FMU, built once per module."""
    out = tmp_path_factory.mktemp("correctness")
    built = {}

    def get(name):
        if name not in built:
            p = fixture_path(name)
            built[name] = build_fmu(name, p.parent, out, path=p).fmu
        return built[name]
    return get


def simulate(fmu, fmi_type, stop, names, interval=None, **kw):
    """FMPy simulation from an extraction that is removed afterwards (also on failure)."""
    from fmpy import simulate_fmu
    opts = dict(solver="CVode", relative_tolerance=1e-10) if fmi_type == "ModelExchange" \
        else dict(relative_tolerance=1e-10)
    opts.update(kw)
    with unzipped(fmu) as d:
        return simulate_fmu(d, fmi_type=fmi_type, stop_time=stop, output_interval=interval or stop / 50,
                            output=names, **opts)


def rumoca_simulation(name, stop, dt):
    """rumoca's simulator on the fixture: (t, data) with the left limits at events dropped."""
    import rumoca
    m = rumoca.Session().load(str(fixture_path(name)), model=name)
    r = m.simulate((0.0, stop), dt=dt, config=rumoca.SimConfig(rtol=1e-10, atol=1e-12)).to_dict()
    t = np.asarray(r["time"], dtype=float)
    keep = np.ones_like(t, dtype=bool)
    keep[:-1] = np.diff(t) > 0
    return t[keep], {k: np.asarray(v, dtype=float)[keep] for k, v in r["data"].items()}


# ----------------------------------------------------------------------------- item 2
def elbow_up(d, L1=1.0, L2=0.8):
    """Closed-form elbow position of the two-link arm with the hand at (d, 0), y > 0."""
    x = (L1 ** 2 - L2 ** 2 + d ** 2) / (2 * d)
    return x, np.sqrt(L1 ** 2 - x ** 2)


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_newton_starts_from_start_values_where_the_jacobian_at_zero_is_singular(fmi_type, fmu_of):
    """x^2 + y^2 = L1^2, (d - x)^2 + y^2 = L2^2: the Jacobian is singular at x = y = 0 (Newton
    from 0 failed in its first iteration); start = L1/2 selects the elbow-up solution."""
    res = simulate(fmu_of("TwoLinkElbow"), fmi_type, 4.0, ["d", "x", "y"])
    x, y = elbow_up(res["d"])
    assert np.max(np.abs(res["x"] - x)) < 1e-9
    assert np.max(np.abs(res["y"] - y)) < 1e-9
    t, ref = rumoca_simulation("TwoLinkElbow", 4.0, 0.01)
    assert np.max(np.abs(res["y"] - np.interp(res["time"], t, ref["y"]))) < 1e-6


def test_newton_start_expression_follows_a_changed_parameter(fmu_of):
    """start = L1/2 is evaluated with the parameter set before initialisation."""
    res = simulate(fmu_of("TwoLinkElbow"), "CoSimulation", 1.0, ["d", "x", "y"], start_values={"L1": 1.1})
    x, y = elbow_up(res["d"], L1=1.1)
    assert np.max(np.abs(res["x"] - x)) < 1e-9 and np.max(np.abs(res["y"] - y)) < 1e-9


def vapour_root(pr, Tr=0.9):
    A, B = 27 * pr / (64 * Tr ** 2), pr / (8 * Tr)
    return max(z.real for z in np.roots([1, -(1 + B), A, -A * B]) if abs(z.imag) < 1e-12)


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_newton_converges_to_the_root_its_start_value_selects(fmi_type, fmu_of):
    """The van der Waals cubic in Z has three real roots (liquid 0.153, unstable 0.25, vapour
    0.680 at Tr = 0.9, pr = 0.6); start = 1 (ideal gas) selects the vapour root, which the
    runtime then follows as pr varies (Newton from 0 silently gave the liquid root)."""
    res = simulate(fmu_of("VanDerWaalsZ"), fmi_type, 4.0, ["pr", "Z"])
    expect = np.array([vapour_root(p) for p in res["pr"]])
    assert np.max(np.abs(res["Z"] - expect)) < 1e-9
    t, ref = rumoca_simulation("VanDerWaalsZ", 4.0, 0.01)
    assert np.max(np.abs(res["Z"] - np.interp(res["time"], t, ref["Z"]))) < 1e-6
