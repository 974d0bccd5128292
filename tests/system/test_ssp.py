"""SSP system descriptions (python/wearcosim/system/ssp.py): the hand-written fixtures of
tests/system/fixtures/ssp/ (written from the SSP 1.0 / 2.0 text, not by our writer) read
and check clean; read -> write -> read is the identity; what we write is valid against the
SSP schemas and loads and runs in libcosim (from an .ssd and from a packed .ssp); the
evaluation order of the masters; ``wearcosim system check | pack | show``."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from wearcosim.atomic import stale_temporaries
from wctest import built_once
from wearcosim.cli import main
from wearcosim.system import ssp, validate
from wearcosim.system.model import Component, Connection, Connector, SSPError, System

FIX = Path(__file__).parent / "fixtures" / "ssp"
MODELS = ("Mass", "SpringDamper", "Gain", "Counter", "Mixed")


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    """The fixture models built once per session (shared with test_bad_systems.py)."""
    return built_once(tmp_path_factory, FIX, MODELS, "ssp-fmus")


def lay_out(folder: Path, fmus: dict, *files) -> Path:
    """Copy fixture files and every FMU into ``folder``; return the first file's copy."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in fmus.values():
        shutil.copy(f, folder / f.name)
    for name in files:
        shutil.copy(FIX / name, folder / name)
    return folder / files[0] if files else folder


def normal(system: System) -> System:
    """The system without what legitimately changes on a rewrite: where it was read from,
    the SSP version (written as 1.0), connections oriented source first."""
    s = replace(system, file=None, base=None, version="1.0", schema_problems=[],
                components=[replace(c, path=None) for c in system.components])
    s.connections = [ssp._oriented(system, c) for c in system.connections]
    return s


# ------------------------------------------------------------------------------ fixtures

def test_oscillator_fixture_reads_as_written(tmp_path, fmus):
    s = ssp.read_ssd(lay_out(tmp_path, fmus, "oscillator.ssd"))
    assert s.name == "oscillator" and s.ssd_name == "Oscillator" and s.description == "mass-spring-damper"
    assert [c.name for c in s.components] == ["mass", "spring"]
    mass, spring = s.components
    assert mass.path == tmp_path / "Mass.fmu"
    assert [(c.name, c.kind, c.type, c.unit) for c in mass.connectors] == [
        ("F", "input", "Real", "N"), ("x", "output", "Real", "m"), ("v", "output", "Real", "m/s")]
    assert spring.connector("v").unit == ""           # no unit given: the FMU's (SSP 4.5.1)
    assert spring.implementation == "CoSimulation" and mass.implementation == "any"
    assert mass.parameters == {"m": 2.0, "x0": 0.05}
    assert len(mass.annotations) == 1 and 'type="org.example.editor"' in mass.annotations[0]
    assert s.units["N"] == {"kg": "1", "m": "1", "s": "-2"}
    assert (s.start_time, s.stop_time) == (0.0, 2.0)
    # the third connection is written input first: oriented by the kinds
    assert validate.flow(s, s.connections[2]) == (("spring", "F"), ("mass", "F"))
    assert s.schema_problems == []
    assert validate.problems(s) == []
    assert validate.evaluation_order(s) == ["mass", "spring"]


def test_gains_fixture_system_connectors_and_parameter_sources(tmp_path, fmus):
    s = ssp.read_ssd(lay_out(tmp_path, fmus, "gains.ssd", "gains.ssv"))
    assert [(c.name, c.kind) for c in s.connectors] == [("u", "input"), ("y", "output")]
    first, second = s.components
    # the system's binding (gains.ssv, prefix "first.") wins over the component's inline k=10
    assert first.parameters == {"k": 3.5, "solver.method": 2}
    assert second.parameters == {"k": -0.5, "solver.rtol": 1e-8}
    assert s.parameters == {"u": 0.25}
    assert s.connections[0] == Connection(None, "u", "first", "u")
    assert validate.problems(s) == []
    assert validate.evaluation_order(s) == ["first", "second"]


