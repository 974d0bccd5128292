"""Scale (issue 15 item 5): generated code grows with the Jacobian's nonzeros, not n^2; large
models build and simulate (the embedded RODAS4 with the banded LU of rt_linalg); a model
above the size limit is refused early, naming the limit and the array.  No wall-clock
assertions: build time and memory are reported by ``python -m wearcosim.bench.scale``.
"""
import math
import zipfile

import numpy as np
import pytest

from wctest import unzipped
from wearcosim.bench.scale import oscillators
from wearcosim.export import frontend
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError


def build_oscillators(n, tmp_path):
    d = tmp_path / f"osc{n}"
    d.mkdir()
    mo = d / "Oscillators.mo"
    mo.write_text(oscillators(n))
    return build_fmu("Oscillators", d, d / "fmu", path=mo).fmu


def c_bytes(fmu):
    with zipfile.ZipFile(fmu) as z:
        return sum(i.file_size for i in z.infolist()      # the generated files only
                   if i.filename.startswith("sources/") and (i.filename.endswith(".inc") or i.filename.split("/")[-1]
                                                             in ("model.c", "model_jac.c", "config.h")))


def closed_form(n, t, m=1.0, d=0.4):
    """x_i(t) of m x'' + d x' + k_i x = 0, x(0) = 1, x'(0) = 0, k_i = 1 + 0.001 i."""
    k = 1.0 + 0.001 * np.arange(1, n + 1)
    a = d / (2 * m)
    w = np.sqrt(k / m - a * a)
    return np.exp(-a * t) * (np.cos(w * t) + a / w * np.sin(w * t))


def test_generated_c_grows_linearly_with_the_number_of_oscillators(tmp_path):
    small = c_bytes(build_oscillators(200, tmp_path))
    big = c_bytes(build_oscillators(400, tmp_path))
    assert big < 2.5 * small, (small, big)


def test_jacobian_is_generated_sparse(tmp_path):
    fmu = build_oscillators(40, tmp_path)
    with zipfile.ZipFile(fmu) as z:
        cfg = z.read("sources/config.h").decode()
        model = z.read("sources/model.c").decode()
    assert "#define MDL_JAC_NNZ    120" in cfg          # 3 nonzeros per oscillator, not 80^2
    assert "const int mdl_jac_colind[N_X + 1]" in model


@pytest.mark.parametrize("method", [0, 2])
def test_2000_state_oscillators_build_and_match_the_closed_form(tmp_path_factory, method):
    fmu = _fmu_2000(tmp_path_factory)
    from fmpy import simulate_fmu
    names = ["x[1]", "x[500]", "x[1000]"]
    with unzipped(fmu) as d:
        res = simulate_fmu(d, fmi_type="CoSimulation", stop_time=1.0, output_interval=0.25,
                           relative_tolerance=1e-8, output=names,
                           start_values={"solver.method": method})
    exact = closed_form(1000, res["time"][-1])
    for nm in names:
        i = int(nm[2:-1])
        assert res[nm][-1] == pytest.approx(exact[i - 1], abs=1e-5), nm


_BUILT = {}


def _fmu_2000(tmp_path_factory):
    if "fmu" not in _BUILT:
        _BUILT["fmu"] = build_oscillators(1000, tmp_path_factory.mktemp("scale"))
    return _BUILT["fmu"]


def test_a_million_element_array_is_refused_early_naming_limit_and_array(tmp_path):
    mo = tmp_path / "Huge.mo"
    mo.write_text("model Huge\n  parameter Integer n = 1000000;\n"
                  "  Real x[n](each start = 1.0, each fixed = true);\nequation\n  der(x) = -x;\nend Huge;\n")
    with pytest.raises(ExportError) as e:
        build_fmu("Huge", tmp_path, tmp_path / "out", path=mo)
    msg = str(e.value)
    assert e.value.kind == "size"
    assert "Huge.mo:3" in msg and "x[1000000]" in msg and str(frontend.MAX_SCALARS) in msg
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
