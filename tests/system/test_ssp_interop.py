"""Our SSP in other tools (issue 34, point 4): a shipped system packed by
:func:`wearcosim.system.ssp.write_ssp` is read fully by libcosim and by fmu-manipulation-toolbox.

* libcosim runs the ``.ssp`` with the strongly coupled container inside (``container=...``)
  and gives the container's results: against our strong run
  (:func:`wearcosim.system.run.simulate`, ``master="strong"``) on the same grid;
* fmu-manipulation-toolbox builds its container from the ``.ssp`` with the system's interface
  (``interface=True``): its command line takes the links, the inputs and the outputs, and
  :func:`wearcosim.fmi.fmutool.build_container` adds the parameter bindings its reader drops;
  the container (FMPy) against our Co-Simulation master with the same scheme, and against the
  strong run where a held-input co-simulation agrees with it;
* what we write is valid against the SSP 1.0 XSDs; the default form is unchanged (libcosim
  cannot load the interface form: pinned below, with its message).

Short windows; the component FMUs and the containers build in a few seconds each."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from wctest import unzipped
from wearcosim.fmi import fmutool, libcosim
from wearcosim.system import examples, ssp, validate
from wearcosim.system.cosim import run_cosim
from wearcosim.system.run import container_fmu, simulate

SYSTEMS = examples.SYSTEMS
CHEAP = "cardona_case1"
#: the scheme of fmu-manipulation-toolbox's container (its container.c, default mode): inputs
#: held over the step, every FMU steps, then the outputs are read (= libcosim's)
JACOBI = {"algorithm": "jacobi", "refresh_outputs": False, "extrapolation": 0}


def _need_libcosim():
    if not libcosim.available():
        pytest.skip("libcosimpy is not importable (pip install libcosimpy; in the test extra)")


def _need_fmutool():
    if not fmutool.available():
        pytest.skip("fmu_manipulation_toolbox is not importable (pip install fmu-manipulation-toolbox; "
                    "in the test extra)")


def _system(name):
    examples.ensure_fmus(examples.system_of(name), log=print)
    return ssp.read_ssd(SYSTEMS / f"{name}.ssd")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One container cache for the module: the container packed is the one simulate() runs."""
    return tmp_path_factory.mktemp("containers")


def _rel(a, ref) -> float:
    """max |a - ref| / range of ref (peak to peak; its largest magnitude when constant; 1 when 0)."""
    a, ref = np.asarray(a, dtype=float), np.asarray(ref, dtype=float)
    scale = float(np.ptp(ref)) or float(np.max(np.abs(ref))) or 1.0
    return float(np.max(np.abs(a - ref))) / scale


def _fmu_outputs(fmu):
    md = read_model_description(str(fmu))
    return md, [v.name for v in md.modelVariables if v.causality == "output"]


def _schema_or_skip(data: bytes, where: str):
    found = ssp.schema_problems(data, where)
    if found is None:
        pytest.skip("the SSP 1.0 XSDs are not available (pyssp-standard, in the test extra, ships them; "
                    "or WEARCOSIM_SSP_SCHEMAS)")
    return found


def _ssd_of(archive: Path) -> bytes:
    with zipfile.ZipFile(archive) as z:
        return z.read(ssp.SSD_FILE)


# ------------------------------------------------------------------ what we write: XSDs, form