def test_ssp20_fixture(tmp_path, fmus):
    s = ssp.read_ssd(lay_out(tmp_path, fmus, "oscillator20.ssd"))
    assert s.version == "2.0"
    assert {(c.type, c.unit) for c in s.component("mass").connectors} == {("Real", "N"), ("Real", "m"), ("Real", "m/s")}
    assert validate.problems(s) == []
    out = ssp.to_xml(s)
    assert b'version="1.0"' in out and b"ssc:Real" in out and b"Float64" not in out


def test_schemas_are_available():
    # the test extra installs pyssp-standard, whose wheel carries the SSP XSDs
    assert ssp.schema_dir("1.0") is not None and ssp.schema_dir("2.0") is not None


@pytest.mark.parametrize("name", ["oscillator.ssd", "gains.ssd", "oscillator20.ssd", "gains.ssv"])
def test_fixtures_are_valid_against_the_schemas(name):
    from lxml import etree
    root = etree.parse(str(FIX / name)).getroot()
    kind = "ssv" if name.endswith(".ssv") else "ssd"
    assert ssp.schema_problems(root, name, kind=kind, version=root.get("version")) == []


def test_schema_findings_are_reported(tmp_path, fmus):
    ssd = lay_out(tmp_path, fmus, "oscillator.ssd")
    ssd.write_text(ssd.read_text().replace('<ssd:DefaultExperiment startTime="0" stopTime="2"/>',
                                           '<ssd:DefaultExperiment startTime="zero"/>'))
    with pytest.raises(SSPError, match=r"oscillator.ssd:\d+: ssd:DefaultExperiment: startTime='zero' is not a number"):
        ssp.read_ssd(ssd)
    ssd.write_text(ssd.read_text().replace('startTime="zero"', 'startTime="0" bogus="1"'))
    s = ssp.read_ssd(ssd)
    assert len(s.schema_problems) == 1 and "bogus" in s.schema_problems[0]
    assert s.schema_problems[0].startswith(f"{ssd}:")
    assert validate.problems(s) == s.schema_problems


# ------------------------------------------------------------------------------ round trip

@pytest.mark.parametrize("files", [("oscillator.ssd",), ("gains.ssd", "gains.ssv"), ("oscillator20.ssd",)])
def test_round_trip(tmp_path, fmus, files):
    first = ssp.read_ssd(lay_out(tmp_path, fmus, *files))
    written = ssp.write_ssd(first, tmp_path / "written.ssd")
    second = ssp.read_ssd(written)
    assert normal(second) == normal(first)
    assert second.schema_problems == []
    # the writer is a fixed point after one pass
    assert ssp.to_xml(second) == written.read_bytes()
    assert validate.problems(second) == []


def test_round_trip_of_a_system_built_in_code(tmp_path, fmus):
    lay_out(tmp_path, fmus)
    s = System(name="built", description="made with the dataclasses", start_time=0.5, stop_time=3.0,
               components=[
                   Component("g1", "Gain.fmu", connectors=[Connector("u", "input", "Real", "m"),
                                                           Connector("y", "output", "Real", "m")],
                             parameters={"k": 1.5, "solver.method": 1, "solver.rtol": 1e-9}),
                   Component("c", "Counter.fmu", implementation="ModelExchange",
                             connectors=[Connector("u", "input"), Connector("count", "output", "Integer")])],
               connectors=[Connector("u", "input", "Real", "m"), Connector("n", "output", "Integer")],
               connections=[Connection(None, "u", "g1", "u"), Connection("c", "u", "g1", "y"),
                            Connection("c", "count", None, "n")],
               parameters={"u": 2.0})
    out = ssp.write_ssd(s, tmp_path / "built.ssd")
    back = ssp.read_ssd(out)
    assert back.schema_problems == []
    # what the writer adds: the root's name (the system's), the definitions of the units used
    assert normal(back) == normal(replace(s, file=out, ssd_name="built", units={"m": {"m": "1"}}))
    # the connection c.u <- g1.y was given input first: written source first
    assert back.connections[1] == Connection("g1", "y", "c", "u")
    assert validate.problems(back) == []


def test_values_of_every_type_survive(tmp_path):
    s = System("v", components=[Component("a", "A.fmu", parameters={
        "r": -1.25e-300, "big": 1e300, "inf": float("inf"), "i": -7, "b": True, "f": False, "s": "x <&> \"y\""})])
    back = ssp.read_ssd(ssp.write_ssd(s, tmp_path / "v.ssd"))
    got = back.component("a").parameters
    assert got == s.components[0].parameters
    assert [type(v) for v in got.values()] == [float, float, float, int, bool, bool, str]


