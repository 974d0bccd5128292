"""Every example of the clearance-joint library exports with ``wearcosim build``, passes the
FMU checks (FMPy validation and the wear interface), and its FMU agrees with rumoca's
simulation of the same .mo file (through the WearCosimChecks wrappers, since rumoca's
simulator takes no inputs).

Metric (the exporter's, tests/export/test_fmus.py): max |FMU - rumoca| <= 1e-3 of the
signal's range on a common grid.  rumoca runs at rtol 1e-9 / atol 1e-12.  Model Exchange
runs with FMPy's CVode at rtol 1e-11: FMPy sets CVode's absolute tolerance to rtol times
the states' nominal values (1 for these angle/rate states), and the contact force is a
stiff spike whose peak is sensitive to the mechanism's angles (at rtol 1e-9 the ME force
peaks drift by up to 6e-3 of their range, at 1e-11 by < 1e-4; the CS solver scales its
absolute tolerance itself; CS runs at rtol 1e-10 because its default solver, DOPRI5 with
automatic switching to RODAS4, leaves the dry slider-crank's force peaks 1.3e-3 off at
1e-9).  The dry slider-crank is chaotic (rumoca at rtol 1e-9 and
1e-11 part after t ~ 0.029 s), so it is compared over its first 0.02 s.
"""
import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from rumoca_sim import simulate as rumoca_sim

EX = "WearCosim.Examples."
# example -> (wrapper in WearCosimChecks, stop time or None for the experiment's)
CASES = {
    "SliderCrank.SliderCrankDry": ("SliderCrankDry", 0.02),
    "SliderCrank.SliderCrankLubricated": ("SliderCrankLubricated", None),
    "HybridMechanism.DrySpeed4pi": ("HybridDrySpeed4pi", None),
    "HybridMechanism.DrySpeed8pi": ("HybridDrySpeed8pi", None),
    "HybridMechanism.DrySpeed16pi": ("HybridDrySpeed16pi", None),
    "HybridMechanism.DrySpeed32pi": ("HybridDrySpeed32pi", None),
    "HybridMechanism.DryClearance015": ("HybridDryClearance015", None),
    "HybridMechanism.DryClearance025": ("HybridDryClearance025", None),
    "HybridMechanism.DryClearance035": ("HybridDryClearance035", None),
    "HybridMechanism.DryClearance045": ("HybridDryClearance045", None),
    "HybridMechanism.Dry7pi": ("HybridDry7pi", None),
    "HybridMechanism.Lubricated7pi": ("HybridLubricated7pi", None),
}
IDEAL = ["SliderCrank.SliderCrankIdeal", "HybridMechanism.Ideal8pi"]
SIGNALS = ["ex", "ey", "delta", "Fn"]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from wearcosim.export.build import build_fmu
    from wctest import ROOT
    out = tmp_path_factory.mktemp("libfmus")
    built = {}

    def get(name):
        if name not in built:
            built[name] = build_fmu(EX + name, ROOT / "modelica" / "WearCosim", out)
        return built[name]
    return get


@pytest.mark.parametrize("name", list(CASES) + IDEAL)
def test_example_builds_and_checks(name, fmus):
    from wearcosim.fmi.check import validate
    from wearcosim.wear_interface import check
    r = fmus(name)
    assert validate(r.fmu) == []
    if name not in IDEAL:
        assert check(r.fmu) == []
        md = read_model_description(str(r.fmu))
        ins = [v.name for v in md.modelVariables if v.causality == "input"]
        assert ins and all(n.startswith("wearDepth[") for n in ins)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_example_fmu_agrees_with_rumoca(name, fmi_type, fmus):
    wrapper, stop = CASES[name]
    fmu = fmus(name).fmu
    md = read_model_description(str(fmu))
    stop = stop or float(md.defaultExperiment.stopTime)
    n_out = 2000
    t, ref = rumoca_sim(wrapper, stop, stop / n_out)
    kw = dict(solver="CVode", relative_tolerance=1e-11) if fmi_type == "ModelExchange" else dict(relative_tolerance=1e-10)
    res = simulate_fmu(str(fmu), fmi_type=fmi_type, stop_time=stop, output_interval=stop / n_out,
                       output=SIGNALS, **kw)
    worst = {}
    for n in SIGNALS:
        rng = np.ptp(ref[n])
        if rng == 0:          # e.g. no solid contact in a lubricated run: both must be 0
            assert np.max(np.abs(res[n])) == 0, n
            continue
        worst[n] = float(np.max(np.abs(res[n] - np.interp(res["time"], t, ref[n]))) / rng)
    assert max(worst.values()) <= 1e-3, worst