def test_interface_form_declares_inputs_outputs_and_their_values(tmp_path):
    s = _system(CHEAP)
    x = ssp.with_interface(s)
    outs = {f"{c.name}.{v}" for c in s.components
            for v in [w.name for w in read_model_description(str(c.path)).modelVariables if w.causality == "output"]}
    sys_in = [c for c in x.connectors if c.kind == "input"]
    sys_out = [c for c in x.connectors if c.kind == "output"]
    # the mesh's wear profile (set by the wear master, connected to nothing in the system) is
    # the system's input, bound to the FMU's start value; every output is the system's output
    assert [c.name for c in sys_in] == [f"mesh.wearDepth[{k}]" for k in range(1, 21)]
    assert all(c.unit == "m" and c.type == "Real" for c in sys_in)
    assert {c.name: x.parameters[c.name] for c in sys_in} == {c.name: 0.0 for c in sys_in}
    assert {c.name for c in sys_out} == outs and len(outs) == 56
    assert len(x.connections) == len(s.connections) + 20 + 56
    assert s.connectors == [] and s.parameters == {}          # the original is not changed
    assert x.components[1].parameters == {"data.b_in": 0.0}
    assert validate.problems(x) == []
    # written, it is valid SSP 1.0 and reads back as it was written (the system-level bindings
    # on the system inputs stay the system's)
    dest = tmp_path / "SystemStructure.ssd"
    (tmp_path / "fmus").mkdir()
    for c in s.components:
        shutil.copy(c.path, tmp_path / c.source)
    ssp.write_ssd(x, dest)
    assert _schema_or_skip(dest.read_bytes(), str(dest)) == []
    back = ssp.read_ssd(dest)
    assert back.schema_problems == [] and validate.problems(back) == []
    assert back.parameters == x.parameters and back.connectors == x.connectors
    assert ssp.to_xml(back) == dest.read_bytes()
    # and pyssp-standard, the other Python reader, accepts it
    from pyssp_standard.ssd import SSD
    other = SSD(dest)
    other.__check_compliance__()
    assert len(other.system.connections) == len(x.connections)


def test_default_pack_is_unchanged_and_interface_pack_is_valid(tmp_path):
    s = _system(CHEAP)
    plain, full = tmp_path / "plain.ssp", tmp_path / "full.ssp"
    ssp.write_ssp(s, plain)
    ssp.write_ssp(s, full, interface=True)
    packed = ssp.to_xml(s).replace(b'source="fmus/', b'source="resources/')
    assert _ssd_of(plain) == packed                   # what libcosim runs today
    assert _schema_or_skip(_ssd_of(full), "full") == []
    with ssp.open_system(full) as r:
        assert r.schema_problems == [] and validate.problems(r) == []
        assert len(r.connectors) == 76


def test_container_ssp_is_valid_and_carries_the_bindings(tmp_path, cache):
    s = _system(CHEAP)
    fmu = container_fmu(s, cache)
    dest = tmp_path / "out" / f"{CHEAP}.ssp"
    ssp.write_ssp(s, dest, container=fmu)
    with zipfile.ZipFile(dest) as z:
        assert sorted(z.namelist()) == [ssp.SSD_FILE, f"resources/{CHEAP}.fmu"]
        assert z.read(f"resources/{CHEAP}.fmu") == fmu.read_bytes()
    assert _schema_or_skip(_ssd_of(dest), str(dest)) == []
    with ssp.open_system(dest) as r:
        assert [(c.name, c.implementation) for c in r.components] == [(CHEAP, "CoSimulation")]
        assert r.components[0].parameters == {"mesh.data.b_in": 0.0}
        assert (r.start_time, r.stop_time) == (s.start_time, s.stop_time)
        assert r.connections == [] and r.schema_problems == []
        assert validate.problems(r) == []
    assert sorted(p.name for p in dest.parent.iterdir()) == [dest.name]      # nothing else written
    # the interface of a container system: its free inputs and outputs (names of the container)
    x = ssp.with_interface(ssp.container_system(s, fmu))
    assert f"{CHEAP}.mesh.wearDepth[1]" in {c.name for c in x.connectors if c.kind == "input"}
    assert f"{CHEAP}.mesh.Fn" in {c.name for c in x.connectors if c.kind == "output"}


def test_container_true_builds_it_in_a_temporary_folder(tmp_path):
    """write_ssp(container=True) without a cache builds the container in a temporary folder that
    it removes (the suite checks that no temp entry is left) and writes the archive only."""
    s = _system(CHEAP)
    said = []
    dest = ssp.write_ssp(s, tmp_path / "c.ssp", container=True, log=said.append)
    assert [p.name for p in tmp_path.iterdir()] == ["c.ssp"]
    assert len(said) == 1 and said[0].startswith(f"built container {CHEAP}-")
    with ssp.open_system(dest) as r:
        assert [c.name for c in r.components] == [CHEAP] and r.schema_problems == []
        assert validate.problems(r) == []


