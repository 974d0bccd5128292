"""FMUs that load on old Linux systems and rebuild from their sources (issue 18).

1. glibc baseline: the binary of every example FMU (and of a container FMU, which calls
   dlopen) needs no symbol version newer than GLIBC_2.17 (manylinux2014).  The oracle is the
   ELF file itself: its version-needs table (.gnu.version_r, what the dynamic loader checks
   before it loads the library), read by a small parser here, with the symbols that need
   each version (.dynsym + .gnu.version) for the message.  A control builds a library
   without the pinning header and sees the parser report exp@GLIBC_2.29, so a parser that
   found nothing would fail; the pinned and unpinned libm functions compute the same bits.
2. sources/buildDescription.xml: valid by FMI 3.0's schema (FMPy's copy of
   fmi3BuildDescription.xsd), listing the compilation units of modelDescription.xml, which
   are all in sources/, with the definitions and options compile_binary used.
3. Rebuild: the binary built by CMake from nothing but the FMU's sources and its
   buildDescription.xml (our generator, wearcosim.export.builddesc, and fmi-bd2cmake) gives
   bit-identical simulation results (Co-Simulation and Model Exchange) to the shipped one,
   exports the same symbols and needs no newer glibc.  The rebuild uses CMake's Release
   flags (-O3 -DNDEBUG), not the exporter's -O2: the results must not depend on that.
"""
from __future__ import annotations

import ctypes
import platform
import random
import re
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wctest import ROOT
from wearcosim.export import builddesc, frontend, package
from wearcosim.export.build import DEFAULT_PACKAGE

EXAMPLES = frontend.list_models(DEFAULT_PACKAGE, "WearCosim.Examples")
BASELINE = (2, 17)
REBUILT = "WearCosim.Examples.SliderCrank.SliderCrankDry"    # contacts, events, Newton, both solvers

pytestmark = pytest.mark.skipif(platform.system() != "Linux", reason="ELF binaries and glibc: Linux only")


# ----------------------------------------------------------------------------- ELF reading

