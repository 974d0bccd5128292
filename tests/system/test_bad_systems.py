"""A corpus of broken systems, generated here (no binary blobs in the repository): each is
refused by ``wearcosim system check`` and ``wearcosim system pack`` with one ``error: ...``
line per problem naming the file (and the component, connector or connection), a non-zero
exit status, no traceback, nothing written to the output folder, the input left as it was,
and no temporary folder left behind (tests/conftest.py checks the temp folder after each
test)."""
from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from wctest import built_once
from wearcosim.cli import main

FIX = Path(__file__).parent / "fixtures" / "ssp"
MODELS = ("Mass", "SpringDamper", "Gain", "Counter", "Mixed")


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    """The fixture models built once per session (shared with test_ssp.py)."""
    return built_once(tmp_path_factory, FIX, MODELS, "ssp-fmus")


# ------------------------------------------------------------------ writing SSDs by hand

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"\n'
        '    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"\n'
        '    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" version="1.0" name="bad">\n')

MASS = [("F", "input", "Real", "N"), ("x", "output", "Real", "m"), ("v", "output", "Real", "m/s")]
SPRING = [("x", "input", "Real", "m"), ("v", "input", "Real", "m/s"), ("F", "output", "Real", "N")]
GAIN = [("u", "input", "Real", "m"), ("y", "output", "Real", "m")]
COUNTER = [("u", "input", "Real", ""), ("count", "output", "Integer", "")]
OSCILLATOR = [("mass.x", "spring.x"), ("mass.v", "spring.v"), ("spring.F", "mass.F")]


def ports(items) -> str:
    out = []
    for name, kind, typ, unit in items:
        u = f' unit="{unit}"' if unit else ""
        out.append(f'<ssd:Connector name="{name}" kind="{kind}"><ssc:{typ}{u}/></ssd:Connector>')
    return "<ssd:Connectors>" + "".join(out) + "</ssd:Connectors>" if out else ""


def params(values: dict) -> str:
    if not values:
        return ""
    ps = "".join(f'<ssv:Parameter name="{k}"><ssv:{t} value="{v}"/></ssv:Parameter>' for k, (t, v) in values.items())
    return ('<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>'
            f'<ssv:ParameterSet version="1.0" name="p"><ssv:Parameters>{ps}</ssv:Parameters></ssv:ParameterSet>'
            '</ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>')


def comp(name, source, items, values=None, attrs="") -> str:
    return (f'    <ssd:Component name="{name}" source="{source}"{attrs}>'
            f'{ports(items)}{params(values or {})}</ssd:Component>\n')


def conn(a: str, b: str) -> str:
    def ends(x, which):
        el, _, c = x.rpartition(".")
        return (f' {which}Element="{el}"' if el else "") + f' {which}Connector="{c}"'
    return f'      <ssd:Connection{ends(a, "start")}{ends(b, "end")}/>\n'


def ssd(components: str, connections=(), system_ports=(), system_values=None) -> str:
    cons = "".join(conn(a, b) for a, b in connections)
    return (HEAD + '  <ssd:System name="sys">' + ports(system_ports) + params(system_values or {}) +
            f"\n    <ssd:Elements>\n{components}    </ssd:Elements>\n" +
            (f"    <ssd:Connections>\n{cons}    </ssd:Connections>\n" if cons else "") +
            "  </ssd:System>\n</ssd:SystemStructureDescription>\n")


def oscillator(mass=MASS, spring=SPRING, connections=OSCILLATOR, mass_values=None, **kw) -> str:
    return ssd(comp("mass", "Mass.fmu", mass, mass_values) + comp("spring", "SpringDamper.fmu", spring),
               connections, **kw)


def write(folder: Path, fmus: dict, text: str, name="sys.ssd", models=("Mass", "SpringDamper", "Gain", "Counter")):
    folder.mkdir(parents=True, exist_ok=True)
    for m in models:
        shutil.copy(fmus[m], folder / f"{m}.fmu")
    (folder / name).write_text(text)
    return folder / name


