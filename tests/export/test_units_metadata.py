"""Issue 18: the modelDescription.xml of every example FMU is one that any FMI 2.0 tool can use
as it is: valid unit strings with their definitions in SI base units, quantity/displayUnit/
nominal from the declarations, reinit on re-initialised states, the runtime's log categories,
the library's version/author/copyright/license and a documentation/index.html.

The oracles are independent of the exporter's own unit code (``wearcosim.export.units``): the
unit grammar of MLS chapter 19 and the SI definitions are written out again here (a small
parser and a table of the symbols the examples use), FMPy's validator checks the XML against
the FMI 2.0 schema and rules, the log categories are read from the runtime's C source, and the
version and license from pyproject.toml.
"""
from __future__ import annotations

import math
import re
import subprocess
import sys
import zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from wctest import PACKAGE, ROOT
from wearcosim.export import frontend
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

EXAMPLES = frontend.list_models(PACKAGE, "WearCosim.Examples")
BASE = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")


# ----------------------------------------------------------------------------- the oracle
def _si(factor=1.0, offset=0.0, **e):
    return (tuple(e.get(b, 0) for b in BASE), factor, offset)


#: SI brochure (9th ed.) tables 2 and 4 and MLS 19.1's non-SI units: the symbols the examples
#: and the fixtures below use, with their SI base-unit exponents, factor and offset
SI = {
    "kg": _si(kg=1), "g": _si(1e-3, kg=1), "m": _si(m=1), "s": _si(s=1), "A": _si(A=1), "K": _si(K=1),
    "mol": _si(mol=1), "cd": _si(cd=1), "rad": _si(rad=1), "Hz": _si(s=-1), "N": _si(kg=1, m=1, s=-2),
    "Pa": _si(kg=1, m=-1, s=-2), "J": _si(kg=1, m=2, s=-2), "W": _si(kg=1, m=2, s=-3),
    "deg": _si(math.pi / 180, rad=1), "min": _si(60.0, s=1), "degC": _si(1.0, 273.15, K=1),
    "degF": _si(5 / 9, 459.67 * 5 / 9, K=1), "rpm": _si(2 * math.pi / 60, rad=1, s=-1),
}
PREFIX = {"k": 1e3, "m": 1e-3, "u": 1e-6, "c": 1e-2, "M": 1e6, "G": 1e9}


def oracle(unit: str):
    """(exponents, factor, offset) of a unit string by MLS 19.1's grammar (integer exponents),
    or AssertionError naming why it does not parse."""
    assert unit and not re.search(r"\s", unit), f"{unit!r}: empty or has white space"
    pos = 0

    def peek():
        return unit[pos] if pos < len(unit) else ""

    def factor():
        nonlocal pos
        m = re.compile(r"([A-Za-z_]+)([+-]?[0-9]+)?").match(unit, pos)
        assert m, f"{unit!r}: no unit factor at {pos}"
        pos = m.end()
        sym, exp = m.group(1), int(m.group(2) or 1)
        if sym in SI:
            d = SI[sym]
        else:
            assert sym[0] in PREFIX and sym[1:] in SI and sym[1:] != "kg", f"{unit!r}: unknown symbol {sym}"
            d = (SI[sym[1:]][0], PREFIX[sym[0]] * SI[sym[1:]][1], 0.0)
        return [((d[0], d[1], d[2]), exp)]

    def group():
        nonlocal pos
        if peek() == "(":
            pos += 1
            f = expression()
            assert peek() == ")", f"{unit!r}: ')' missing"
            pos += 1
            return f
        return None

    def expression():
        nonlocal pos
        g = group()
        if g is not None:
            num = g
        elif unit.startswith("1", pos) and not unit[pos + 1:pos + 2].isdigit():
            pos += 1
            num = []
        else:
            num = factor()
            while peek() == ".":
                pos += 1
                num += factor()
        if peek() == "/":
            pos += 1
            g = group()
            den = g if g is not None else factor()
            num = num + [(d, -e) for d, e in den]
        return num

    fs = expression()
    assert pos == len(unit), f"{unit!r}: not a unit expression from {unit[pos:]!r}"
    if len(fs) == 1 and fs[0][1] == 1:
        return fs[0][0]
    exps, factor_ = [0] * len(BASE), 1.0
    for (e, f, _), n in fs:
        exps = [a + n * b for a, b in zip(exps, e)]
        factor_ *= f ** n
    return tuple(exps), factor_, 0.0


