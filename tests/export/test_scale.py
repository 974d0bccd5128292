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


NL_CHAIN = """model NlChain "a ring of 40 cubic equations: one nonlinear loop of 40 Newton unknowns"
  parameter Integer n = 40;
  Real z[n](each start = 0.5);
  Real s(start = 0, fixed = true);
equation
  for i in 1:n-1 loop
    z[i]^3 + 2*z[i] - 0.5*z[i+1] = 1 + 0.01*i + time;
  end for;
  z[n]^3 + 2*z[n] - 0.5*z[1] = 1 + 0.01*n + time;
  der(s) = z[1];
end NlChain;
"""


def test_large_nonlinear_loop_uses_the_sparse_newton_and_matches_a_reference(tmp_path):
    from scipy.optimize import fsolve
    mo = tmp_path / "NlChain.mo"
    mo.write_text(NL_CHAIN)
    fmu = build_fmu("NlChain", tmp_path, tmp_path / "out", path=mo).fmu
    with zipfile.ZipFile(fmu) as z:
        cfg = z.read("sources/config.h").decode()
    assert "#define N_W       40" in cfg and "#define MDL_NL_NNZ     80" in cfg
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        res = simulate_fmu(d, fmi_type="CoSimulation", stop_time=1.0, output_interval=0.5,
                           output=["z[1]", "z[17]", "z[40]"])
    n = 40
    for row in res:
        t = row["time"]

        def f(z):
            return z ** 3 + 2 * z - 0.5 * np.roll(z, -1) - (1 + 0.01 * np.arange(1, n + 1) + t)
        ref = fsolve(f, np.full(n, 0.5), xtol=1e-13)
        for i in (1, 17, 40):
            assert row[f"z[{i}]"] == pytest.approx(ref[i - 1], abs=1e-9)


def test_sigterm_during_a_build_removes_temp_folders_and_compilers(tmp_path):
    """SIGTERM while gcc runs: exit code 143, the build's temp folders gone, no gcc left."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from wctest import ROOT
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    mo = tmp_path / "Oscillators.mo"
    mo.write_text(oscillators(1500))
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin:/usr/local/bin", "TMPDIR": str(tmp)}
    p = subprocess.Popen([sys.executable, "-m", "wearcosim.cli", "build", "--file", str(mo), "Oscillators",
                          "--out", str(tmp_path / "out")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        for _ in range(3000):                 # until the compilers run (their object folder exists)
            if any(d.name.startswith("wearcosim-obj-") for d in tmp.iterdir()) or p.poll() is not None:
                break
            time.sleep(0.05)
        assert p.poll() is None, p.communicate()
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143, err
    assert "terminated by signal" in err
    assert list(tmp.iterdir()) == []
    for _ in range(100):                      # SIGKILLed compilers: give the kernel a moment
        left = subprocess.run(["pgrep", "-a", "-f", str(tmp)], capture_output=True, text=True).stdout.splitlines()
        left = [x for x in left if "pgrep" not in x]
        if not left:
            break
        time.sleep(0.1)
    assert left == []
    assert not (tmp_path / "out" / "Oscillators.fmu").exists()
