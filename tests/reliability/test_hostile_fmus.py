"""Issue 14 (reliability): opening hostile FMUs safely, and ``check`` catching broken binaries.

One real FMU (BouncingBall) is built once per session; every hostile variant is derived
from it here with ``zipfile`` (no binary blobs in the repository).  For each variant:

* ``open_fmu`` raises :class:`FMUOpenError` with a one-line message naming the file, and no
  ``wearcosim-fmu-*`` folder is left in the temporary directory (a private one per test);
* ``validate`` reports at least one problem (and leaves nothing behind either); the intact
  FMU gives ``[]``.

Stub binaries that crash or hang (C, compiled here when a compiler is available) are only
given to ``validate``: its smoke test runs them in a subprocess.
"""
from __future__ import annotations

import gc
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from wearcosim.fmi import archive
from wearcosim.fmi.archive import TEMP_PREFIX, FMUOpenError, Limits, safe_extract
from wearcosim.fmi.check import validate
from wearcosim.fmi.runner import FMIError, FMUInstantiateError, open_fmu

MODEL = "WearCosim.Examples.Basic.BouncingBall"
MiB = 1 << 20


def _platform_lib():
    from fmpy import platform, sharedLibraryExtension
    return f"binaries/{platform}/BouncingBall{sharedLibraryExtension}"


LIB = _platform_lib()
MD = "modelDescription.xml"


@pytest.fixture(scope="session")
def ball(build_example):
    return build_example(MODEL)


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """The temporary directory of this test alone (TMPDIR and tempfile.tempdir), so that
    listings before/after are not disturbed by parallel tests."""
    d = tmp_path / "systmp"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def _leftovers(d: Path):
    return sorted(p.name for p in d.iterdir() if p.name.startswith(TEMP_PREFIX))


# ------------------------------------------------------------------ building the variants

def rewrite(src: Path, dst: Path, drop=(), replace=None, add=(), edit=None):
    """Copy the FMU ``src`` to ``dst`` member by member: ``drop`` names, ``replace`` name ->
    bytes or ZipInfo-tuple ``(info, bytes)``, ``add`` ``(name or ZipInfo, bytes)``, then
    ``edit(z)`` on the open writer (e.g. to make the directory lie)."""
    replace = replace or {}
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
        for info in a.infolist():
            if info.filename in drop:
                continue
            if info.filename in replace:
                new = replace[info.filename]
                if isinstance(new, tuple):
                    b.writestr(*new)
                else:
                    b.writestr(info.filename, new)
            else:
                b.writestr(info, a.read(info))
        for name, data in add:
            b.writestr(name, data)
        if edit:
            edit(b)
    return dst


def _md_text(src):
    with zipfile.ZipFile(src) as z:
        return z.read(MD).decode()