def _sections(data: bytes):
    """Section headers of an ELF64 little-endian file: (sh_name, sh_type, sh_flags, sh_addr,
    sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not an ELF64 little-endian file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    return [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]


def _string(data: bytes, sections, table: int, off: int) -> str:
    start = sections[table][4] + off
    return data[start:data.index(b"\0", start)].decode()


def version_needs(data: bytes):
    """(needs, symbols) of an ELF64 little-endian shared object: ``needs`` = [(library,
    version)] of its version-needs table, ``symbols`` = {undefined dynamic symbol: version}."""
    sections = _sections(data)

    def string(table, off):
        return _string(data, sections, table, off)

    by_type = {s[1]: s for s in sections}
    verneed = by_type.get(0x6FFFFFFE)          # SHT_GNU_verneed
    dynsym = by_type.get(11)                   # SHT_DYNSYM
    versym = by_type.get(0x6FFFFFFF)           # SHT_GNU_versym
    needs, index = [], {}
    if verneed:
        off = verneed[4]
        for _ in range(verneed[7]):            # sh_info: number of Verneed entries
            _, cnt, file_, aux, nxt = struct.unpack_from("<HHIII", data, off)
            a = off + aux
            for _ in range(cnt):
                _, _, other, name, anext = struct.unpack_from("<IHHII", data, a)
                lib, ver = string(verneed[6], file_), string(verneed[6], name)
                needs.append((lib, ver))
                index[other] = ver
                a += anext
            off += nxt
    symbols = {}
    if dynsym and versym:
        for i in range(dynsym[5] // 24):
            st_name, _, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", data, dynsym[4] + 24 * i)
            ver, = struct.unpack_from("<H", data, versym[4] + 2 * i)
            if shndx == 0 and (ver & 0x7FFF) in index:
                symbols[string(dynsym[6], st_name)] = index[ver & 0x7FFF]
    return needs, symbols


def glibc_version(name: str):
    """GLIBC_2.2.5 -> (2, 2, 5); any other GLIBC_* version (GLIBC_PRIVATE) is 'infinitely new'."""
    m = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)*)", name)
    return tuple(int(x) for x in m.group(1).split(".")) if m else (float("inf"),)


def too_new(data: bytes):
    """The glibc versions the binary needs beyond the baseline, with the symbols needing them."""
    needs, symbols = version_needs(data)
    assert needs, "no version needs at all: not a dynamically linked glibc binary?"
    bad = sorted({v for _, v in needs if v.startswith("GLIBC_") and glibc_version(v) > BASELINE})
    return {v: sorted(s for s, sv in symbols.items() if sv == v) for v in bad}


def binary(fmu: Path) -> bytes:
    with zipfile.ZipFile(fmu) as z:
        ident = _identifier(z)
        return z.read(f"binaries/{package.platform_dir()}/{ident}{package.shared_ext()}")


def _identifier(z: zipfile.ZipFile) -> str:
    return re.search(r'<CoSimulation modelIdentifier="([^"]+)"', z.read("modelDescription.xml").decode()).group(1)


def exported(data: bytes) -> list:
    """Names of the defined global dynamic symbols (what the library exports)."""
    sections = _sections(data)
    dynsym = next(s for s in sections if s[1] == 11)
    names = []
    for i in range(dynsym[5] // 24):
        st_name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", data, dynsym[4] + 24 * i)
        if shndx != 0 and info >> 4 in (1, 2):          # GLOBAL or WEAK, defined
            names.append(_string(data, sections, dynsym[6], st_name))
    return sorted(names)


# ----------------------------------------------------------------------------- 1. glibc baseline

@pytest.mark.parametrize("model", EXAMPLES, ids=[m.rsplit(".", 1)[-1] for m in EXAMPLES])
def test_example_binary_needs_at_most_glibc_2_17(model, build_example):
    data = binary(build_example(model))
    assert too_new(data) == {}, f"{model}: symbols needing a glibc newer than 2.17: {too_new(data)}"
    # the pinned functions are really there (every example calls exp, log and pow)
    _, symbols = version_needs(data)
    assert {symbols.get(f) for f in ("exp", "log", "pow")} <= {"GLIBC_2.2.5", "GLIBC_2.17"}, symbols


def test_container_binary_needs_at_most_glibc_2_17(tmp_path):
    """A container FMU calls dlopen & co. (default GLIBC_2.34 since they moved into libc):
    pinned too, and libdl.so.2 is named so that a glibc < 2.34 finds them there."""
    from wearcosim.export.build import build_fmu
    from wearcosim.system.container import build_container
    from wearcosim.system.model import Component, Connection, System
    fix = ROOT / "tests" / "system" / "fixtures" / "container"
    parts = {n: build_fmu("ContainerTests." + n, fix, tmp_path, path=fix / "ContainerTests.mo").fmu
             for n in ("ContactBody", "ContactSpring")}
    system = System("ContactSystem", components=[Component("body", "ContactBody.fmu", parts["ContactBody"]),
                                                  Component("contact", "ContactSpring.fmu", parts["ContactSpring"])],
                    connections=[Connection("body", "x", "contact", "x"), Connection("contact", "v", "body", "v"),
                                 Connection("contact", "F", "body", "F")])
    fmu = build_container(system, tmp_path / "ContactSystem.fmu")
    data = binary(fmu)
    assert too_new(data) == {}
    _, symbols = version_needs(data)
    assert {symbols[f] for f in ("dlopen", "dlsym", "dlclose", "dlerror")} <= {"GLIBC_2.2.5", "GLIBC_2.17"}
    if platform.libc_ver()[0] == "glibc":
        assert b"libdl.so.2\0" in data
    libs = [lib.name for lib in builddesc.read(fmu)[0].libraries]
    assert libs == ["m", "dl"]


def _compile_so(src: Path, out: Path, pinned: bool):
    header = ["-include", str(ROOT / "fmu" / "runtime" / package.PIN_HEADER)] if pinned else []
    cmd = ["gcc", "-shared", "-fPIC", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L"] + header + \
        [str(src), "-o", str(out), "-lm"] + (["-Wl,--no-as-needed", "-l:libdl.so.2"] if pinned else ["-ldl"])
    subprocess.run(cmd, check=True, capture_output=True)
    return out.read_bytes()


def test_pinning_header_and_checker_on_a_small_library(tmp_path):
    """The control: without the header, a library linked here needs exp@GLIBC_2.29 (and
    dlopen@GLIBC_2.34), and the checker says so; with it, the baseline versions.  The pinned
    and the default versions of the libm functions give the same bits (20 000 arguments each,
    specials included)."""
    glibc = platform.libc_ver()
    if glibc[0] != "glibc" or glibc_version("GLIBC_" + glibc[1]) < (2, 34):
        pytest.skip(f"needs glibc >= 2.34 to have the newer versions (this is {glibc})")
    src = tmp_path / "f.c"
    src.write_text("""
