"""FMUs for Windows too (issue 37 part 5): binaries/win64 cross-compiled with MinGW-w64.

1. The exporter writes ``binaries/win64/<id>.dll`` beside ``binaries/linux64`` (platforms
   ``linux64,win64``: ``WEARCOSIM_PLATFORMS``, what ``wearcosim build --platforms`` sets, or
   the default when MinGW-w64 is installed).  The DLL is a PE32+ file that imports only
   Windows' own DLLs (no MinGW runtime: -static-libgcc) and exports the FMI 2.0 functions and
   nothing else; the same sources compiled again give the same DLL; the win64 build leaves the sources, the build description and the linux64
   binary as a linux64-only build has them; FMPy's validation passes.  Without the cross
   compiler the default is linux64 alone, with one info line; a list naming a platform that
   cannot be built is one error line.
2. Same results: a small FMI 2.0 driver (scripts/fmi_driver.c), built for Linux with gcc and
   for Windows with MinGW-w64, runs the Co-Simulation interface of three example FMUs (the
   bouncing ball: state events and reinit; Van der Pol: smooth, nonlinear; the Cardona gear
   pair: mesh stiffness with backlash, sin/cos) with a fixed communication step: the Windows
   build under Wine on the win64 DLL, the Linux build on the linux64 library.  Every state's
   trajectory agrees to the solver tolerance: max_t |x_win - x_linux| <= rtol * max_t |x_linux|.
   The ball and Van der Pol, whose equations need only + - * / (and sqrt), give the same bits;
   the gear pair differs from the first communication points on in the last bits and the
   largest difference stays a small fraction of the tolerance.  The reason: MinGW's libm
   (mingw-w64's own sin, cos, atan2, exp, log, pow; msvcrt's asin) and glibc's round
   differently in the last bit for some arguments, and a variable-step solver turns that into
   differences of the order of its tolerance.  glibc itself does so between CPUs: its FMA and
   non-FMA variants give the linux64 binary differences of the same size (docs/fmus.md).

Skipped with the reason when x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64) or wine
(Debian: wine, wine64) is missing.  Part 2 creates a Wine prefix of its own in the test's
temporary folder (about 20 s and 700 MB, removed afterwards; an existing WINEPREFIX in the
environment is used as it is) and builds three FMUs, so it is marked slow.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from wctest import PACKAGE, ROOT
from wearcosim.export import package
from wearcosim.export.build import build_fmu

MINGW = package.cross_compiler("win64")
WINE = shutil.which("wine") or shutil.which("wine64")
DRIVER = ROOT / "scripts" / "fmi_driver.c"
INCLUDE = ROOT / "fmu" / "runtime" / "include"

needs_mingw = pytest.mark.skipif(MINGW is None, reason="no MinGW-w64 cross compiler (x86_64-w64-mingw32-gcc; "
                                                       "Debian: apt-get install gcc-mingw-w64-x86-64)")
needs_wine = pytest.mark.skipif(WINE is None, reason="no Wine to run Windows programs (Debian: apt-get install wine "
                                                     "wine64)")
pytestmark = pytest.mark.skipif(package.platform_dir() != "linux64",
                                reason="compares with the linux64 binary: Linux x86_64 only")

#: (model, stop time, communication step, relative tolerance of the run)
CASES = [
    ("WearCosim.Examples.Basic.BouncingBall", 3.0, 0.01, 1e-8),
    ("WearCosim.Examples.Basic.VanDerPol", 20.0, 0.01, 1e-8),
    ("WearCosim.Examples.Gears.CardonaTorsional", 0.02, 2e-5, 1e-8),
]
FMI2_FUNCTIONS = ("fmi2Instantiate", "fmi2DoStep", "fmi2GetReal", "fmi2SetReal", "fmi2GetDirectionalDerivative",
                  "fmi2SerializeFMUstate", "fmi2GetDerivatives", "fmi2FreeInstance")
SYSTEM_DLLS = ["kernel32.dll", "msvcrt.dll"]


@pytest.fixture(scope="module")
def win_fmu(tmp_path_factory):
    """win_fmu(model) -> the FMU built with WEARCOSIM_PLATFORMS=linux64,win64 (cached)."""
    out = tmp_path_factory.mktemp("win64_fmus")
    built = {}

    def build(model):
        if model not in built:
            old = os.environ.get("WEARCOSIM_PLATFORMS")
            os.environ["WEARCOSIM_PLATFORMS"] = "linux64,win64"
            try:
                built[model] = build_fmu(model, PACKAGE, out).fmu
            finally:
                if old is None:
                    del os.environ["WEARCOSIM_PLATFORMS"]
                else:
                    os.environ["WEARCOSIM_PLATFORMS"] = old
        return built[model]
    return build


def _ident(z: zipfile.ZipFile) -> str:
    return re.search(r'<CoSimulation modelIdentifier="([^"]+)"', z.read("modelDescription.xml").decode()).group(1)


def pe_exports(data: bytes) -> list[str]:
    """Names the export directory of a PE32+ file lists (a reader independent of package.py's)."""
    pe, = struct.unpack_from("<I", data, 0x3C)
    nsect, opt_size = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    exp_rva, _ = struct.unpack_from("<II", data, opt + 112)
    sections = [struct.unpack_from("<IIII", data, opt + opt_size + 40 * i + 8) for i in range(nsect)]

    def off(rva):
        return next(rva - va + raw for vs, va, rs, raw in sections if va <= rva < va + max(vs, rs))
    d = off(exp_rva)
    n_names, = struct.unpack_from("<I", data, d + 24)
    names_rva, = struct.unpack_from("<I", data, d + 32)
    out = []
    for i in range(n_names):
        s = off(struct.unpack_from("<I", data, off(names_rva) + 4 * i)[0])
        out.append(data[s:data.index(b"\0", s)].decode())
    return out


# ----------------------------------------------------------------------------- 1. the binary

@needs_mingw
def test_win64_dll_beside_linux64_and_self_contained(win_fmu, tmp_path, monkeypatch, capsys):
    from fmpy.validation import validate_fmu
    fmu = win_fmu(CASES[0][0])
    with zipfile.ZipFile(fmu) as z:
        ident = _ident(z)
        names = set(z.namelist())
        assert f"binaries/linux64/{ident}.so" in names and f"binaries/win64/{ident}.dll" in names
        dll = z.read(f"binaries/win64/{ident}.dll")
        so = z.read(f"binaries/linux64/{ident}.so")
        z.extractall(tmp_path / "fmu")
    imports = package.pe_imports(dll)
    assert sorted(d.lower() for d in imports) == SYSTEM_DLLS, imports
    exports = pe_exports(dll)
    assert [e for e in exports if not e.startswith("fmi2")] == []
    assert set(FMI2_FUNCTIONS) <= set(exports)
    assert validate_fmu(str(fmu)) == []
    src = tmp_path / "fmu" / "sources"
    desc = (src / "buildDescription.xml").read_bytes()
    units = re.findall(r'<SourceFile name="([^"]+)"', desc.decode())
    # reproducible: the same sources compiled again (another folder) give the same bytes
    package.compile_binary(src, units, ident, tmp_path / "same" / "binaries" / "linux64" / f"{ident}.so",
                           platforms_="linux64,win64")
    assert (tmp_path / "same" / "binaries" / "win64" / f"{ident}.dll").read_bytes() == dll
    # the same sources without a cross compiler: linux64 alone, the same bytes, one info line
    monkeypatch.delenv("WEARCOSIM_PLATFORMS", raising=False)
    monkeypatch.setenv("WEARCOSIM_MINGW_CC", "no-such-mingw-gcc")
    monkeypatch.setattr(package, "_said_no_cross", set())
    out = tmp_path / "again" / "binaries" / "linux64" / f"{ident}.so"
    package.compile_binary(src, units, ident, out)
    assert sorted(p.relative_to(tmp_path / "again").as_posix() for p in (tmp_path / "again").rglob("*.*")) == \
        [f"binaries/linux64/{ident}.so"]
    assert out.read_bytes() == so and (src / "buildDescription.xml").read_bytes() == desc
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("info: no-such-mingw-gcc not found: the FMUs carry linux64")


@needs_mingw
def test_import_check_sees_a_mingw_runtime_dll(tmp_path):
    """The check compile_binary applies to a win64 DLL: a DLL linked with -shared-libgcc that
    needs libgcc (128-bit division) imports libgcc_s_seh-1.dll, which it refuses; with
    -static-libgcc only Windows' own DLLs remain."""
    (tmp_path / "t.c").write_text("__int128 d(__int128 a, __int128 b) { return a / b; }\n"
                                  "__declspec(dllexport) long long f(long long a, long long b) "
                                  "{ return (long long)d(a, b); }\n")
    found = {}
    for how in ("-shared-libgcc", "-static-libgcc"):
        dll = tmp_path / f"t{how}.dll"
        subprocess.run([MINGW, "-shared", how, str(tmp_path / "t.c"), "-o", str(dll)], check=True)
        found[how] = [d for d in package.pe_imports(dll.read_bytes()) if not package.windows_system_dll(d)]
    assert found == {"-shared-libgcc": ["libgcc_s_seh-1.dll"], "-static-libgcc": []}
    with pytest.raises(ValueError, match="not a PE file"):
        package.pe_imports(b"\x7fELF" + bytes(100))


def test_platform_choice(monkeypatch, capsys):
    from wearcosim.export.errors import ExportError
    monkeypatch.delenv("WEARCOSIM_PLATFORMS", raising=False)
    if MINGW:
        assert package.platforms() == package.platforms("auto") == ["linux64", "win64"]
        assert package.platforms(" win64 , linux64") == ["linux64", "win64"]
    assert package.platforms("linux64") == package.platforms("host") == ["linux64"]
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", "linux64")
    assert package.platforms() == ["linux64"]
    # FMUs built on demand to run here: this machine's binary only, whatever the environment says
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", "linux64,win64")
    with package.host_only():
        assert package.platforms() == ["linux64"]
    if MINGW:
        assert package.platforms() == ["linux64", "win64"]
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", "linux64")
    for bad, says in [("win64", "linux64, this machine's platform, must be among the platforms"),
                      ("linux64,darwin64", "platform 'darwin64' cannot be built here")]:
        with pytest.raises(ExportError, match=says) as e:
            package.platforms(bad)
        assert "\n" not in str(e.value)
    # no cross compiler: auto is linux64 alone with one info line per process; a list that
    # names win64 is an error naming the package to install
    monkeypatch.setenv("WEARCOSIM_MINGW_CC", "no-such-mingw-gcc")
    monkeypatch.setattr(package, "_said_no_cross", set())
    assert package.platforms("auto") == ["linux64"]
    assert package.platforms("auto") == ["linux64"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("info: no-such-mingw-gcc not found") and "gcc-mingw-w64" in err
    with pytest.raises(ExportError, match="needs the cross compiler no-such-mingw-gcc.*gcc-mingw-w64-x86-64"):
        package.platforms("linux64,win64")


def test_cli_platforms_option(monkeypatch, tmp_path, capsys):
    """``wearcosim build --platforms``: a list it cannot build is one usage line (exit status 2)
    before anything is built; a good list is what the packaging step reads."""
    from wearcosim import cli
    monkeypatch.delenv("WEARCOSIM_PLATFORMS", raising=False)
    monkeypatch.setenv("WEARCOSIM_MINGW_CC", "no-such-mingw-gcc")
    for bad, says in [("win64", "linux64, this machine's platform, must be among the platforms"),
                      ("linux64,win64", "needs the cross compiler no-such-mingw-gcc")]:
        rc = cli.main(["build", "--platforms", bad, "--out", str(tmp_path), "WearCosim.Examples.Basic.VanDerPol"])
        err = capsys.readouterr().err
        assert rc == 2 and err.count("\n") == 1 and err.startswith(f"error: --platforms {bad}: ") and says in err
        assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- 2. same results under Wine

def _driver(tmp: Path) -> tuple[Path, Path]:
    """(Linux build, Windows build) of scripts/fmi_driver.c."""
    lin, win = tmp / "fmi_driver", tmp / "fmi_driver.exe"
    subprocess.run(["gcc", "-O2", "-std=c99", "-I", str(INCLUDE), str(DRIVER), "-ldl", "-o", str(lin)], check=True)
    subprocess.run([MINGW, "-O2", "-std=c99", "-static-libgcc", "-I", str(INCLUDE), str(DRIVER), "-o", str(win)],
                   check=True)
    assert sorted(d.lower() for d in package.pe_imports(win.read_bytes())) == SYSTEM_DLLS
    return lin, win


@pytest.fixture(scope="module")
def wine_env(tmp_path_factory):
    """Environment for wine: the WINEPREFIX of the environment, else a prefix of its own
    (created here, removed afterwards)."""
    own = not os.environ.get("WINEPREFIX")
    prefix = tmp_path_factory.mktemp("wineprefix") if own else Path(os.environ["WINEPREFIX"])
    env = dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=", DISPLAY="")
    p = subprocess.run([WINE, "cmd", "/c", "echo", "ready"], env=env, capture_output=True, text=True, timeout=600)
    assert "ready" in p.stdout, p.stdout + p.stderr
    yield env
    if own:
        subprocess.run(["wineserver", "-k"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(prefix, ignore_errors=True)


def _windows_path(p: Path) -> str:
    """A Linux path as Wine names it on drive Z: (the root folder, in a default prefix)."""
    return "Z:" + str(p.resolve()).replace("/", "\\")


def _read_csv(text: str) -> tuple[list[str], list[list[float]]]:
    rows = list(csv.reader(io.StringIO(text.replace("\r\n", "\n"))))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def compare(fmu: Path, stop: float, step: float, rtol: float, tmp: Path, lin: Path, win: Path, env: dict) -> dict:
    """Run the driver on both binaries: per continuous Real variable, max_t |win - linux| /
    max_t |linux| (0 for a variable that is 0 throughout in both), and whether it is a state."""
    from fmpy import read_model_description
    md = read_model_description(str(fmu))
    reals = [v for v in md.modelVariables if v.type == "Real" and v.variability == "continuous"]
    states = {u.variable.derivative.name for u in md.derivatives}
    folder = tmp / Path(fmu).stem
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    ident = md.coSimulation.modelIdentifier
    args = [md.guid, repr(stop), repr(step), repr(rtol)] + [str(v.valueReference) for v in reals]
    a = subprocess.run([str(lin), str(folder / "binaries" / "linux64" / f"{ident}.so")] + args,
                       capture_output=True, text=True, timeout=600)
    assert a.returncode == 0, a.stderr
    b = subprocess.run([WINE, str(win), _windows_path(folder / "binaries" / "win64" / f"{ident}.dll")] + args,
                       capture_output=True, text=True, timeout=600, env=env)
    assert b.returncode == 0, b.stderr
    ha, ra = _read_csv(a.stdout)
    hb, rb = _read_csv(b.stdout)
    assert ha == hb and len(ra) == len(rb) == round(stop / step) + 1
    assert [r[0] for r in ra] == [r[0] for r in rb]
    diff, equal = {}, 0
    for j, v in enumerate(reals, start=1):
        scale = max(abs(r[j]) for r in ra)
        d = max(abs(x[j] - y[j]) for x, y in zip(ra, rb))
        diff[v.name] = d / scale if scale > 0 else d
        equal += sum(x[j] == y[j] for x, y in zip(ra, rb))
    return {"diff": diff, "states": states, "identical": equal / (len(ra) * len(reals))}


@pytest.mark.slow
@needs_mingw
@needs_wine
def test_win64_under_wine_equals_linux64(win_fmu, wine_env, tmp_path):
    lin, win = _driver(tmp_path)
    bad = []
    for model, stop, step, rtol in CASES:
        r = compare(win_fmu(model), stop, step, rtol, tmp_path, lin, win, wine_env)
        d = r["diff"]
        worst_state = max(r["states"], key=d.get)
        worst = max(d, key=d.get)
        print(f"{model}: states max |win64 - linux64| / max |x| = {d[worst_state]:.3g} ({worst_state}); all "
              f"continuous variables {d[worst]:.3g} ({worst}); {100 * r['identical']:.1f} % of the values "
              f"bit-identical")
        bad += [(model, s, d[s]) for s in r["states"] if not d[s] <= rtol]
    assert bad == []