def test_the_oracle_reads_the_standard_examples():
    """MLS 19.1's examples, and strings it excludes."""
    assert oracle("N.m") == (_si(kg=1, m=2, s=-2)[0], 1.0, 0.0)
    assert oracle("kg.m/s2")[0] == oracle("kg.m.s-2")[0] == _si(kg=1, m=1, s=-2)[0]
    assert oracle("1/rad")[0] == _si(rad=-1)[0]
    assert oracle("mm2")[1] == pytest.approx(1e-6)
    assert oracle("J/(kg.K)")[0] == _si(m=2, s=-2, K=-1)[0]
    for bad in ("Nm", "m/s/s", "N/m1.5", "m^2", "m 2", "2.m"):
        with pytest.raises(AssertionError):
            oracle(bad)


# ----------------------------------------------------------------------------- every example
def _md(fmu: Path) -> ET.Element:
    with zipfile.ZipFile(fmu) as z:
        return ET.fromstring(z.read("modelDescription.xml"))


def _runtime_categories() -> list:
    src = (ROOT / "fmu" / "runtime" / "rt_instance.c").read_text()
    m = re.search(r"rt_log_categories\[RT_LOG_NCAT\]\s*=\s*\{([^}]*)\}", src)
    return re.findall(r'"(\w+)"', m.group(1))


def _pyproject():
    txt = (ROOT / "pyproject.toml").read_text()
    return (re.search(r'^version\s*=\s*"([^"]+)"', txt, re.M).group(1),
            re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]+)"', txt, re.M).group(1))


@pytest.mark.parametrize("model", EXAMPLES, ids=[m.split(".")[-1] for m in EXAMPLES])
def test_example_model_description(model, build_example):
    from fmpy.validation import validate_fmu
    fmu = build_example(model)
    assert validate_fmu(str(fmu)) == []
    root = _md(fmu)

    # every unit is defined, by its own name, with the SI definition of its string
    defs = {}
    for u in root.iterfind("UnitDefinitions/Unit"):
        b = u.find("BaseUnit")
        assert b is not None, f"unit {u.get('name')} has no BaseUnit"
        defs[u.get("name")] = (tuple(int(b.get(k, 0)) for k in BASE), float(b.get("factor", 1)),
                               float(b.get("offset", 0)))
    for name, (exps, factor, offset) in defs.items():
        oe, of, oo = oracle(name)
        assert exps == oe and factor == pytest.approx(of, rel=1e-12) and offset == pytest.approx(oo), name
    svs = root.findall("ModelVariables/ScalarVariable")
    used = set()
    for sv in svs:
        real = sv.find("Real")
        if real is not None and real.get("unit") is not None:
            assert real.get("unit") in defs, f"{sv.get('name')}: unit {real.get('unit')} not defined"
            used.add(real.get("unit"))
    assert used == set(defs)

    # der(x) is in unit(x)/s: same base exponents with one s less, same factor
    for k, sv in enumerate(svs):
        real = sv.find("Real")
        if real is None or real.get("derivative") is None:
            continue
        x = svs[int(real.get("derivative")) - 1]
        assert sv.get("name") == f"der({x.get('name')})"
        ux, ud = x.find("Real").get("unit"), real.get("unit")
        assert (ux is None) == (ud is None), sv.get("name")
        if ux is not None:
            ex, fx, _ = oracle(ux)
            ed, fd, _ = oracle(ud)
            assert ed == tuple(e - (b == "s") for e, b in zip(ex, BASE)) and fd == pytest.approx(fx), \
                f"{sv.get('name')}: {ud} is not {ux}/s"

    # reinit only on continuous states
    states = {int(sv.find("Real").get("derivative")) for sv in svs
              if sv.find("Real") is not None and sv.find("Real").get("derivative")}
    for k, sv in enumerate(svs, 1):
        if sv.find("Real") is not None and sv.find("Real").get("reinit") == "true":
            assert k in states, sv.get("name")

    # the runtime's log categories, the library's metadata
    assert [c.get("name") for c in root.iterfind("LogCategories/Category")] == _runtime_categories()
    version, license_ = _pyproject()
    assert root.get("version") == version and root.get("license") == license_
    assert root.get("author") and root.get("copyright")

    # documentation/index.html: the model, its description and its interface
    with zipfile.ZipFile(fmu) as z:
        doc = z.read("documentation/index.html").decode()
    assert f"<h1>{model}</h1>" in doc and "modelica://" not in doc
    for sv in svs:
        if sv.get("causality") in ("parameter", "input", "output"):
            assert f"<code>{sv.get('name')}</code>" in doc, sv.get("name")