#include <math.h>
#include <dlfcn.h>
double f(int which, double x, double y) {
    switch (which) {
    case 0: return exp(x);   case 1: return log(x);    case 2: return pow(x, y);
    case 3: return exp2(x);  case 4: return log2(x);   case 5: return hypot(x, y);
    case 6: return fmod(x, y);
    case 7: return (double)expf((float)x) + (double)logf((float)y) + (double)powf((float)x, (float)y);
    }
    return dlopen(0, RTLD_NOW) ? 1.0 : 0.0;
}
""")
    plain, pinned = _compile_so(src, tmp_path / "plain.so", False), _compile_so(src, tmp_path / "pinned.so", True)
    bad = too_new(plain)
    assert "exp" in bad.get("GLIBC_2.29", []) and "pow" in bad["GLIBC_2.29"], bad
    assert "dlopen" in bad.get("GLIBC_2.34", []), bad
    assert too_new(pinned) == {}
    a, b = ctypes.CDLL(str(tmp_path / "plain.so")).f, ctypes.CDLL(str(tmp_path / "pinned.so")).f
    for g in (a, b):
        g.restype, g.argtypes = ctypes.c_double, [ctypes.c_int, ctypes.c_double, ctypes.c_double]
    rng = random.Random(18)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 710.0, -746.0, 1e-310, 1e300, float("inf"), float("-inf"),
               float("nan")]
    args = [(x, y) for x in special for y in special]
    args += [(rng.uniform(-750, 750), rng.uniform(-40, 40)) for _ in range(10000)]
    args += [(rng.uniform(0, 1e3), rng.uniform(-40, 40)) for _ in range(10000 - len(special) ** 2)]
    for which in range(8):
        for x, y in args:
            u, v = a(which, x, y), b(which, x, y)
            assert struct.pack("<d", u) == struct.pack("<d", v) or (u != u and v != v), (which, x, y, u, v)


# ----------------------------------------------------------------------------- 2. buildDescription.xml

def _source_files(z: zipfile.ZipFile) -> list:
    md = z.read("modelDescription.xml").decode()
    cs = md[md.index("<CoSimulation"):md.index("</CoSimulation>")]
    return re.findall(r'<File name="([^"]+)"', cs)


@pytest.mark.parametrize("model", EXAMPLES, ids=[m.rsplit(".", 1)[-1] for m in EXAMPLES])
def test_build_description_lists_what_was_compiled(model, build_example):
    from fmpy.model_description import read_build_description
    fmu = build_example(model)
    fmpy_view = read_build_description(str(fmu), validate=True)      # FMI 3.0 schema
    (config,) = builddesc.read(fmu)
    with zipfile.ZipFile(fmu) as z:
        names = set(z.namelist())
        units = _source_files(z)
        ident = _identifier(z)
    assert len(fmpy_view) == 1 and fmpy_view[0].modelIdentifier == ident == config.model_identifier
    assert config.platform is None                        # the configuration for every platform
    (files,) = config.file_sets
    assert files.files == units == fmpy_view[0].sourceFileSets[0].sourceFiles
    assert all(f"sources/{f}" in names for f in files.files)
    assert f"sources/{package.PIN_HEADER}" in names
    assert files.language == "C99"
    nx = int(re.search(r"#define N_X\s+(\d+)", zipfile.ZipFile(fmu).read("sources/config.h").decode()).group(1))
    assert files.definitions == [("_POSIX_C_SOURCE", "200809L")] + ([("RT_ODE_FIXED_N", str(nx))] if nx else [])
    assert files.include_dirs == ["."]
    assert files.compiler_options.split() == ["-include", package.PIN_HEADER, "-ffp-contract=off",
                                              "-fvisibility=hidden"]
    assert [(lib.name, lib.external) for lib in config.libraries] == [("m", True)]


def test_build_description_round_trip_is_schema_valid(tmp_path):
    """Every element and attribute the writer knows, written, validated by the FMI 3.0
    schema and read back unchanged."""
    from fmpy.model_description import read_build_description
    configs = [
        builddesc.BuildConfiguration(
            "M", [builddesc.SourceFileSet(["a.c", "sub/b.c"], "C99", "gcc", "-O0 -include x.h",
                                          [("A", None), ("B", "1 < 2")], [".", "inc"]),
                  builddesc.SourceFileSet(["c.cpp"], "C++17")],
            [builddesc.Library("m", True, "math"), builddesc.Library("libq.a")], "x86_64-linux", "for Linux"),
        builddesc.BuildConfiguration("M", [builddesc.SourceFileSet(["a.c"])])]
    path = builddesc.write(tmp_path, configs)
    assert read_build_description(str(path), validate=True)
    assert builddesc.read(path) == configs
    assert builddesc.choose(configs, "M", "x86_64-linux") is configs[0]
    assert builddesc.choose(builddesc.read(path), "M", "aarch64-darwin") == configs[1]
    with pytest.raises(builddesc.BuildDescriptionError, match="no build configuration of N"):
        builddesc.choose(configs, "N", "x86_64-linux")


def test_cmake_lists_escapes_names_and_refuses_unknown_languages():
    text = builddesc.cmake_lists(builddesc.BuildConfiguration(
        "M", [builddesc.SourceFileSet(['we"ird;$x.c'], "C11", definitions=[("D", None)])]))
    assert r'"${CMAKE_CURRENT_SOURCE_DIR}/sources/we\"ird\;\$x.c"' in text
    assert "C_STANDARD 11" in text and "C_EXTENSIONS OFF" in text and '"D"' in text
    with pytest.raises(builddesc.BuildDescriptionError, match="unknown language 'Fortran'"):
        builddesc.cmake_lists(builddesc.BuildConfiguration("M", [builddesc.SourceFileSet(["a.f"], "Fortran")]))


def test_bad_input_is_one_error_line(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "wearcosim.export.builddesc", *args], capture_output=True,
                              text=True, cwd=tmp_path, env=_env())
    p = run("rebuild", "missing.fmu", "out.fmu")
    assert p.returncode == 1 and p.stderr == "error: missing.fmu: no such file\n"
    z = tmp_path / "old.fmu"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("modelDescription.xml", '<fmiModelDescription fmiVersion="2.0" modelName="m" guid="g">'
                                           '<CoSimulation modelIdentifier="m"/><ModelVariables/>'
                                           '<ModelStructure/></fmiModelDescription>')
    p = run("rebuild", str(z), "out.fmu")
    assert p.returncode == 1 and p.stderr == f"error: {z}: no sources/buildDescription.xml in the FMU\n"
    assert not (tmp_path / "out.fmu").exists()


def _env():
    import os
    return dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))


# ----------------------------------------------------------------------------- 3. CMake rebuild

def _same_simulation(a: Path, b: Path):
    from fmpy import simulate_fmu
    for kind in ("CoSimulation", "ModelExchange"):
        ra, rb = simulate_fmu(str(a), fmi_type=kind), simulate_fmu(str(b), fmi_type=kind)
        assert len(ra) > 100
        assert ra.dtype == rb.dtype and ra.tobytes() == rb.tobytes(), f"{kind}: results differ"


def _check_rebuilt(shipped: Path, rebuilt: Path):
    old, new = binary(shipped), binary(rebuilt)
    assert new != old                                  # really rebuilt (-O3, not the shipped -O2 binary)
    assert too_new(new) == {}                          # the pinning header was force-included
    assert exported(new) == exported(old)              # -fvisibility=hidden: the fmi2 functions only
    assert all(n.startswith("fmi2") for n in exported(new))
    _same_simulation(shipped, rebuilt)


def test_cmake_rebuild_from_build_description_is_bit_identical(build_example, tmp_path):
    shipped = build_example(REBUILT)
    rebuilt = builddesc.rebuild_fmu(shipped, tmp_path / "rebuilt.fmu")
    with zipfile.ZipFile(shipped) as a, zipfile.ZipFile(rebuilt) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
    _check_rebuilt(shipped, rebuilt)


def test_fmi_bd2cmake_rebuild_is_bit_identical(build_example, tmp_path):
    """fmi-bd2cmake (PyPI) reads the same file: GNU99 instead of C99, its own layout; the
    explicit -ffp-contract=off keeps GNU mode from changing the results."""
    from fmi_bd2cmake.generator import CMakeGenerator
    from fmi_bd2cmake.parser import BuildDescriptionParser
    shipped = build_example(REBUILT)
    root = tmp_path / "fmu"
    with zipfile.ZipFile(shipped) as z:
        z.extractall(root)
        ident = _identifier(z)
    so = root / "binaries" / package.platform_dir() / (ident + package.shared_ext())
    so.unlink()
    info = BuildDescriptionParser().parse(root / "sources" / "buildDescription.xml")
    (root / "CMakeLists.txt").write_text(CMakeGenerator().generate(info))
    env = dict(_env(), TMPDIR=str(tmp_path))
    # its CMakeLists.txt asks for CMake 3.5, which CMake 4 deprecates: the policy minimum keeps
    # a later CMake building it
    for cmd in (["cmake", "-S", str(root), "-B", str(tmp_path / "build"), "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_POLICY_VERSION_MINIMUM=3.10"],
                ["cmake", "--build", str(tmp_path / "build"), "--parallel", "2"]):
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    (built,) = (tmp_path / "build").rglob(ident + package.shared_ext())
    so.write_bytes(built.read_bytes())
    rebuilt = tmp_path / "rebuilt.fmu"
    with zipfile.ZipFile(shipped) as zin, zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as zout:
        for n in zin.namelist():
            zout.write(root / n, n)
    _check_rebuilt(shipped, rebuilt)


def test_solvers_compiled_for_the_state_count_give_the_same_bits(build_example, tmp_path):
    """The shipped binary (solvers compiled with RT_ODE_FIXED_N = the number of states, the
    runtime at -O3) and one compiled from the same sources generically (the count read at
    run time, every unit at -O2) simulate bit for bit alike, with every CS solver method."""
    from fmpy import simulate_fmu
    shipped = build_example(REBUILT)
    root = tmp_path / "fmu"
    with zipfile.ZipFile(shipped) as z:
        z.extractall(root)
        ident = _identifier(z)
        units = _source_files(z)
    assert ("RT_ODE_FIXED_N", "4") in builddesc.read(shipped)[0].file_sets[0].definitions
    src = root / "sources"
    so = root / "binaries" / package.platform_dir() / (ident + package.shared_ext())
    cmd = ["gcc", "-shared", "-fPIC", "-O2", "-fno-math-errno", "-std=c99", "-D_POSIX_C_SOURCE=200809L",
           "-include", str(src / package.PIN_HEADER), "-ffp-contract=off", "-fvisibility=hidden", "-I", str(src)] + \
        [str(src / u) for u in units] + ["-o", str(so), "-lm"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(_env(), TMPDIR=str(tmp_path)))
    assert p.returncode == 0, p.stderr[-2000:]
    generic = tmp_path / "generic.fmu"
    with zipfile.ZipFile(shipped) as zin, zipfile.ZipFile(generic, "w", zipfile.ZIP_DEFLATED) as zout:
        for n in zin.namelist():
            zout.write(root / n, n)
    assert binary(generic) != binary(shipped)
    for method in (0, 1, 2, 3):
        kw = dict(fmi_type="CoSimulation", stop_time=0.012, output_interval=1e-5,
                  start_values={"solver.method": method, "solver.rtol": 1e-8})
        ra, rb = simulate_fmu(str(shipped), **kw), simulate_fmu(str(generic), **kw)
        assert len(ra) > 1000 and ra.tobytes() == rb.tobytes(), f"solver.method {method}: results differ"