def test_units_are_defined_for_what_connectors_use():
    s = System("u", components=[Component("a", "A.fmu", connectors=[
        Connector("p", "output", "Real", "N.m/rad"), Connector("q", "input", "Real", "mm"),
        Connector("r", "input", "Real", "N/m1.5")])])
    from lxml import etree
    root = etree.fromstring(ssp.to_xml(s))
    units = {u.get("name"): dict(u[0].attrib) for u in root.iter(ssp._q("ssc", "Unit"))}
    assert units["N.m/rad"] == {"kg": "1", "m": "2", "s": "-2", "rad": "-1"}
    assert units["mm"] == {"m": "1", "factor": "0.001"}
    assert "N/m1.5" not in units              # no integer exponents: no definition rather than a wrong one
    assert ssp.schema_problems(root, "u") == []


def test_base_unit_and_same_unit():
    assert ssp.base_unit("m/s2") == {"m": "1", "s": "-2"}
    assert ssp.base_unit("kg.m2") == {"kg": "1", "m": "2"}
    assert ssp.base_unit("1/s") == {"s": "-1"}
    assert ssp.base_unit("Pa.s") == {"kg": "1", "m": "-1", "s": "-1"}
    assert ssp.base_unit("furlong") is None and ssp.base_unit("N/m1.5") is None
    assert validate.same_unit("N.m", "m.N") and validate.same_unit("J", "N.m")
    assert not validate.same_unit("m", "mm") and not validate.same_unit("m", "m/s")


def test_pyssp_standard_reads_what_we_write(tmp_path, fmus):
    # the other Python SSP implementation (evaluated in ssp.py's docstring) reads our output,
    # and its own schema check (xmlschema, the XSD 1.1 variant of the SSD schema) accepts it
    from pyssp_standard.ssd import SSD
    s = ssp.read_ssd(lay_out(tmp_path, fmus, "oscillator.ssd"))
    out = ssp.write_ssd(s, tmp_path / "written.ssd")
    other = SSD(out)
    assert [e.name for e in other.system.elements] == ["mass", "spring"]
    assert [(c.start_element, c.start_connector, c.end_element, c.end_connector) for c in other.system.connections] == [
        ("mass", "x", "spring", "x"), ("mass", "v", "spring", "v"), ("spring", "F", "mass", "F")]
    assert other.check_connections(unconnected_inputs=True, connector_not_in_system=True) == []
    other.__check_compliance__()


# ------------------------------------------------------------------------------ libcosim

