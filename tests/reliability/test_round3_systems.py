"""Reliability, round 3 (issue 33): the systems layer, ``simulate`` and scenarios under attack.

Every case is a hostile file or option generated here.  Each must end with a non-zero exit,
``error:`` lines only (no traceback, no "internal error"), nothing written outside the folder
the command was given, and nothing half-written inside it.  Cases that must *work* despite an
odd input (a system named with a space) are checked for what they write and where.
"""
from __future__ import annotations

import errno
import os
import zipfile
from pathlib import Path

import sys

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "system"))   # the systems' fixtures
from test_bad_systems import (archive_members, fmu_variant,  # noqa: F401
                              fmus, good_ssd_for_archive, oscillator, params, ssp_archive, write)  # (fmus: the session fixture)
from wearcosim.cli import main


def tree(root: Path) -> dict:
    """Every file below ``root`` with its size and modification time."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def refused(argv, root: Path, out: Path, capsys, expect=()):
    """``wearcosim argv`` fails with one or more ``error:`` lines holding ``expect``, and
    nothing below ``root`` changed outside ``out``."""
    before = {k: v for k, v in tree(root).items() if not (root / k).is_relative_to(out)}
    rc = main(list(argv))
    cap = capsys.readouterr()
    assert rc != 0, (argv, cap)
    lines = cap.err.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), cap.err
    assert "Traceback" not in cap.err and "internal error" not in cap.err, cap.err
    for part in expect:
        assert part in cap.err, (part, cap.err)
    after = {k: v for k, v in tree(root).items() if not (root / k).is_relative_to(out)}
    assert after == before, set(after) ^ set(before)
    if out.exists():
        assert not [p for p in out.rglob("*") if p.suffix in (".part", ".tmp")]
    return cap.err


# ----------------------------------------------------------------------------- names -> paths
NAMES = {
    "parent_traversal": ('<ssd:System name="sys">', '<ssd:System name="../../../X">', "system name '../../../X'"),
    "absolute": ('<ssd:System name="sys">', '<ssd:System name="/tmp/wearcosim-evil">', "system name '/tmp/wearcosim-evil'"),
    "dotdot": ('<ssd:System name="sys">', '<ssd:System name="..">', "system name '..'"),
    "backslash": ('<ssd:System name="sys">', '<ssd:System name="a\\..\\..\\X">', "cannot name the system's files"),
    "component_traversal": ('name="spring"', 'name="../spring"', "component name '../spring'"),
}


@pytest.mark.parametrize("case", list(NAMES))
@pytest.mark.parametrize("command", ["check", "run"])
def test_a_name_from_the_file_never_becomes_a_path(case, command, tmp_path, fmus, capsys):  # noqa: F811
    old, new, msg = NAMES[case]
    text = oscillator().replace(old, new)
    if case == "component_traversal":
        text = text.replace('startElement="spring"', 'startElement="../spring"').replace(
            'endElement="spring"', 'endElement="../spring"')
    work = tmp_path / "a" / "b" / "c"
    path = write(work / "sys", fmus, text)
    out = work / "out"
    argv = ["system", "check", str(path)] if command == "check" else \
        ["system", "run", str(path), "--stop", "0.1", "--step", "0.01", "--out", str(out)]
    refused(argv, tmp_path, out, capsys, [msg])
    assert not Path("/tmp/wearcosim-evil-").exists()


def test_a_system_named_with_spaces_runs_and_its_cache_stays_in_the_output(tmp_path, fmus, capsys):  # noqa: F811
    path = write(tmp_path / "sys", fmus, oscillator().replace('<ssd:System name="sys">', '<ssd:System name="My Sys">'))
    out = tmp_path / "out"
    assert main(["system", "run", str(path), "--stop", "0.05", "--step", "0.01", "--out", str(out)]) == 0
    capsys.readouterr()
    cached = list((out / ".containers").glob("*.fmu"))
    assert len(cached) == 1 and cached[0].name.startswith("My_Sys-"), cached


# ----------------------------------------------------------------------------- values
VALUES = {
    "nan": "NaN", "overflow": "1e400", "minus_inf": "-INF",
}


@pytest.mark.parametrize("value", list(VALUES))
@pytest.mark.parametrize("command", ["check", "run"])
def test_a_parameter_binding_that_is_not_finite_is_refused_by_check_and_run(value, command, tmp_path, fmus, capsys):  # noqa: F811
    text = oscillator(mass_values={"m": ("Real", VALUES[value])})
    path = write(tmp_path / "sys", fmus, text)
    out = tmp_path / "out"
    argv = ["system", "check", str(path)] if command == "check" else \
        ["system", "run", str(path), "--stop", "0.1", "--step", "0.01", "--out", str(out)]
    refused(argv, tmp_path, out, capsys, ["parameter binding 'm'", "not a finite number"])


# ----------------------------------------------------------------------------- experiments, options
def _with_experiment(text: str, attrs: str) -> str:
    return text.replace("  </ssd:System>\n", f"  </ssd:System>\n  <ssd:DefaultExperiment {attrs}/>\n")


EXPERIMENTS = {
    "stop_1e300": ('startTime="0" stopTime="1e300"', ["1e+300", "--max-points"]),
    "stop_before_start": ('startTime="2" stopTime="1"', ["stopTime 1.0 is not after startTime 2.0"]),
    "stop_inf": ('startTime="0" stopTime="INF"', ["stopTime inf is not a finite number"]),
    "start_nan": ('startTime="NaN" stopTime="1"', ["startTime nan is not a finite number"]),
}


@pytest.mark.parametrize("case", list(EXPERIMENTS))
def test_an_absurd_default_experiment_is_refused_up_front(case, tmp_path, fmus, capsys):  # noqa: F811
    attrs, expect = EXPERIMENTS[case]
    path = write(tmp_path / "sys", fmus, _with_experiment(oscillator(), attrs))
    out = tmp_path / "out"
    refused(["system", "run", str(path), "--step", "0.001", "--out", str(out)], tmp_path, out, capsys, expect)
    assert not (out / "sys.csv").exists()
    if case != "stop_1e300":
        refused(["system", "check", str(path)], tmp_path, out, capsys, expect)
    else:                        # no step in the file: check refuses what run --step would refuse
        refused(["system", "check", str(path), "--step", "0.001"], tmp_path, out, capsys, expect)


OPTIONS = {
    "stop_nan": (["--stop", "nan", "--step", "0.01"], "--stop must be a finite number > 0"),
    "stop_negative": (["--stop", "-1", "--step", "0.01"], "--stop must be a finite number > 0"),
    "stop_inf": (["--stop", "inf", "--step", "0.01"], "--stop must be a finite number > 0"),
    "step_nan": (["--stop", "1", "--step", "nan"], "--step must be a finite number > 0"),
    "step_zero": (["--stop", "1", "--step", "0"], "--step must be a finite number > 0"),
    "tolerance_negative": (["--stop", "1", "--step", "0.01", "--tolerance", "-1"], "--tolerance must be in (0, 1)"),
    "tolerance_nan": (["--stop", "1", "--step", "0.01", "--tolerance", "nan"], "--tolerance must be in (0, 1)"),
    "tolerance_one": (["--stop", "1", "--step", "0.01", "--tolerance", "1"], "--tolerance must be in (0, 1)"),
    "too_many_points": (["--stop", "1e6", "--step", "1e-3"], "1e+09 output points, more than --max-points"),
    "max_points_zero": (["--stop", "1", "--step", "0.01", "--max-points", "0"], "--max-points must be a whole number >= 1"),
}


@pytest.mark.parametrize("case", list(OPTIONS))
def test_an_absurd_option_is_refused_up_front_naming_it(case, tmp_path, fmus, capsys):  # noqa: F811
    opts, expect = OPTIONS[case]
    path = write(tmp_path / "sys", fmus, oscillator())
    out = tmp_path / "out"
    err = refused(["system", "run", str(path), *opts, "--out", str(out)], tmp_path, out, capsys, [expect])
    assert "fmi2SetupExperiment" not in err
    assert not out.exists()


def test_max_points_can_be_raised(tmp_path, fmus, capsys):  # noqa: F811
    path = write(tmp_path / "sys", fmus, oscillator())
    out = tmp_path / "out"
    refused(["system", "run", str(path), "--stop", "0.2", "--step", "0.01", "--max-points", "10", "--out", str(out)],
            tmp_path, out, capsys, ["more than --max-points 10"])
    assert main(["system", "run", str(path), "--stop", "0.2", "--step", "0.01", "--max-points", "20",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert (out / "sys.csv").is_file()


# ----------------------------------------------------------------------------- simulate
BOMB = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 8))
        + ']>\n<fmiModelDescription fmiVersion="2.0" modelName="&lol7;" guid="x"/>\n')
XXE = ('<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
       '<fmiModelDescription fmiVersion="2.0" modelName="&x;" guid="x"><CoSimulation modelIdentifier="M"/>'
       '<ModelVariables/><ModelStructure/></fmiModelDescription>\n')


def _zip(path: Path, members: dict) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)
    return path


def _no_binary(path: Path, fmus) -> Path:  # noqa: F811
    with zipfile.ZipFile(fmus["Mass"]) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            if not info.filename.startswith("binaries/"):
                out.writestr(info, src.read(info))
    return path


SIMULATE = {
    "missing": lambda d, f: d / "nothere.fmu",
    "empty": lambda d, f: (d / "e.fmu").write_bytes(b"") or d / "e.fmu",
    "garbage": lambda d, f: (d / "g.fmu").write_bytes(os.urandom(3000)) or d / "g.fmu",
    "truncated": lambda d, f: (d / "t.fmu").write_bytes(f["Mass"].read_bytes()[:2000]) or d / "t.fmu",
    "xml_bomb": lambda d, f: _zip(d / "b.fmu", {"modelDescription.xml": BOMB}),
    "xxe": lambda d, f: _zip(d / "x.fmu", {"modelDescription.xml": XXE}),
    "no_model_description": lambda d, f: _zip(d / "n.fmu", {"sources/a.c": "int x;"}),
    "missing_binary": lambda d, f: _no_binary(d / "nb.fmu", f),
}


@pytest.mark.parametrize("case", list(SIMULATE))
def test_simulate_opens_a_hostile_fmu_like_run_and_check(case, tmp_path, fmus, capsys):  # noqa: F811
    d = tmp_path / "in"
    d.mkdir()
    fmu = SIMULATE[case](d, fmus)
    out = tmp_path / "res"
    err = refused(["simulate", str(fmu), "--csv", str(out / "r.csv")], tmp_path, out, capsys, [str(fmu)])
    assert "root:" not in err                       # nothing of /etc/passwd
    assert not out.exists()


def test_simulate_on_a_full_disk_names_the_file(tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    import numpy as np

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(np, "savetxt", full)
    out = tmp_path / "res"
    err = refused(["simulate", str(fmus["Mass"]), "--stop", "0.1", "--csv", str(out / "r.csv")], tmp_path, out,
                  capsys, ["No space left on device"])
    assert str(out / "r.csv") in err, err


# ----------------------------------------------------------------------------- scenarios
SCENARIOS = {
    "omega_1e300": ("omega = 1e300", "outside any machine's range"),
    "omega_tiny": ("omega = 1e-30", "outside any machine's range"),
    "period_1e-9": ("period = 1e-9", "outside any machine's range"),
    "period_1e9": ("period = 1e9", "outside any machine's range"),
    "omega_nan": ("omega = nan", "must be a finite number"),
}


@pytest.mark.parametrize("case", list(SCENARIOS))
def test_an_implausible_scenario_is_refused_up_front(case, tmp_path, fmus, capsys):  # noqa: F811
    line, expect = SCENARIOS[case]
    sc = tmp_path / "s.toml"
    sc.write_text(f'name = "s"\n[fmu]\npath = "{fmus["Mass"]}"\n[wear]\nk = 1e-4\nhardness = 1e9\ncycles = 2\n{line}\n')
    out = tmp_path / "out"
    refused(["run", str(sc), "--out", str(out)], tmp_path, out, capsys, [str(sc), expect])
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("line, expect", [
    ("[limits]\nclearance = 1e3", "limits.clearance must be 0"),
    ("[limits]\nclearance = 1e-20", "limits.clearance must be 0"),
    ("[wear]\nk = inf", None),
])
def test_an_implausible_clearance_or_infinite_coefficient_is_refused(line, expect, tmp_path, fmus, capsys):  # noqa: F811
    sc = tmp_path / "s.toml"
    if line.startswith("[wear]"):
        text = f'name = "s"\n[fmu]\npath = "{fmus["Mass"]}"\n[wear]\nk = inf\nhardness = 1e9\ncycles = 2\nomega = 100.0\n'
        expect = "'wear.k' must be a finite number"
    else:
        text = (f'name = "s"\n[fmu]\npath = "{fmus["Mass"]}"\n[wear]\nk = 1e-4\nhardness = 1e9\ncycles = 2\n'
                f'omega = 100.0\n{line}\n')
    sc.write_text(text)
    out = tmp_path / "out"
    refused(["run", str(sc), "--out", str(out)], tmp_path, out, capsys, [str(sc), expect])


# ----------------------------------------------------------------------------- round 3, second part
# hostile .ssp archives and .ssd sources: check and run refuse them alike, nothing lands outside
ENTITY = '<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
LOL = ('<!DOCTYPE s [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)) + ']>\n')


def _ssd_with_doctype(doctype: str, ref: str) -> str:
    head, _, rest = good_ssd_for_archive().partition("\n")
    return head + "\n" + doctype + rest.replace('name="bad"', f'name="{ref}"', 1)


ARCHIVES = {
    "zip_slip_member": (lambda f: archive_members(f) + [("../../evil-r3.txt", "x")], ["evil-r3.txt"]),
    "absolute_member": (lambda f: archive_members(f) + [("/tmp/evil-r3-abs.txt", "x")], ["evil-r3-abs.txt"]),
    "no_ssd": (lambda f: archive_members(f)[1:], ["SystemStructure.ssd"]),
    "xxe_in_ssd": (lambda f: [("SystemStructure.ssd", _ssd_with_doctype(ENTITY, "&x;"))] + archive_members(f)[1:], []),
    "bomb_in_ssd": (lambda f: [("SystemStructure.ssd", _ssd_with_doctype(LOL, "&i;"))] + archive_members(f)[1:], []),
    "source_outside": (lambda f: [("SystemStructure.ssd", good_ssd_for_archive().replace(
        "resources/Mass.fmu", "../Mass.fmu"))] + archive_members(f)[1:], ["'../Mass.fmu'"]),
    "source_file_uri": (lambda f: [("SystemStructure.ssd", good_ssd_for_archive().replace(
        "resources/Mass.fmu", "file:///etc/passwd"))] + archive_members(f)[1:], ["file:///etc/passwd"]),
    "system_name_newline": (lambda f: [("SystemStructure.ssd", good_ssd_for_archive().replace(
        '<ssd:System name="sys">', '<ssd:System name="a&#10;b">'))] + archive_members(f)[1:], ["control character"]),
}


@pytest.mark.parametrize("case", list(ARCHIVES))
@pytest.mark.parametrize("command", ["check", "run", "show"])
def test_a_hostile_ssp_archive_is_refused_by_check_and_run(case, command, tmp_path, fmus, capsys):  # noqa: F811
    members, expect = ARCHIVES[case]
    if command == "show" and case == "system_name_newline":
        pytest.skip("show prints names, it writes nothing")
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "Mass.fmu").write_bytes(fmus["Mass"].read_bytes())    # bait for a source that escapes
    path = ssp_archive(work / "in", members(fmus))
    out = work / "out"
    argv = ["system", command, str(path)] if command != "run" else \
        ["system", "run", str(path), "--stop", "0.1", "--step", "0.01", "--out", str(out)]
    err = refused(argv, tmp_path, out, capsys, [str(path)] + expect)
    assert "root:" not in err
    assert not Path("/tmp/evil-r3-abs.txt").exists()


def _mass_with(fmus, d: Path, attrs: str) -> None:
    import re
    fmu_variant(fmus, "Mass", d / "Mass.fmu",
                lambda md: re.sub(r'(<ScalarVariable\s+name="m"[^>]*>\s*<Real)', r'\1 ' + attrs, md, count=1))


RANGES = {
    "below_min": (lambda d, f: (write(d, f, oscillator(mass_values={"m": ("Real", "0.1")})),
                                _mass_with(f, d, 'min="0.5"')), "0.1 is below the minimum 0.5 of variable 'm'"),
    "above_max": (lambda d, f: (write(d, f, oscillator(mass_values={"m": ("Real", "5")})),
                                _mass_with(f, d, 'max="2"')), "5.0 is above the maximum 2 of variable 'm'"),
    "system_parameter_nan": (lambda d, f: write(d, f, oscillator().replace(
        '<ssd:System name="sys">', '<ssd:System name="sys">' + params({"mass.m": ("Real", "NaN")}))),
        "not a finite number"),
}


@pytest.mark.parametrize("case", list(RANGES))
@pytest.mark.parametrize("command", ["check", "run"])
def test_a_binding_outside_the_variables_range_is_refused_by_check_and_run(case, command, tmp_path, fmus, capsys):  # noqa: F811
    make, expect = RANGES[case]
    make(tmp_path / "sys", fmus)
    path = tmp_path / "sys" / "sys.ssd"
    out = tmp_path / "out"
    argv = ["system", "check", str(path)] if command == "check" else \
        ["system", "run", str(path), "--stop", "0.1", "--step", "0.01", "--out", str(out)]
    refused(argv, tmp_path, out, capsys, [expect])


MORE_OPTIONS = {
    "step_denormal": (["--stop", "1", "--step", "1e-300"], {}, "1e+300 output points, more than --max-points"),
    "overflowing_points": (["--stop", "1e308", "--step", "1e-308"], {}, "output points, more than --max-points"),
    "env_limit_garbage": (["--stop", "1", "--step", "0.01"], {"WEARCOSIM_MAX_POINTS": "lots"},
                          "WEARCOSIM_MAX_POINTS='lots' must be a whole number"),
    "env_limit_zero": (["--stop", "1", "--step", "0.01"], {"WEARCOSIM_MAX_POINTS": "0"},
                       "WEARCOSIM_MAX_POINTS='0' must be a whole number"),
    "env_limit_low": (["--stop", "1", "--step", "0.01"], {"WEARCOSIM_MAX_POINTS": "10"}, "more than --max-points 10"),
    "stop_before_system_start": (["--stop", "1", "--step", "0.01"], {"start": "5"}, "--stop 1 s is not after the start"),
    "max_points_negative": (["--stop", "1", "--step", "0.01", "--max-points", "-5"], {}, "--max-points must be"),
    "start_far_in_the_past": (["--stop", "1", "--step", "0.01"], {"start": "-1e300"}, "1e+302 output points"),
}


@pytest.mark.parametrize("case", list(MORE_OPTIONS))
def test_more_absurd_options_and_limits_are_refused_up_front(case, tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    opts, env, expect = MORE_OPTIONS[case]
    text = oscillator()
    if "start" in env:
        text = _with_experiment(text, f'startTime="{env.pop("start")}" stopTime="9"')
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    path = write(tmp_path / "sys", fmus, text)
    out = tmp_path / "out"
    refused(["system", "run", str(path), *opts, "--out", str(out)], tmp_path, out, capsys, [expect])
    assert not out.exists()


CHECK_OPTIONS = {
    "step_nan": (["--step", "nan"], "--step must be a finite number > 0"),
    "stop_negative": (["--stop", "-1", "--step", "0.01"], "--stop must be a finite number > 0"),
    "too_many_points": (["--stop", "1e9", "--step", "1e-3"], "more than --max-points"),
    "max_points_low": (["--stop", "1", "--step", "0.01", "--max-points", "10"], "more than --max-points 10"),
}


@pytest.mark.parametrize("case", list(CHECK_OPTIONS))
def test_system_check_with_a_step_refuses_what_run_would_refuse(case, tmp_path, fmus, capsys):  # noqa: F811
    opts, expect = CHECK_OPTIONS[case]
    path = write(tmp_path / "sys", fmus, oscillator())
    refused(["system", "check", str(path), *opts], tmp_path, tmp_path / "none", capsys, [expect])
    out = tmp_path / "out"
    refused(["system", "run", str(path), *opts, "--out", str(out)], tmp_path, out, capsys, [expect])
    assert main(["system", "check", str(path), "--stop", "1", "--step", "0.01"]) == 0
    capsys.readouterr()


def test_out_naming_a_file_is_refused(tmp_path, fmus, capsys):  # noqa: F811
    path = write(tmp_path / "sys", fmus, oscillator())
    out = tmp_path / "out"
    out.write_text("not a folder")
    refused(["system", "run", str(path), "--stop", "0.1", "--step", "0.01", "--out", str(out)], tmp_path,
            tmp_path / "nothing", capsys, [f"--out {out}: is not a folder"])
    assert out.read_text() == "not a folder"


SIMULATE_OPTIONS = {
    "stop_nan": (["--stop", "nan"], "--stop must be a finite number > 0"),
    "stop_negative": (["--stop", "-1"], "--stop must be a finite number > 0"),
    "step_negative": (["--stop", "1", "--step", "-1"], "--step must be a finite number > 0"),
    "step_zero": (["--stop", "1", "--step", "0"], "--step must be a finite number > 0"),
    "too_many_points": (["--stop", "1e300", "--step", "1e-3"], "more than --max-points"),
    "max_points_low": (["--stop", "1", "--step", "0.01", "--max-points", "10"], "more than --max-points 10"),
}


@pytest.mark.parametrize("case", list(SIMULATE_OPTIONS))
def test_simulate_refuses_absurd_options_naming_them(case, tmp_path, fmus, capsys):  # noqa: F811
    opts, expect = SIMULATE_OPTIONS[case]
    out = tmp_path / "res"
    err = refused(["simulate", str(fmus["Mass"]), *opts, "--csv", str(out / "r.csv")], tmp_path, out, capsys,
                  [expect])
    assert "fmi2" not in err
    assert not out.exists()


def _enospc(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_system_run_on_a_full_disk_names_the_csv_and_leaves_nothing_half_written(tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    path = write(tmp_path / "sys", fmus, oscillator())
    out = tmp_path / "out"
    monkeypatch.setattr(Path, "write_bytes", _enospc)
    err = refused(["system", "run", str(path), "--stop", "0.05", "--step", "0.01", "--out", str(out)], tmp_path,
                  out, capsys, ["No space left on device"])
    assert str(out / "sys.csv") in err, err
    assert not (out / "sys.csv").exists() and not list(out.glob(".sys.csv*"))


def test_system_run_on_a_full_disk_while_building_the_container_names_it(tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    import wearcosim.system.container as container
    path = write(tmp_path / "sys", fmus, oscillator())
    out = tmp_path / "out"
    monkeypatch.setattr(container, "build_container", _enospc)
    err = refused(["system", "run", str(path), "--stop", "0.05", "--step", "0.01", "--out", str(out)], tmp_path,
                  out, capsys, ["No space left on device", str(out / ".containers" / "sys-")])
    assert not list((out / ".containers").glob("*.fmu"))


@pytest.mark.parametrize("command", ["simulate", "system run"])
def test_a_full_disk_while_extracting_an_fmu_names_the_fmu_and_the_file(command, tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    import wearcosim.fmi.archive as archive

    class Full:
        def __init__(self, path, mode="r", *a, **k):
            self.path = path

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            pass
    monkeypatch.setattr(archive, "open", Full, raising=False)
    out = tmp_path / "out"
    if command == "simulate":
        argv, expect = ["simulate", str(fmus["Mass"]), "--stop", "0.1", "--csv", str(out / "r.csv")], str(fmus["Mass"])
    else:
        path = write(tmp_path / "sys", fmus, oscillator())
        argv, expect = ["system", "run", str(path), "--stop", "0.05", "--step", "0.01", "--out", str(out)], "Mass.fmu"
    refused(argv, tmp_path, out, capsys, [expect, "cannot extract member", " to /", "No space left on device"])


def test_system_pack_on_a_full_disk_names_the_archive(tmp_path, fmus, capsys, monkeypatch):  # noqa: F811
    import shutil
    path = write(tmp_path / "sys", fmus, oscillator())
    dest = tmp_path / "packed" / "sys.ssp"
    monkeypatch.setattr(shutil, "copyfileobj", _enospc)
    refused(["system", "pack", str(path), "-o", str(dest)], tmp_path, dest.parent, capsys,
            [f"{dest}: No space left on device"])
    assert not dest.exists() and not list(dest.parent.glob("*"))


def test_system_pack_refuses_a_component_name_with_a_folder(tmp_path, fmus, capsys):  # noqa: F811
    text = oscillator().replace('name="spring"', 'name="../../spring"').replace(
        'startElement="spring"', 'startElement="../../spring"').replace('endElement="spring"', 'endElement="../../spring"')
    path = write(tmp_path / "sys", fmus, text)
    dest = tmp_path / "packed" / "sys.ssp"
    refused(["system", "pack", str(path), "-o", str(dest)], tmp_path, dest.parent, capsys,
            ["component name '../../spring'"])
    assert not dest.exists()


def test_the_api_refuses_an_absurd_experiment_before_building_anything(tmp_path, fmus):  # noqa: F811
    from wearcosim.system.run import simulate
    from wearcosim.system.ssp import open_system
    path = write(tmp_path / "sys", fmus, oscillator())
    before = tree(tmp_path)
    with open_system(path) as system:
        for stop, step, kw, msg in [(1e300, 0.01, {}, "more than max_points"), (float("nan"), 0.01, {}, "stop_time"),
                                    (1.0, -1.0, {}, "step must be"), (1.0, 0.01, {"tolerance": -1}, "tolerance"),
                                    (1.0, 0.01, {"max_points": 10}, "more than max_points 10")]:
            with pytest.raises(ValueError, match=msg):
                simulate(system, stop, step, cache_dir=tmp_path / "cache", log=lambda m: None, **kw)
    assert tree(tmp_path) == before


MORE_SCENARIOS = {
    "start_nan": ("[start]\nm = nan", "'start.m' must be a finite number"),
    "start_inf": ("[start]\nm = -inf", "'start.m' must be a finite number"),
    "name_traversal": ('name = "../../evil"', "'name' must be a plain file stem"),
    "name_absolute": ('name = "/tmp/evil-r3"', "'name' must be a plain file stem"),
    "name_newline": ('name = "a\\nb"', "'name' must be a plain file stem"),
    "name_dotdot": ('name = ".."', "'name' must be a plain file stem"),
    "clearance_nan": ("[limits]\nclearance = nan", "must be a finite number"),
    "omega_negative": ("[wear]\nomega = -100.0", "wear.omega must be > 0"),
    "steps_per_cycle_1e9": ("[run]\nsteps_per_cycle = 1000000000", "run.steps_per_cycle must be between 10 and"),
}


@pytest.mark.parametrize("case", list(MORE_SCENARIOS))
def test_more_hostile_scenarios_are_refused_up_front(case, tmp_path, fmus, capsys):  # noqa: F811
    line, expect = MORE_SCENARIOS[case]
    wear = {"k": "1e-4", "hardness": "1e9", "cycles": "2", "omega": "100.0"}
    top, tables = 'name = "s"', {"fmu": f'path = "{fmus["Mass"]}"'}
    if line.startswith("name"):
        top = line
    else:
        head, _, body = line.partition("\n")
        section = head.strip("[]")
        if section == "wear":
            k, _, v = body.partition(" = ")
            wear[k] = v
        else:
            tables[section] = body
    tables["wear"] = "\n".join(f"{k} = {v}" for k, v in wear.items())
    sc = tmp_path / "s.toml"
    sc.write_text(top + "\n" + "".join(f"[{k}]\n{v}\n" for k, v in tables.items()))
    out = tmp_path / "out"
    refused(["run", str(sc), "--out", str(out)], tmp_path, out, capsys, [str(sc), expect])
    assert not out.exists() or not any(out.iterdir())
    assert not Path("/tmp/evil-r3.h5").exists()


def test_the_corpus_is_large_enough():
    n = (2 * len(NAMES) + 1 + 2 * len(VALUES) + len(EXPERIMENTS) + len(OPTIONS) + 1 + len(SIMULATE) + 1
         + len(SCENARIOS) + 3)
    assert n >= 40, n
    more = (3 * len(ARCHIVES) - 1 + len(CHECK_OPTIONS) + 2 + 2 * len(RANGES) + len(MORE_OPTIONS) + 1 + len(SIMULATE_OPTIONS) + 3 + 1 + 1
            + len(MORE_SCENARIOS))
    assert more >= 28, more