def test_pack_errors_are_one_line(tmp_path):
    s = _system(CHEAP)
    with pytest.raises(ValueError) as e:
        ssp.write_ssp(s, tmp_path / "x.ssp", container=tmp_path / "missing.fmu")
    assert "\n" not in str(e.value) and "missing.fmu" in str(e.value)
    broken = ssp.read_ssd(SYSTEMS / f"{CHEAP}.ssd")
    broken.components[0].path = tmp_path / "nope.fmu"
    with pytest.raises(ssp.SSPError) as e:
        ssp.with_interface(broken)
    assert "\n" not in str(e.value) and "no such file" in str(e.value)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ libcosim

def _libcosim_against_strong(name, stop, h, cache, tmp_path):
    s = _system(name)
    fmu = container_fmu(s, cache)
    packed = ssp.write_ssp(s, tmp_path / f"{name}.ssp", container=fmu)
    md = read_model_description(str(fmu))
    real = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    lc = libcosim.run_ssp(packed, stop, h, outputs=[(name, n) for n in real])
    t, strong, _ = simulate(s, stop, h, master="strong", record=real, cache_dir=cache, log=print)
    assert np.allclose(lc.time, t[1:], rtol=0, atol=1e-9 * h)        # libcosim has no start point
    dev = {n: _rel(lc[f"{name}.{n}"], strong[n][1:]) for n in real}
    worst = max(dev, key=dev.get)
    print(f"{name}: libcosim runs the packed .ssp (container inside), [0, {stop:g}] s, h = {h:g} s: "
          f"{len(real)} outputs, max deviation from the strong run {dev[worst]:.3g} of range ({worst})")
    return dev


#: the largest deviation (of range) from the strong run per system (default 1e-6): libcosim's run
#: of the container differs from FMPy's run of the same container FMU (the strong run) on the
#: dry impacting joints and the lubricated one by less than a tenfold tighter tolerance of the
#: container changes the strong run itself (slider_crank_dry: 4.4e-4 against 3.4e-2,
#: hybrid_lubricated_7pi: 1.7e-4 against 1.2e-3; docs/systems.md)
LIBCOSIM_TOL = {"slider_crank_dry": 2e-3, "hybrid_lubricated_7pi": 1e-3, "hybrid_dry_32pi": 2e-5}


@pytest.mark.parametrize("name", list(examples.EXAMPLES))
def test_libcosim_runs_every_shipped_system_with_the_container(name, tmp_path, cache):
    _need_libcosim()
    stop = 0.005 if name.startswith("cardona") else 0.02
    dev = _libcosim_against_strong(name, stop, 1e-4, cache, tmp_path)
    assert max(dev.values()) <= LIBCOSIM_TOL.get(name, 1e-6), dev


def test_libcosim_cannot_load_the_interface_form(tmp_path):
    """libcosim's SSP parser (ssp_parser.cpp, every release to 0.11 and its main branch of
    2025-08-27) requires startElement and endElement on every connection: a connection to a
    system connector, valid SSP, stops the load.  Pinned so that the documentation is updated
    when a libcosim reads it."""
    _need_libcosim()
    s = _system(CHEAP)
    packed = ssp.write_ssp(s, tmp_path / "full.ssp", interface=True)
    with pytest.raises(ValueError, match=r"libcosim cannot load the system: No such node \(<xmlattr>\.(start|end)Element\)"):
        libcosim.run_ssp(packed, 1e-3, 1e-4)


# ------------------------------------------------------------------ fmu-manipulation-toolbox

def _fmucontainer_cli(archive: Path, step: float):
    """fmu-manipulation-toolbox's own command line on our archive (its folder: everything it
    writes, the container FMU and the extraction folder, goes there)."""
    r = subprocess.run([sys.executable, "-m", "fmu_manipulation_toolbox.cli.fmucontainer",
                        "-container", f"{archive.name}:{step!r}", "-fmu-directory", str(archive.parent)],
                       capture_output=True, text=True, cwd=archive.parent, timeout=300)
    return r.returncode, r.stdout + r.stderr, archive.with_suffix(".fmu")