def test_bouncing_ball_velocity_is_reinitialised(build_example):
    root = _md(build_example("WearCosim.Examples.Basic.BouncingBall"))
    real = {sv.get("name"): sv.find("Real") for sv in root.iterfind("ModelVariables/ScalarVariable")}
    assert real["v"].get("reinit") == "true" and real["h"].get("reinit") is None
    assert real["v"].get("quantity") == "Velocity" and real["der(v)"].get("unit") == "m/s2"


def test_hertz_stiffness_has_a_quantity_and_no_unit(build_example):
    """N/m^1.5 has no integer-exponent unit: the FMU gives the quantity only."""
    root = _md(build_example("WearCosim.Examples.Basic.ContactOscillator"))
    k = next(sv for sv in root.iterfind("ModelVariables/ScalarVariable") if sv.get("name") == "K")
    assert k.find("Real").get("quantity") == "HertzStiffness" and k.find("Real").get("unit") is None


# ----------------------------------------------------------------------------- user models
SPIN = """model Spin "Spinning wheel with display units"
  parameter Real w0(quantity = "AngularVelocity", unit = "rad/s", displayUnit = "rpm") = 10 "Target speed";
  parameter Real T0(unit = "degC", displayUnit = "degF") = 20 "Temperature";
  Real phi(quantity = "Angle", unit = "rad", displayUnit = "deg", nominal = 100, start = 0, fixed = true) "Angle";
  parameter Real wNom = 50 "Nominal speed";
  Real w(unit = "rad/s", displayUnit = "rpm", nominal = wNom, start = 0, fixed = true) "Speed";
  Real m(unit = "g", start = 1, fixed = true) "Mass";
  output Real T(unit = "degC") "Temperature";
equation
  der(phi) = w;
  der(w) = w0 - w;
  der(m) = -0.1*m;
  T = T0 + 0.01*phi;
  annotation (version = "2.1", __WearCosim_author = "A. User", __WearCosim_license = "Proprietary",
    Documentation(info = "<html><p>A <a href=\\"modelica://Spin\\">wheel</a> &amp; a \\"thermometer\\".</p></html>"));
end Spin;
"""