def _stream_zeros(z: zipfile.ZipFile, name: str, size: int):
    """A member of ``size`` zero bytes written in chunks (deflates ~1000x)."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    chunk = bytes(MiB)
    with z.open(info, "w", force_zip64=size >= (1 << 31)) as f:
        left = size
        while left:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n


def _symlink_info(name):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _lie(name, delta):
    def edit(z):
        z.getinfo(name).file_size += delta        # the central directory lies, the data does not
    return edit


def v_missing_file(src, d):
    return d / "nothing-here.fmu", None


def v_not_a_zip(src, d):
    p = d / "notazip.fmu"
    p.write_text("this is a text file, not an FMU\n" * 20)
    return p, None


def v_empty_file(src, d):
    p = d / "empty.fmu"
    p.write_bytes(b"")
    return p, None


def v_truncated_zip(src, d):
    p = d / "truncated.fmu"
    p.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    return p, None


def v_corrupt_member(src, d):
    """The compressed bytes of the binary damaged (the directory is intact)."""
    p = d / "corrupt.fmu"
    raw = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as z:
        info = z.getinfo(LIB)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for k in range(start + 100, start + 100 + 64):
        raw[k] ^= 0xA5
    p.write_bytes(bytes(raw))
    return p, None


def v_md_missing(src, d):
    return rewrite(src, d / "nomd.fmu", drop={MD}), None


def v_md_truncated(src, d):
    text = _md_text(src)
    return rewrite(src, d / "mdtrunc.fmu", replace={MD: text[: len(text) // 2].encode()}), None


def v_md_not_xml(src, d):
    return rewrite(src, d / "mdgarbage.fmu", replace={MD: b"\x00\x01 definitely <<not>> xml &&&"}), None


def v_md_schema(src, d):
    """Well-formed XML that is not a valid FMI 2.0 model description."""
    return rewrite(src, d / "mdschema.fmu", replace={MD: b'<?xml version="1.0"?><fmiModelDescription fmiVersion="2.0"/>'}), None


def v_wrong_guid(src, d):
    import re
    text = re.sub(r'guid="[^"]*"', 'guid="{00000000-0000-0000-0000-000000000000}"', _md_text(src), count=1)
    return rewrite(src, d / "guid.fmu", replace={MD: text.encode()}), None


def v_identifier_mismatch(src, d):
    text = _md_text(src).replace('modelIdentifier="BouncingBall"', 'modelIdentifier="SomethingElse"')
    return rewrite(src, d / "ident.fmu", replace={MD: text.encode()}), None


def v_binary_missing(src, d):
    return rewrite(src, d / "nobin.fmu", drop={LIB}), None


def v_binary_garbage(src, d):
    return rewrite(src, d / "garbage.fmu", replace={LIB: b"\x7fELF but then garbage " * 500}), None


def v_binary_symlink(src, d):
    return rewrite(src, d / "symlink.fmu", replace={LIB: (_symlink_info(LIB), b"/lib/x86_64-linux-gnu/libc.so.6")}), None


def v_dotdot(src, d):
    return rewrite(src, d / "dotdot.fmu", add=[("resources/../../evil.txt", b"payload")]), None


def v_absolute(src, d):
    return rewrite(src, d / "absolute.fmu", add=[("/tmp/wearcosim-evil.txt", b"payload")]), None


def v_too_many_members(src, d):
    limits = Limits(max_members=40)
    return rewrite(src, d / "many.fmu", add=[(f"resources/f{i}.txt", b"x") for i in range(40)]), limits


def v_bomb_over_limit(src, d):
    """A highly compressible member just above the (explicit, small) total-size limit."""
    limits = Limits(max_total_size=4 * MiB)
    p = rewrite(src, d / "bomb.fmu", edit=lambda z: _stream_zeros(z, "resources/zeros.bin", 4 * MiB + 1))
    return p, limits


def v_bomb_ratio(src, d):
    """Default limits: a 24 MiB member of zeros (ratio ~1000) is refused by the ratio guard."""
    return rewrite(src, d / "ratio.fmu", edit=lambda z: _stream_zeros(z, "resources/zeros.bin", 24 * MiB)), None


def v_declares_2gib(src, d):
    """The directory declares a 2 GiB member (default limit 1 GiB); the data is small."""
    p = rewrite(src, d / "declares2g.fmu",
                edit=lambda z: (_stream_zeros(z, "resources/zeros.bin", MiB), _lie("resources/zeros.bin", (2 << 30) - MiB)(z)))
    return p, None


def v_declared_smaller(src, d):
    """A member whose declared size lies: 8 MiB of zeros declared as 1 KiB."""
    p = rewrite(src, d / "liesmall.fmu",
                edit=lambda z: (_stream_zeros(z, "resources/zeros.bin", 8 * MiB), _lie("resources/zeros.bin", 1024 - 8 * MiB)(z)))
    return p, None


def v_declared_larger(src, d):
    """The binary's declared size 2 KiB larger than its data."""
    return rewrite(src, d / "lielarge.fmu", edit=_lie(LIB, 2048)), None


VARIANTS = {f.__name__[2:]: f for f in [
    v_missing_file, v_not_a_zip, v_empty_file, v_truncated_zip, v_corrupt_member,
    v_md_missing, v_md_truncated, v_md_not_xml, v_md_schema, v_wrong_guid, v_identifier_mismatch,
    v_binary_missing, v_binary_garbage, v_binary_symlink, v_dotdot, v_absolute, v_too_many_members,
    v_bomb_over_limit, v_bomb_ratio, v_declares_2gib, v_declared_smaller, v_declared_larger,
]}