def test_fmucontainer_command_line_reads_our_ssp(tmp_path):
    _need_fmutool()
    s = _system(CHEAP)
    (tmp_path / "plain").mkdir()
    (tmp_path / "full").mkdir()
    # the default form: links only (the reported symptom; the tool exposes system connectors
    # only, and logs each free input as an error)
    code, log, fmu = _fmucontainer_cli(ssp.write_ssp(s, tmp_path / "plain" / "sys.ssp"), 1e-5)
    assert code == 0, log
    assert len(re.findall(r"ERROR\s*\|\s*Input .*wearDepth\[\d+\]' is not connected", log)) == 20
    assert _fmu_outputs(fmu)[1] == []
    # with the interface: every output, the wear profile as inputs, no error
    code, log, fmu = _fmucontainer_cli(ssp.write_ssp(s, tmp_path / "full" / "sys.ssp", interface=True), 1e-5)
    assert code == 0, log
    assert "ERROR" not in log, log
    md, outs = _fmu_outputs(fmu)
    x = ssp.with_interface(s)
    assert sorted(outs) == sorted(c.name for c in x.connectors if c.kind == "output")
    assert sorted(v.name for v in md.modelVariables if v.causality == "input") == \
        sorted(c.name for c in x.connectors if c.kind == "input")


def test_fmutool_container_has_every_binding_and_output_and_runs_like_our_master(tmp_path):
    """The hybrid mechanism: six bindings (body.omega = 32 pi against the FMU's 8 pi, the D3
    bronze bearing) and the 36 wear inputs.  The container the tool builds from our .ssp, with
    the bindings :func:`fmutool.build_container` gives it, runs (FMPy) like our Co-Simulation
    master with the tool's scheme on the same grid; without the bindings it does not."""
    _need_fmutool()
    name, stop, h = "hybrid_dry_32pi", 1e-3, 1e-6
    s = _system(name)
    packed = ssp.write_ssp(s, tmp_path / "src" / f"{name}.ssp", interface=True)
    built = fmutool.build_container(packed, tmp_path / "out" / "fmutool.fmu", h)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["fmutool.fmu"]
    assert built.errors == [], built.errors
    bindings = [(c.name, k) for c in s.components for k in c.parameters]
    assert len(bindings) == 6
    assert sorted((c, v) for c, v, _ in built.start_values) == sorted(
        bindings + [("joint", f"wearDepth[{k}]") for k in range(1, 37)])
    md, outs = _fmu_outputs(built.fmu)
    x = ssp.with_interface(s)
    assert sorted(outs) == sorted(built.outputs) == sorted(c.name for c in x.connectors if c.kind == "output")
    assert len(outs) == 29 and len(built.inputs) == 36
    with unzipped(built.fmu) as d:
        r = simulate_fmu(d, stop_time=stop, output_interval=h)
    ours = run_cosim(s, stop, h, record=outs, **JACOBI)
    assert np.allclose(r["time"], ours.time, rtol=0, atol=1e-9 * h)
    dev = {n: _rel(r[n], ours[n]) for n in outs}
    worst = max(dev, key=dev.get)
    print(f"{name}: fmu-manipulation-toolbox {fmutool.version()} container, {len(built.start_values)} start "
          f"values, {len(outs)} outputs, {len(built.inputs)} inputs; against our Jacobi master, h = {h:g} s, "
          f"[0, {stop:g}] s: max deviation {dev[worst]:.3g} of range ({worst})")
    assert max(dev.values()) <= 1e-6, dev
    # the bindings are what makes it that system: without them, the 8 pi mechanism
    bare = fmutool.build_container(packed, tmp_path / "out" / "bare.fmu", h, bindings=False)
    with unzipped(bare.fmu) as d:
        r0 = simulate_fmu(d, stop_time=stop, output_interval=h, output=["body.vJ[1]"])
    assert _rel(r0["body.vJ[1]"], ours["body.vJ[1]"]) > 0.1