def test_display_units_nominal_and_model_annotations(tmp_path):
    from fmpy.validation import validate_fmu
    p = tmp_path / "Spin.mo"
    p.write_text(SPIN)
    fmu = build_fmu("Spin", tmp_path, tmp_path / "out", path=p).fmu
    assert validate_fmu(str(fmu)) == []
    root = _md(fmu)
    assert (root.get("version"), root.get("author"), root.get("license")) == ("2.1", "A. User", "Proprietary")
    assert root.get("copyright") is None
    units = {u.get("name"): u for u in root.iterfind("UnitDefinitions/Unit")}
    disp = {(u, d.get("name")): (float(d.get("factor", 1)), float(d.get("offset", 0)))
            for u, e in units.items() for d in e.iterfind("DisplayUnit")}
    assert disp[("rad", "deg")][0] == pytest.approx(180 / math.pi) and disp[("rad", "deg")][1] == 0
    assert disp[("rad/s", "rpm")][0] == pytest.approx(60 / (2 * math.pi))
    f, o = disp[("degC", "degF")]                  # 20 degC = 68 degF, 100 degC = 212 degF
    assert f * 20 + o == pytest.approx(68) and f * 100 + o == pytest.approx(212)
    assert float(units["degC"].find("BaseUnit").get("offset")) == pytest.approx(273.15)
    assert float(units["g"].find("BaseUnit").get("factor")) == pytest.approx(1e-3)
    real = {sv.get("name"): sv.find("Real") for sv in root.iterfind("ModelVariables/ScalarVariable")}
    assert real["phi"].get("displayUnit") == "deg" and real["phi"].get("quantity") == "Angle"
    assert float(real["phi"].get("nominal")) == 100 and float(real["w"].get("nominal")) == 50
    assert real["der(phi)"].get("unit") == "rad/s" and real["der(w)"].get("unit") == "rad/s2"
    assert real["der(m)"].get("unit") == "g/s"
    with zipfile.ZipFile(fmu) as z:
        doc = z.read("documentation/index.html").decode()
    assert "modelica://" not in doc and "A wheel &amp;" in doc
    assert 'a "thermometer"' in doc and "<code>w0</code>" in doc and "<code>rad/s</code>" in doc


BAD = {
    # name: (source, line of the unit string, variable named)
    "TwoSlashes": ("""model TwoSlashes
  Real x(start = 1, fixed = true) "Position";
  Real v(unit = "m/s/s", start = 0, fixed = true) "Not a unit";
equation
  der(x) = v;
  der(v) = -x;
end TwoSlashes;
""", 3, "v"),
    "HalfPower": ("""model HalfPower
  type HertzK = Real(final unit = "N/m1.5") "F = K*delta^1.5";
  parameter HertzK K = 1e8 "Stiffness";
  Real x(start = 1, fixed = true);
equation
  der(x) = -K*1e-8*x;
end HalfPower;
""", 2, "K"),
    "NoDot": ("""model NoDot
  parameter Real M(unit = "Nm") = 1 "Torque";
  Real phi(start = 0, fixed = true);
equation
  der(phi) = M;
end NoDot;
""", 2, "M"),
    "WrongDisplay": ("""model WrongDisplay
  Real x(unit = "m", displayUnit = "deg", start = 1, fixed = true);
equation
  der(x) = -x;
end WrongDisplay;
""", 2, "x"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_invalid_unit_is_one_error_line_at_its_declaration(name, tmp_path):
    src, line, var = BAD[name]
    p = tmp_path / f"{name}.mo"
    p.write_text(src)
    out = tmp_path / "out"
    with pytest.raises(ExportError) as ei:
        build_fmu(name, tmp_path, out, path=p)
    e = ei.value
    assert "\n" not in str(e) and e.kind == "unit"
    assert Path(e.loc.file).resolve() == p.resolve() and e.loc.line == line, str(e)
    # rumoca checks the syntax of a declaration's own unit ("invalid unit for v: ..."), the
    # exporter every unit and displayUnit, those of types included ("unit of K: ...")
    assert str(e).startswith(f"{p}:{line}:") and re.search(rf" (of|for) {var}:", str(e)), str(e)
    assert not out.exists() or not list(out.iterdir())


def test_cli_reports_an_invalid_unit_on_one_line(tmp_path):
    src, line, _ = BAD["TwoSlashes"]
    p = tmp_path / "TwoSlashes.mo"
    p.write_text(src)
    r = subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", "--file", str(p), "--out",
                        str(tmp_path / "out"), "TwoSlashes"], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin:/usr/local/bin"},
                       timeout=300)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {p}:{line}:") and "m/s/s" in lines[0], r.stderr