def ssp_archive(folder: Path, members, name="sys.ssp") -> Path:
    """An .ssp from ``members``: (name, bytes) or ZipInfo-ready (ZipInfo, bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for m, data in members:
            z.writestr(m, data)
    return path


def good_ssd_for_archive() -> str:
    return oscillator().replace('source="Mass.fmu"', 'source="resources/Mass.fmu"') \
                       .replace('source="SpringDamper.fmu"', 'source="resources/SpringDamper.fmu"')


def archive_members(fmus):
    return [("SystemStructure.ssd", good_ssd_for_archive()),
            ("resources/Mass.fmu", fmus["Mass"].read_bytes()),
            ("resources/SpringDamper.fmu", fmus["SpringDamper"].read_bytes())]


def fmu_variant(fmus, model: str, dest: Path, edit) -> Path:
    """A copy of an FMU with its modelDescription.xml passed through ``edit``."""
    with zipfile.ZipFile(fmus[model]) as src, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "modelDescription.xml":
                data = edit(data.decode()).encode()
            out.writestr(info, data)
    return dest


# ------------------------------------------------------------------ the corpus
# each case: f(folder, fmus, monkeypatch) -> (path of the system, [expected message parts])

def missing_component_file(d, fmus, mp):
    return write(d, fmus, oscillator().replace('source="SpringDamper.fmu"', 'source="Spring.fmu"')), \
        ["component 'spring': FMU 'Spring.fmu': no such file"]


def unreadable_component_file(d, fmus, mp):
    p = write(d, fmus, oscillator())
    (d / "SpringDamper.fmu").write_bytes(b"not a zip")
    return p, ["component 'spring': FMU 'SpringDamper.fmu': not a zip archive"]


def bad_xml(d, fmus, mp):
    return write(d, fmus, oscillator()[:-60]), ["not well-formed XML", "line"]


def empty_file(d, fmus, mp):
    return write(d, fmus, ""), ["not well-formed XML"]


def not_an_ssd_root(d, fmus, mp):
    return write(d, fmus, (FIX / "gains.ssv").read_text()), \
        ["not an SSP system structure description: the root element is <ssv:ParameterSet>"]


def model_description_as_ssd(d, fmus, mp):
    with zipfile.ZipFile(fmus["Gain"]) as z:
        text = z.read("modelDescription.xml").decode()
    return write(d, fmus, text), ["the root element is <fmiModelDescription>"]


def unsupported_version(d, fmus, mp):
    return write(d, fmus, oscillator().replace('version="1.0" name="bad"', 'version="Draft20180219" name="bad"')), \
        ["SSP version 'Draft20180219' is not supported"]


def unit_mismatch_connection(d, fmus, mp):
    # velocity (m/s) into a position input (m)
    return write(d, fmus, oscillator(connections=[("mass.v", "spring.x"), ("mass.x", "spring.v"), ("spring.F", "mass.F")])), \
        ["connection mass.v -> spring.x: unit mismatch, 'm/s' to 'm'", "connection mass.x -> spring.v: unit mismatch, 'm' to 'm/s'"]


def unit_mismatch_connector(d, fmus, mp):
    spring = [("x", "input", "Real", "mm")] + SPRING[1:]
    return write(d, fmus, oscillator(spring=spring)), \
        ["component 'spring': connector 'x' has unit 'mm' but SpringDamper.fmu declares 'm'",
         "connection mass.x -> spring.x: unit mismatch, 'm' to 'mm'"]


def output_to_output(d, fmus, mp):
    return write(d, fmus, oscillator(connections=[("mass.x", "spring.F")])), \
        ["connection mass.x -> spring.F: output to output is not an allowed connection"]


def input_to_input(d, fmus, mp):
    return write(d, fmus, oscillator(connections=[("mass.F", "spring.x")])), \
        ["connection mass.F -> spring.x: input to input is not an allowed connection"]


def system_output_as_source(d, fmus, mp):
    return write(d, fmus, oscillator(connections=OSCILLATOR + [("y", "spring.v")], system_ports=[("y", "output", "Real", "m/s")])), \
        ["connection y -> spring.v: system output to input is not an allowed connection"]


def type_mismatch(d, fmus, mp):
    text = ssd(comp("counter", "Counter.fmu", COUNTER) + comp("gain", "Gain.fmu", GAIN),
               [("counter.count", "gain.u")])
    return write(d, fmus, text), ["connection counter.count -> gain.u: type mismatch, Integer to Real"]


def connector_type_differs_from_fmu(d, fmus, mp):
    return write(d, fmus, oscillator(mass=[("F", "input", "Integer", "")] + MASS[1:])), \
        ["component 'mass': connector 'F' is declared Integer but is Real in Mass.fmu"]


def kind_differs_from_fmu(d, fmus, mp):
    return write(d, fmus, oscillator(mass=MASS[:1] + [("x", "input", "Real", "m")] + MASS[2:],
                                     connections=[("mass.v", "spring.v"), ("spring.F", "mass.F")])), \
        ["component 'mass': connector 'x' is declared 'input' but is 'output' in Mass.fmu"]


def unconnected_input_without_start(d, fmus, mp):
    text = ssd(comp("gain", "Gain.fmu", GAIN), [("u", "gain.u"), ("gain.y", "y")],
               system_ports=[("u", "input", "Real", "m"), ("y", "output", "Real", "m")])
    return write(d, fmus, text), ["system input 'u' has no start value"]


def two_drivers_on_one_input(d, fmus, mp):
    return write(d, fmus, oscillator(connections=OSCILLATOR + [("mass.x", "spring.v")],
                                     spring=[("x", "input", "Real", "m"), ("v", "input", "Real", ""), ("F", "output", "Real", "N")])), \
        ["component 'spring': input 'v' is driven by 2 connections (from mass.v, mass.x)"]


def feedthrough_loop(d, fmus, mp):
    text = ssd(comp("g1", "Gain.fmu", GAIN) + comp("g2", "Gain.fmu", GAIN) + comp("g3", "Gain.fmu", GAIN),
               [("g1.y", "g2.u"), ("g2.y", "g3.u"), ("g3.y", "g1.u")])
    return write(d, fmus, text), \
        ["algebraic loop through direct feedthrough: g1.y -> g2.u, g2.y -> g3.u, g3.y -> g1.u (components g1, g2, g3"]


def loop_through_a_force_element(d, fmus, mp):
    # the spring's force depends on its inputs; the gain feeds the force back into them
    text = ssd(comp("spring", "SpringDamper.fmu", SPRING) + comp("gain", "Gain.fmu", [("u", "input", "Real", ""), ("y", "output", "Real", "")]),
               [("spring.F", "gain.u"), ("gain.y", "spring.v")])
    return write(d, fmus, text), ["algebraic loop through direct feedthrough: gain.y -> spring.v, spring.F -> gain.u"]


def duplicate_component_names(d, fmus, mp):
    text = ssd(comp("g", "Gain.fmu", GAIN) + comp("g", "Gain.fmu", GAIN))
    return write(d, fmus, text), ["component name 'g' is used more than once"]


def duplicate_connector_names(d, fmus, mp):
    return write(d, fmus, oscillator(mass=MASS + [("x", "output", "Real", "m")])), \
        ["component 'mass': connector 'x' is declared more than once"]


def duplicate_system_connector_names(d, fmus, mp):
    text = ssd(comp("gain", "Gain.fmu", GAIN), [("u", "gain.u")],
               system_ports=[("u", "input", "Real", "m"), ("u", "input", "Real", "m")], system_values={"u": ("Real", "1")})
    return write(d, fmus, text), ["system 'sys': connector 'u' is declared more than once"]


def unknown_connector(d, fmus, mp):
    return write(d, fmus, oscillator(connections=OSCILLATOR + [("mass.x", "spring.z")])), \
        ["connection mass.x -> spring.z: component 'spring' has no connector 'z'"]


def undeclared_connector(d, fmus, mp):
    # the FMU has the variable, the SSD does not declare it (SSP 5.2.1: it must)
    return write(d, fmus, oscillator(spring=SPRING[1:])), \
        ["connection mass.x -> spring.x: component 'spring' has no connector 'x' (the FMU has a variable 'x'"]


def connector_not_in_fmu(d, fmus, mp):
    return write(d, fmus, oscillator(mass=MASS + [("a", "output", "Real", "m/s2")])), \
        ["component 'mass': connector 'a' is not a variable of Mass.fmu"]


def unknown_component(d, fmus, mp):
    return write(d, fmus, oscillator(connections=OSCILLATOR + [("mass.x", "damper.x")])), \
        ["connection mass.x -> damper.x: no component 'damper'"]


def implementation_not_in_fmu(d, fmus, mp):
    d.mkdir(parents=True)
    fmu_variant(fmus, "Gain", d / "GainME.fmu",
                lambda t: re.sub(r"<CoSimulation .*?</CoSimulation>\s*", "", t, flags=re.S))
    text = ssd(comp("gain", "GainME.fmu", GAIN, attrs=' implementation="CoSimulation"'))
    return write(d, fmus, text, models=()), \
        ["component 'gain': implementation 'CoSimulation' is not provided by GainME.fmu (it has: ModelExchange)"]


def parameter_unknown(d, fmus, mp):
    return write(d, fmus, oscillator(mass_values={"mass": ("Real", "1")})), \
        ["component 'mass': parameter binding 'mass': no such variable in Mass.fmu"]


def parameter_not_settable(d, fmus, mp):
    # y: a calculated output; n: a parameter the exporter made a constant
    text = ssd(comp("gain", "Gain.fmu", GAIN, {"y": ("Real", "1"), "n": ("Integer", "4")}))
    return write(d, fmus, text), \
        ["component 'gain': parameter binding 'y': output variable (variability continuous, initial calculated) "
         "cannot be set before initialisation",
         "component 'gain': parameter binding 'n': local variable (variability constant"]


def parameter_of_the_wrong_type(d, fmus, mp):
    return write(d, fmus, oscillator(mass_values={"solver.method": ("Real", "1.5")})), \
        ["component 'mass': parameter binding 'solver.method': a Real value for an Integer variable"]


def source_outside_the_folder(d, fmus, mp):
    write(d.parent, fmus, "", name="unused.txt")
    return write(d, fmus, oscillator().replace('source="Mass.fmu"', 'source="../Mass.fmu"')), \
        ["component 'mass': source '../Mass.fmu' points outside the folder of sys.ssd ('..')"]


def source_absolute(d, fmus, mp):
    return write(d, fmus, oscillator().replace('source="Mass.fmu"', f'source="{fmus["Mass"]}"')), \
        ["component 'mass': source", "is an absolute path"]


def source_uri_with_scheme(d, fmus, mp):
    return write(d, fmus, oscillator().replace('source="Mass.fmu"', f'source="{fmus["Mass"].as_uri()}"')), \
        ["component 'mass': source 'file://", "is not a relative URI"]


def source_through_a_symlink(d, fmus, mp):
    p = write(d, fmus, oscillator())
    (d / "Mass.fmu").unlink()
    (d / "Mass.fmu").symlink_to(fmus["Mass"])
    return p, ["component 'mass': source 'Mass.fmu' points outside the folder of sys.ssd (through a symbolic link)"]


def parameter_source_outside(d, fmus, mp):
    text = oscillator().replace('<ssd:System name="sys">',
                                '<ssd:System name="sys"><ssd:ParameterBindings>'
                                '<ssd:ParameterBinding source="../values.ssv"/></ssd:ParameterBindings>')
    return write(d, fmus, text), ["system 'sys': parameter binding: source '../values.ssv' points outside"]


def nested_system(d, fmus, mp):
    text = ssd(comp("gain", "Gain.fmu", GAIN) + '    <ssd:System name="inner"/>\n')
    return write(d, fmus, text), ["nested system 'inner': only flat systems are supported"]


def component_not_an_fmu(d, fmus, mp):
    text = ssd(comp("sub", "sub.ssd", [], attrs=' type="application/x-ssp-definition"'))
    return write(d, fmus, text), ["component 'sub': type 'application/x-ssp-definition' is not supported"]


def connection_transformation(d, fmus, mp):
    text = oscillator().replace(
        '<ssd:Connection startElement="mass" startConnector="x" endElement="spring" endConnector="x"/>',
        '<ssd:Connection startElement="mass" startConnector="x" endElement="spring" endConnector="x">'
        '<ssc:LinearTransformation factor="2"/></ssd:Connection>')
    return write(d, fmus, text), ["connection mass.x -> spring.x: LinearTransformation is not supported"]


def ssp_member_with_dotdot(d, fmus, mp):
    return ssp_archive(d, archive_members(fmus) + [("resources/../../x.fmu", b"x")]), \
        ["unsafe path in archive ('..' component): 'resources/../../x.fmu'"]


def ssp_member_absolute(d, fmus, mp):
    members = archive_members(fmus)
    info = zipfile.ZipInfo("/tmp/x.fmu")
    return ssp_archive(d, members + [(info, b"x")]), ["unsafe path in archive (absolute): '/tmp/x.fmu'"]


def ssp_member_symlink(d, fmus, mp):
    info = zipfile.ZipInfo("resources/link.fmu")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return ssp_archive(d, archive_members(fmus) + [(info, b"/etc/passwd")]), \
        ["archive contains a symbolic link: 'resources/link.fmu'"]


def ssp_zip_bomb(d, fmus, mp):
    # 17 MiB of zeros deflate ~1000x: above the ratio guard (200x for members of 16 MiB and more)
    return ssp_archive(d, archive_members(fmus) + [("extra/zeros.bin", bytes(17 << 20))]), \
        ["member 'extra/zeros.bin' declares a compression ratio above 200", "zip bomb?"]


def ssp_oversize(d, fmus, mp):
    mp.setenv("WEARCOSIM_FMU_MAX_SIZE", "100k")
    return ssp_archive(d, archive_members(fmus)), ["uncompressed, above the limit of 100 KiB"]


def ssp_without_ssd(d, fmus, mp):
    return ssp_archive(d, archive_members(fmus)[1:]), ["no SystemStructure.ssd at the root of the archive"]


def ssp_not_a_zip(d, fmus, mp):
    d.mkdir(parents=True)
    (d / "sys.ssp").write_bytes(b"PK\x03\x04 truncated")
    return d / "sys.ssp", ["not a zip archive, or a truncated one"]


def ssp_with_a_broken_system(d, fmus, mp):
    members = archive_members(fmus)
    members[0] = ("SystemStructure.ssd", members[0][1].replace('startConnector="x" endElement="spring" endConnector="x"',
                                                               'startConnector="x" endElement="spring" endConnector="F"'))
    return ssp_archive(d, members), ["connection mass.x -> spring.F: output to output is not an allowed connection"]


def ssp_source_outside_the_archive(d, fmus, mp):
    members = archive_members(fmus)
    members[0] = ("SystemStructure.ssd", members[0][1].replace('source="resources/Mass.fmu"', 'source="resources/../../Mass.fmu"'))
    return ssp_archive(d, members), ["component 'mass': source 'resources/../../Mass.fmu' points outside the archive"]


CASES = {f.__name__: f for f in [
    missing_component_file, unreadable_component_file, bad_xml, empty_file, not_an_ssd_root,
    model_description_as_ssd, unsupported_version, unit_mismatch_connection, unit_mismatch_connector,
    output_to_output, input_to_input, system_output_as_source, type_mismatch, connector_type_differs_from_fmu,
    kind_differs_from_fmu, unconnected_input_without_start, two_drivers_on_one_input, feedthrough_loop,
    loop_through_a_force_element, duplicate_component_names, duplicate_connector_names,
    duplicate_system_connector_names, unknown_connector, undeclared_connector, connector_not_in_fmu,
    unknown_component, implementation_not_in_fmu, parameter_unknown, parameter_not_settable,
    parameter_of_the_wrong_type, source_outside_the_folder, source_absolute, source_uri_with_scheme,
    source_through_a_symlink, parameter_source_outside, nested_system, component_not_an_fmu,
    connection_transformation, ssp_member_with_dotdot, ssp_member_absolute, ssp_member_symlink,
    ssp_zip_bomb, ssp_oversize, ssp_without_ssd, ssp_not_a_zip, ssp_with_a_broken_system,
    ssp_source_outside_the_archive]}


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 12


@pytest.mark.parametrize("case", list(CASES))
def test_broken_system_is_refused(case, tmp_path, fmus, monkeypatch, capsys):
    src, out = tmp_path / "sys", tmp_path / "out"
    out.mkdir()
    path, expected = CASES[case](src, fmus, monkeypatch)
    before = snapshot(tmp_path)
    for argv in (["system", "check", str(path)], ["system", "pack", str(path), "-o", str(out / "sys.ssp")]):
        rc = main(argv)
        cap = capsys.readouterr()
        assert rc == 1, (argv, rc, cap)
        lines = cap.err.strip().splitlines()
        assert lines and all(line.startswith("error: ") for line in lines), cap.err
        # every line names the file (the archive for an .ssp)
        assert all(str(path) in line for line in lines), cap.err
        for part in expected:
            assert part in cap.err, (part, cap.err)
        assert "Traceback" not in cap.err and "internal error" not in cap.err, cap.err
        assert cap.out == "", cap.out
        assert os.listdir(out) == [], os.listdir(out)           # nothing written, not even a temporary
        assert snapshot(tmp_path) == before                     # the input untouched