# the words each refusal is expected to contain (case-insensitive), beyond the file's path
EXPECT = {
    "missing_file": "no such file", "not_a_zip": "not a zip", "empty_file": "not a zip",
    "truncated_zip": "not a zip", "corrupt_member": "member", "md_missing": "modelDescription.xml missing",
    "md_truncated": "modelDescription.xml", "md_not_xml": "modelDescription.xml",
    "md_schema": "modelDescription.xml", "wrong_guid": "GUID", "identifier_mismatch": "no binary",
    "binary_missing": "no binary", "binary_garbage": "cannot load", "binary_symlink": "symbolic link",
    "dotdot": "unsafe path", "absolute": "unsafe path", "too_many_members": "too many members",
    "bomb_over_limit": "limit", "bomb_ratio": "ratio", "declares_2gib": "limit",
    "declared_smaller": "member", "declared_larger": "declared size",
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_open_hostile_fmu_raises_one_error_and_leaves_nothing(ball, tmp_path, private_tmp, variant):
    fmu, limits = VARIANTS[variant](ball, tmp_path)
    before = _leftovers(private_tmp)
    cwd = os.getcwd()
    kw = {"limits": limits} if limits else {}
    with pytest.raises(FMUOpenError) as ei:
        open_fmu(fmu, **kw)
    msg = str(ei.value)
    assert "\n" not in msg and msg.startswith(str(fmu)), msg
    assert EXPECT[variant].lower() in msg.lower(), msg
    assert _leftovers(private_tmp) == before
    assert os.getcwd() == cwd                     # FMPy changes directory to load a binary
    assert not (tmp_path.parent / "evil.txt").exists() and not Path("/tmp/wearcosim-evil.txt").exists()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_validate_reports_hostile_fmu(ball, tmp_path, private_tmp, variant):
    fmu, limits = VARIANTS[variant](ball, tmp_path)
    problems = validate(fmu, limits=limits)
    assert problems and all(isinstance(p, str) and "\n" not in p for p in problems), problems
    assert _leftovers(private_tmp) == []


def test_wrong_guid_is_also_an_fmi_error(ball, tmp_path, private_tmp):
    fmu, _ = v_wrong_guid(ball, tmp_path)
    with pytest.raises(FMUInstantiateError) as ei:
        open_fmu(fmu)
    assert isinstance(ei.value, FMIError) and ei.value.function == "fmi2Instantiate"
    assert any("GUID" in line for line in ei.value.log)
    assert _leftovers(private_tmp) == []
    import pickle                                  # errors cross process boundaries (Dask)
    for exc in (ei.value, FMIError("fmi2DoStep", 3, ["x"]), FMUOpenError(fmu, "why")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)


def test_intact_fmu_validates_and_opens(ball, private_tmp):
    assert validate(ball) == []
    assert validate(ball, smoke=False) == []
    assert _leftovers(private_tmp) == []
    r = open_fmu(ball)
    d = r._dir
    assert d.is_dir() and d.parent == private_tmp
    r.setup(0.0, None, None, 1e-3)
    r.initialize()
    r.step(2)
    r.terminate()
    assert not d.exists() and _leftovers(private_tmp) == []
    r.terminate()                                  # a second terminate does nothing


def test_model_exchange_only_fmu(ball, tmp_path, private_tmp):
    """No CoSimulation element: the CS runner refuses it (one error, nothing left behind);
    the smoke test of check takes the Model Exchange path and passes."""
    import re
    text = re.sub(r"\s*<CoSimulation .*?</CoSimulation>", "", _md_text(ball), flags=re.S)
    fmu = rewrite(ball, tmp_path / "me.fmu", replace={MD: text.encode()})
    with pytest.raises(FMUOpenError, match="no Co-Simulation interface"):
        open_fmu(fmu)
    assert _leftovers(private_tmp) == []
    assert validate(fmu) == []
    assert _leftovers(private_tmp) == []


def test_runner_dropped_without_terminate_removes_its_folder(ball, private_tmp):
    r = open_fmu(ball)
    d = r._dir
    assert d.is_dir()
    del r
    gc.collect()
    assert not d.exists() and _leftovers(private_tmp) == []


def test_process_exit_without_terminate_removes_the_folder(ball, private_tmp):
    code = ("import sys; from wearcosim.fmi.runner import open_fmu; r = open_fmu(sys.argv[1]); "
            "print(r._dir, flush=True)")
    out = subprocess.run([sys.executable, "-c", code, str(ball)], env=_child_env(private_tmp),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    d = Path(out.stdout.strip())
    assert d.parent == private_tmp and not d.exists()
    assert _leftovers(private_tmp) == []


def _child_env(private_tmp):
    env = dict(os.environ, TMPDIR=str(private_tmp))
    root = str(Path(__file__).resolve().parents[2] / "python")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def test_folders_of_killed_processes_are_swept_live_ones_kept(ball, private_tmp):
    """A process killed with its FMU open (SIGKILL: no clean-up possible) leaves its folder;
    the next opening in any process removes it, but never the folder of a live process."""
    killed = ("import os, signal, sys; from wearcosim.fmi.runner import open_fmu; r = open_fmu(sys.argv[1]); "
              "print(r._dir, flush=True); os.kill(os.getpid(), signal.SIGKILL)")
    out = subprocess.run([sys.executable, "-c", killed, str(ball)], env=_child_env(private_tmp),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == -9, out.stderr
    dead = Path(out.stdout.strip())
    assert dead.is_dir() and dead.parent == private_tmp
    alive = ("import sys; from wearcosim.fmi.runner import open_fmu; r = open_fmu(sys.argv[1]); "
             "print(r._dir, flush=True); sys.stdin.read(); r.setup(0.0, None, None, 1e-3); r.initialize(); r.terminate()")
    p = subprocess.Popen([sys.executable, "-c", alive, str(ball)], env=_child_env(private_tmp),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        live = Path(p.stdout.readline().strip())
        assert live.is_dir()
        r = open_fmu(ball)
        assert not dead.exists() and live.is_dir()
        r.setup(0.0, None, None, 1e-3)
        r.initialize()
        r.terminate()
        assert validate(ball, smoke=True) == [] and live.is_dir()
    finally:
        p.stdin.close()
        p.wait(timeout=300)
    assert not live.exists() and _leftovers(private_tmp) == []


def test_streaming_enforces_the_limit_when_the_directory_passes(ball, tmp_path, private_tmp, monkeypatch):
    """The sizes are enforced while writing, not only on the zip directory: with the directory
    checks disabled, the bomb is still stopped at the limit and nothing is left behind."""
    fmu, limits = v_bomb_over_limit(ball, tmp_path)
    monkeypatch.setattr(archive, "directory_problems", lambda z, limits: [])
    with pytest.raises(FMUOpenError, match="limit"):
        safe_extract(fmu, limits=limits)
    assert _leftovers(private_tmp) == []
    fmu, _ = v_bomb_ratio(ball, tmp_path)
    with pytest.raises(FMUOpenError, match="zip bomb"):
        safe_extract(fmu)
    assert _leftovers(private_tmp) == []


def test_extraction_into_an_existing_folder_removes_only_what_it_wrote(ball, tmp_path):
    fmu, _ = v_declared_smaller(ball, tmp_path)
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep")
    with pytest.raises(FMUOpenError):
        safe_extract(fmu, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["mine.txt"]


def test_limits_from_environment(monkeypatch):
    monkeypatch.setenv("WEARCOSIM_FMU_MAX_SIZE", "512M")
    monkeypatch.setenv("WEARCOSIM_FMU_MAX_MEMBERS", "10")
    monkeypatch.setenv("WEARCOSIM_FMU_MAX_RATIO", "0")
    lim = Limits.from_env()
    assert (lim.max_total_size, lim.max_members, lim.max_ratio) == (512 * MiB, 10, 0)
    assert Limits() == Limits(max_total_size=1 << 30, max_members=100_000, max_ratio=200.0,
                              ratio_min_size=16 * MiB)


# ------------------------------------------------------------ binaries that crash or hang

def _stub_library(tmp_path, body_instantiate="static char c; return &c;", body_dostep="return 0;"):
    """A shared library exporting every FMI 2.0 function as a stub (compiled here)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    from fmpy.fmi2 import FMU2Model, FMU2Slave
    names = sorted({n for c in (FMU2Slave, FMU2Model) for n in dir(c) if n.startswith("fmi2")})
    src = ["#include <signal.h>", "#include <unistd.h>"]
    for n in names:
        if n == "fmi2Instantiate":
            src.append(f"void *{n}(void) {{ {body_instantiate} }}")
        elif n == "fmi2DoStep":
            src.append(f"int {n}(void) {{ {body_dostep} }}")
        else:
            src.append(f"long {n}(void) {{ return 0; }}")
    c = tmp_path / "stub.c"
    c.write_text("\n".join(src) + "\n")
    lib = tmp_path / "stub.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(c)], check=True, capture_output=True, timeout=300)
    return lib.read_bytes()


def test_validate_reports_a_crashing_binary(ball, tmp_path, private_tmp):
    """fmi2DoStep raises SIGSEGV: the smoke subprocess dies, check reports it and survives."""
    so = _stub_library(tmp_path, body_dostep="raise(SIGSEGV); return 0;")
    fmu = rewrite(ball, tmp_path / "crash.fmu", replace={LIB: so})
    problems = validate(fmu)
    assert len(problems) == 1 and "crashed (SIGSEGV)" in problems[0] and "fmi2DoStep" in problems[0], problems
    assert _leftovers(private_tmp) == []


def test_validate_reports_a_hanging_binary(ball, tmp_path, private_tmp):
    """fmi2Instantiate never returns: the subprocess is killed after the timeout (short here,
    passed explicitly) and the extraction folder is removed all the same."""
    so = _stub_library(tmp_path, body_instantiate="for (;;) pause(); return 0;")
    fmu = rewrite(ball, tmp_path / "hang.fmu", replace={LIB: so})
    problems = validate(fmu, timeout=5)
    assert len(problems) == 1 and "no answer within 5 s" in problems[0], problems
    assert _leftovers(private_tmp) == []


def test_validate_reports_a_failing_fmi_call(ball, tmp_path, private_tmp):
    so = _stub_library(tmp_path, body_dostep="return 3;")           # fmi2Error
    fmu = rewrite(ball, tmp_path / "fails.fmu", replace={LIB: so})
    problems = validate(fmu)
    assert len(problems) == 1 and "smoke test failed: fmi2DoStep" in problems[0], problems
    assert _leftovers(private_tmp) == []