def _run_in_libcosim(path: Path):
    """Load ``path`` with libcosimpy, run 0.1 s; return {(instance, variable): last value}."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver
    ex = CosimExecution.from_ssp_file(str(path), step_size=int(1e7))
    assert ex.num_slaves() == 2
    obs = CosimObserver.create_last_value()
    ex.add_observer(observer=obs)
    assert ex.simulate_until(target_time=int(1e8))
    out = {}
    for name in ("mass", "spring"):
        idx = ex.slave_index_from_instance_name(name)
        refs = {v.name.decode(): v.reference for v in ex.slave_variables(slave_index=idx)}
        for var in ("x", "v", "F"):
            out[(name, var)] = obs.last_real_values(slave_index=idx, variable_references=[refs[var]])[0]
    return out


def _expect_connected(values):
    # the spring pulls the mass back from x0 = 0.05 (bound in the SSD): connections and the
    # parameter binding are in effect; the spring sees the mass's position
    assert values[("mass", "x")] < 0.05
    assert values[("spring", "x")] == pytest.approx(values[("mass", "x")], abs=5e-3)
    # the mass gets the spring's force (one communication step late: libcosim's fixed-step
    # master is a Jacobi one): pulling back, as the spring's
    assert values[("mass", "F")] < 0 and values[("spring", "F")] < 0


def test_libcosim_loads_a_written_ssd(tmp_path, fmus):
    s = ssp.read_ssd(lay_out(tmp_path / "src", fmus, "oscillator.ssd"))
    dest = tmp_path / "src" / "SystemStructure.ssd"
    ssp.write_ssd(s, dest)
    _expect_connected(_run_in_libcosim(dest))


def test_libcosim_loads_a_packed_ssp(tmp_path, fmus, capsys):
    src = lay_out(tmp_path / "src", fmus, "oscillator.ssd")
    out = tmp_path / "out" / "oscillator.ssp"
    assert main(["system", "pack", str(src), "-o", str(out)]) == 0
    _expect_connected(_run_in_libcosim(out))


# ------------------------------------------------------------------------------ order

def test_evaluation_order_follows_feedthrough_not_declaration(tmp_path, fmus):
    lay_out(tmp_path, fmus)
    io = [Connector("u", "input", "Real", "m"), Connector("y", "output", "Real", "m")]
    s = System("chain", file=tmp_path / "chain.ssd", components=[
        Component("c", "Gain.fmu", tmp_path / "Gain.fmu", list(io)),
        Component("b", "Gain.fmu", tmp_path / "Gain.fmu", list(io)),
        Component("a", "Gain.fmu", tmp_path / "Gain.fmu", list(io))],
        connections=[Connection("a", "y", "b", "u"), Connection("b", "y", "c", "u")])
    assert validate.problems(s) == []
    assert validate.evaluation_order(s) == ["a", "b", "c"]


def test_evaluation_order_in_stages_without_a_loop(tmp_path, fmus):
    # mixed.x (no feedthrough) -> gain.u; gain.y -> mixed.u, and mixed.y = 2 mixed.u: no
    # algebraic loop, but no order of whole components: mixed, gain, then mixed again
    lay_out(tmp_path, fmus)
    s = System("staged", file=tmp_path / "staged.ssd", components=[
        Component("mixed", "Mixed.fmu", tmp_path / "Mixed.fmu", [
            Connector("u", "input", "Real", "m"), Connector("x", "output", "Real", "m"),
            Connector("y", "output", "Real", "m")]),
        Component("gain", "Gain.fmu", tmp_path / "Gain.fmu", [
            Connector("u", "input", "Real", "m"), Connector("y", "output", "Real", "m")])],
        connections=[Connection("mixed", "x", "gain", "u"), Connection("gain", "y", "mixed", "u")])
    assert validate.problems(s) == []
    assert validate.loops(s) == []
    assert validate.evaluation_order(s) == ["mixed", "gain", "mixed"]


def test_evaluation_order_refuses_a_loop(tmp_path, fmus):
    lay_out(tmp_path, fmus)
    io = [Connector("u", "input", "Real", "m"), Connector("y", "output", "Real", "m")]
    s = System("loop", file=tmp_path / "loop.ssd", components=[
        Component("g1", "Gain.fmu", tmp_path / "Gain.fmu", list(io)),
        Component("g2", "Gain.fmu", tmp_path / "Gain.fmu", list(io))],
        connections=[Connection("g1", "y", "g2", "u"), Connection("g2", "y", "g1", "u")])
    with pytest.raises(SSPError, match=r"loop.ssd: algebraic loop through direct feedthrough: "
                                       r"g1.y -> g2.u, g2.y -> g1.u \(components g1, g2"):
        validate.evaluation_order(s)


# ------------------------------------------------------------------------------ archives

def test_open_system_of_an_ssp_removes_its_folder_on_every_path(tmp_path, fmus):
    src = lay_out(tmp_path / "src", fmus, "oscillator.ssd")
    out = tmp_path / "o.ssp"
    ssp.write_ssp(ssp.read_ssd(src), out)
    with ssp.open_system(out) as s:
        folder = s.base
        assert s.file == out and (folder / "SystemStructure.ssd").is_file()
        assert s.component("mass").path == folder / "resources" / "Mass.fmu"
        assert s.component("mass").path.is_file()
        assert validate.problems(s) == []
    assert not folder.exists()
    with pytest.raises(RuntimeError, match="inside"):
        with ssp.open_system(out) as s:
            folder = s.base
            raise RuntimeError("inside")
    assert not folder.exists()
    with ssp.open_system(out, extract=False) as s:      # the SSD only, nothing extracted
        assert s.base is None and s.component("spring").path is None
        assert s.component("spring").source == "resources/SpringDamper.fmu"


def test_an_ssp_with_a_parameter_file(tmp_path, fmus, capsys):
    # made by hand as another tool would: resources/ holds the FMU and the .ssv
    text = (FIX / "gains.ssd").read_text().replace('source="Gain.fmu"', 'source="resources/Gain.fmu"') \
                                          .replace('source="gains.ssv"', 'source="resources/gains.ssv"')
    path = tmp_path / "gains.ssp"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("SystemStructure.ssd", text)
        z.write(FIX / "gains.ssv", "resources/gains.ssv")
        z.write(fmus["Gain"], "resources/Gain.fmu")
    for extract in (False, True):
        with ssp.open_system(path, extract=extract) as s:
            assert s.component("first").parameters == {"k": 3.5, "solver.method": 2}
            assert s.schema_problems == []
            if extract:
                assert validate.problems(s) == []
    assert main(["system", "show", str(path)]) == 0
    assert re.search(r"^  first +solver\.method +2$", capsys.readouterr().out, re.M)


def test_pack_bundles_each_fmu_once_and_honours_the_umask(tmp_path, fmus, capsys):
    lay_out(tmp_path / "src", fmus, "gains.ssd", "gains.ssv")
    out = tmp_path / "out" / "gains.ssp"
    old = os.umask(0o027)
    try:
        assert main(["system", "pack", str(tmp_path / "src" / "gains.ssd"), "-o", str(out)]) == 0
    finally:
        os.umask(old)
    assert f"packed {out}" in capsys.readouterr().out
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(os.listdir(out.parent)) == ["gains.ssp"] and not stale_temporaries(out)
    with zipfile.ZipFile(out) as z:
        assert sorted(z.namelist()) == ["SystemStructure.ssd", "resources/Gain.fmu"]
    with ssp.open_system(out) as s:
        assert [c.source for c in s.components] == ["resources/Gain.fmu"] * 2
        assert s.component("first").parameters == {"k": 3.5, "solver.method": 2}   # inlined from the .ssv
        assert s.parameters == {"u": 0.25}
        assert validate.problems(s) == []


def test_two_fmus_of_one_name_get_two_resources(tmp_path, fmus):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(fmus["Gain"], tmp_path / d / "Gain.fmu")
    io = [Connector("u", "input", "Real", "m"), Connector("y", "output", "Real", "m")]
    s = System("two", components=[Component("g1", "a/Gain.fmu", tmp_path / "a" / "Gain.fmu", list(io)),
                                  Component("g2", "b/Gain.fmu", tmp_path / "b" / "Gain.fmu", list(io))])
    out = ssp.write_ssp(s, tmp_path / "two.ssp")
    with zipfile.ZipFile(out) as z:
        assert sorted(z.namelist()) == ["SystemStructure.ssd", "resources/Gain.fmu", "resources/Gain_2.fmu"]


# ------------------------------------------------------------------------------ CLI

def test_cli_check_and_show(tmp_path, fmus, capsys):
    ssd = lay_out(tmp_path, fmus, "oscillator.ssd")
    assert main(["system", "check", str(ssd)]) == 0
    assert capsys.readouterr().out.strip() == f"{ssd}: OK (2 component(s), 3 connection(s))"
    assert main(["system", "show", str(ssd)]) == 0
    out = capsys.readouterr().out
    assert "system 'oscillator' (Oscillator), SSP 1.0, 2 component(s), 3 connection(s)" in out
    for line in ("mass    Mass.fmu", "spring   F          output  Real  N", "mass.x  ->  spring.x", "mass     x0    0.05"):
        assert line in out, (line, out)


def test_cli_check_reports_every_problem_in_a_subprocess(tmp_path, fmus):
    ssd = lay_out(tmp_path, fmus, "oscillator.ssd")
    ssd.write_text(ssd.read_text().replace('source="SpringDamper.fmu"', 'source="Spring.fmu"')
                   .replace('<ssc:Real unit="m/s"/>', '<ssc:Real unit="m/h"/>'))
    r = subprocess.run([sys.executable, "-m", "wearcosim.cli", "system", "check", str(ssd)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert lines == [f"error: {ssd}: component 'mass': connector 'v' has unit 'm/h' but Mass.fmu declares 'm/s'",
                     f"error: {ssd}: component 'spring': FMU 'Spring.fmu': no such file"]
    assert "Traceback" not in r.stderr