def test_fmutool_container_of_the_rotor_runs_like_the_strong_run(tmp_path, cache):
    """two_disk_rub before the rub (20 ms): the held-input co-simulation follows the strong
    coupling, so the tool's container matches our strong run on the rotor's outputs; the
    stator's kinematics are one step late by construction (held positions, docs/systems.md)."""
    _need_fmutool()
    name, stop, h = "two_disk_rub", 0.02, 1e-4
    s = _system(name)
    packed = ssp.write_ssp(s, tmp_path / f"{name}.ssp", interface=True)
    built = fmutool.build_container(packed, tmp_path / "fmutool.fmu", h)
    assert built.errors == []
    rotor = [n for n in built.outputs if n.startswith("rotor.")]
    with unzipped(built.fmu) as d:
        r = simulate_fmu(d, stop_time=stop, output_interval=h, output=rotor)
    t, strong, _ = simulate(s, stop, h, master="strong", record=rotor, cache_dir=cache, log=print)
    dev = {n: _rel(r[n], strong[n]) for n in rotor}
    print(f"{name}: fmu-manipulation-toolbox container against the strong run, rotor outputs: "
          + ", ".join(f"{n} {d:.2g}" for n, d in dev.items()))
    assert max(dev.values()) <= 1e-8, dev


def test_fmutool_build_refuses_bad_input(tmp_path):
    _need_fmutool()
    s = _system(CHEAP)
    packed = ssp.write_ssp(s, tmp_path / "a.ssp", interface=True)
    for bad in (0.0, -1.0, float("nan"), True):
        with pytest.raises(ValueError, match="step must be"):
            fmutool.build_container(packed, tmp_path / "x.fmu", bad)
    with pytest.raises(ValueError) as e:
        fmutool.build_container(tmp_path / "missing.ssp", tmp_path / "x.fmu", 1e-5)
    assert "\n" not in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ssp"]


# ----------------------------------------------------------------------------- input extrapolation
def test_libcosim_with_the_components_extrapolating_their_inputs(tmp_path):
    """libcosim holds every input over a communication step and never calls
    fmi2SetRealInputDerivatives.  Packed with ``--input-extrapolation`` (solver.inputExtrapolation
    = 1 bound on each component), our FMUs extrapolate their inputs through the last two
    communication points themselves: on the two masses and the stiff spring across the FMU
    boundary (tests/system/fixtures/issue34, closed form x2 = 0.05 + 0.05 cos(w t)) the error
    of libcosim's run drops from first to second order in the step.  Measured: step 1e-3,
    5e-4, 2e-4 s held 0.55, 0.25, 0.096 of the 0.1 m range; extrapolated 0.043, 0.011, 0.0017."""
    _need_libcosim()
    from wearcosim import cli
    fix = Path(__file__).resolve().parent / "fixtures" / "issue34"
    assert cli.main(["build", "--file", str(fix / "TwoMassSpring.mo"), "TwoMassSpring.SpringMass",
                     "TwoMassSpring.Mass", "--out", str(tmp_path)]) == 0
    shutil.copy(fix / "TwoMassSpring.ssd", tmp_path / "TwoMassSpring.ssd")
    w = np.sqrt(2 * 1e4)
    err = {}
    with ssp.open_system(tmp_path / "TwoMassSpring.ssd") as system:
        for on in (False, True):
            packed = tmp_path / f"tms_{on}.ssp"
            ssp.write_ssp(system, packed, input_extrapolation=on)
            with zipfile.ZipFile(packed) as z:
                ssd = z.read("SystemStructure.ssd").decode()
            assert ("solver.inputExtrapolation" in ssd) == on
            for h in (5e-4, 2.5e-4):
                r = libcosim.run_ssp(packed, 0.1, h, [("b", "x2")])
                err[on, h] = float(np.max(np.abs(r.values["b.x2"] - (0.05 + 0.05 * np.cos(w * r.time))))) / 0.1
    assert err[False, 5e-4] > 0.1 and err[True, 5e-4] < 0.1 * err[False, 5e-4]
    # first order held (halving the step halves the error), second order extrapolated
    assert 1.5 < err[False, 5e-4] / err[False, 2.5e-4] < 3
    assert err[True, 5e-4] / err[True, 2.5e-4] > 3


def test_pack_input_extrapolation_and_container_exclude_each_other(tmp_path, capsys):
    from wearcosim import cli
    rc = cli.main(["system", "pack", str(SYSTEMS / f"{CHEAP}.ssd"), "-o", str(tmp_path / "x.ssp"),
                   "--container", "--input-extrapolation"])
    assert rc != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --input-extrapolation and --container")
    assert not (tmp_path / "x.ssp").exists()