# ----------------------------------------------------------------------------- log categories
def test_switching_one_category_off_keeps_the_others(build_example, tmp_path):
    """fmi2SetDebugLogging(fmi2False, [logStatusWarning]) switches that category off only (FMI
    2.0, 2.1.5): the state events of the bouncing ball are still logged under logEvents."""
    from wctest import logging_slave
    fmu = build_example("WearCosim.Examples.Basic.BouncingBall")
    s, _, _, logs = logging_slave(fmu, tmp_path / "unzipped", "b", logging_on=False)
    s.setDebugLogging(True, ["logEvents", "logStatusWarning"])
    s.setDebugLogging(False, ["logStatusWarning"])
    s.setupExperiment(startTime=0.0)
    s.enterInitializationMode()
    s.exitInitializationMode()
    s.doStep(currentCommunicationPoint=0.0, communicationStepSize=1.0)     # first impact at 0.45 s
    assert any(c == "logEvents" and "state event" in m for c, m in logs), logs
    n = len(logs)
    s.setDebugLogging(False, ["logEvents"])
    s.doStep(currentCommunicationPoint=1.0, communicationStepSize=1.0)
    assert len(logs) == n, logs[n:]
    s.terminate()
    s.freeInstance()


# ----------------------------------------------------------------------------- units module
@pytest.mark.parametrize("unit, der", [
    ("m", "m/s"), ("rad/s", "rad/s2"), ("m/s2", "m/s3"), ("N.m.s/rad", "N.m/rad"), ("1", "1/s"),
    ("1/s", "1/s2"), ("kg.m2", "kg.m2/s"), ("N/m", "N/(m.s)"), ("J/(kg.K)", "J/(kg.K.s)"),
    ("Pa.s", "Pa"), ("kg.m.s-2", "kg.m/s3"), ("mm2", "mm2/s"), ("", "")])
def test_derivative_unit_is_unit_over_seconds(unit, der):
    from wearcosim.export import units
    assert units.derivative(unit) == der
    if unit:
        (ex, fx, _), (ed, fd, _) = oracle(unit), oracle(der)
        assert ed == tuple(e - (b == "s") for e, b in zip(ex, BASE)) and fd == pytest.approx(fx)


@pytest.mark.parametrize("unit", ["m/s/s", "rad/s/s", "N/m1.5", "Nm", "m^2", "m 2", "2m", "m(3/2)", "(m", "m)",
                                  "s.", "m-", "10/s", "furlong", "kkg", "mmin"])
def test_invalid_unit_strings_are_refused(unit):
    from wearcosim.export import units
    with pytest.raises(units.UnitError) as ei:
        units.check(unit)
    assert "\n" not in str(ei.value) and unit in str(ei.value)


def test_unit_symbols_and_prefixes_follow_mls_19():
    from wearcosim.export import units
    assert units.dim("m").factor == 1.0 and units.dim("mm").factor == pytest.approx(1e-3)   # metre, milli
    assert units.dim("mm2").factor == pytest.approx(1e-6)          # the exponent includes the prefix
    assert units.dim("T").exps == oracle("kg/(A.s2)")[0]            # tesla, not tera
    assert units.dim("mg").factor == pytest.approx(1e-6)           # prefixes go on the gram
    assert units.dim("degC").offset == pytest.approx(273.15) and units.dim("degC/s").offset == 0
    for u in ("kg.m/s2", "N.m", "W/(m2.K)", "1/rad", "rad/s2", "rpm", "deg", "Hz", "min"):
        d = units.dim(u)
        assert d.exps == oracle(u)[0] and d.factor == pytest.approx(oracle(u)[1]), u


def test_the_decibel_is_a_dimensionless_level_on_its_own():
    """'dB' (MSL's Blocks.Continuous.Filter gives its ripple A_ripple in it): dimensionless,
    base unit '1'; no prefix, no product, no linear conversion to another unit."""
    from wearcosim.export import units
    d = units.dim("dB")
    assert all(e == 0 for e in d.exps) and d.factor == 1.0
    assert units.base_unit_attrs("dB") == ""
    assert units.display_conversion("dB", "dB") == (1.0, 0.0)
    for bad in ("mdB", "dB/s", "dB.m"):
        with pytest.raises(units.UnitError):
            units.dim(bad)
    with pytest.raises(units.UnitError, match="logarithmic"):
        units.display_conversion("1", "dB")
