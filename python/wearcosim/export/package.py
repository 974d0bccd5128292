"""Pass 4: compile the generated C with the shared runtime and zip the FMU.

The FMU holds ``modelDescription.xml``, ``binaries/linux64/<id>.so`` and, under
``sources/``, every C file needed to rebuild the binary on another platform, with
``buildDescription.xml`` listing the units, definitions, include directory, compiler options
and libraries the binary was built with (:mod:`.builddesc`; ``python -m
wearcosim.export.builddesc rebuild`` rebuilds from it with CMake).  The archive is written to a
temporary file next to its destination and renamed into place, so an interrupted or failed
build never leaves a half-written FMU behind.

Windows binaries: when the MinGW-w64 cross compiler is found (``x86_64-w64-mingw32-gcc``,
Debian's ``gcc-mingw-w64-x86-64``), the same units are compiled with the same definitions and
options into ``binaries/win64/<id>.dll`` beside this machine's binary, linked with
``-static-libgcc`` so that the DLL needs only Windows' own ``KERNEL32.dll`` and ``msvcrt.dll``
(checked after the link: :func:`pe_imports`).  Which platforms: :func:`platforms`
(``WEARCOSIM_PLATFORMS``, ``wearcosim build --platforms``; FMUs built on demand to run here,
:mod:`.ondemand`, get this machine's binary only, :func:`host_only`).

Portable binaries: every unit is compiled with ``-include wc_glibc.h`` (fmu/runtime), which
binds the C-library functions whose default symbol version is newer than glibc 2.17 (exp,
log, pow, ... since 2.27-2.38; dlopen & co. since 2.34) to their baseline versions, so the
``.so`` built on a current Linux loads on any glibc >= 2.17 (manylinux2014), with
bit-identical results on the build machine.
"""
from __future__ import annotations

import hashlib
import os
import re
import platform
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zipfile
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

if TYPE_CHECKING:
    from . import builddesc

from ..atomic import atomic_path
from ..resources import fmu_sources
from .errors import ExportError

RUNTIME = fmu_sources() / "runtime"
#: the hand-written C of an FMU: the runtime and the container FMUs' master (fmu/container)
HAND_WRITTEN = (RUNTIME, fmu_sources() / "container")


def platform_dir() -> str:
    sysname = platform.system()
    bits = "64" if platform.architecture()[0] == "64bit" else "32"
    if sysname == "Linux":
        return "linux" + bits
    if sysname == "Darwin":
        return "darwin" + bits
    if sysname == "Windows":
        return "win" + bits
    return sysname.lower() + bits


def shared_ext() -> str:
    """File-name extension of this machine's shared libraries (EXTENSIONS of its platform folder)."""
    return EXTENSIONS.get(platform_dir(), ".so")


# ----------------------------------------------------------------------------- platforms

#: the cross compilers of the platforms the exporter builds beside this machine's: FMI 2.0
#: platform folder -> (compiler, environment variable naming another one, install hint)
CROSS = {"win64": ("x86_64-w64-mingw32-gcc", "WEARCOSIM_MINGW_CC",
                   "MinGW-w64: Debian/Ubuntu gcc-mingw-w64-x86-64, Fedora mingw64-gcc, Homebrew mingw-w64")}
#: file-name extension of each platform folder's shared library
EXTENSIONS = {"linux64": ".so", "linux32": ".so", "darwin64": ".dylib", "darwin32": ".dylib", "win64": ".dll",
              "win32": ".dll"}
#: DLLs every Windows has: a win64 binary may import these (and the api-ms-win-* sets of the
#: Universal CRT, which a MinGW-w64 built for UCRT links) and nothing else: no MinGW runtime
#: such as libgcc_s_seh-1.dll or libwinpthread-1.dll, which a user's machine lacks
WINDOWS_SYSTEM_DLLS = frozenset({"kernel32.dll", "msvcrt.dll", "ucrtbase.dll"})


def windows_system_dll(name: str) -> bool:
    """Whether every 64-bit Windows has the DLL ``name`` (:data:`WINDOWS_SYSTEM_DLLS`, api-ms-win-*)."""
    return name.lower() in WINDOWS_SYSTEM_DLLS or name.lower().startswith("api-ms-win-")
_said_no_cross: set = set()


def cross_compiler(plat: str) -> str | None:
    """The compiler for platform folder ``plat`` (``win64``): the environment variable's
    (``WEARCOSIM_MINGW_CC``) or the default name, if it is found; None otherwise."""
    name, env, _ = CROSS[plat]
    cc = os.environ.get(env) or name
    return shutil.which(cc)


#: the platforms of the builds in a :func:`host_only` block (None: not in one)
_CHOSEN: ContextVar = ContextVar("wearcosim_platforms", default=None)


@contextmanager
def host_only() -> Iterator[None]:
    """Builds inside this block get this machine's binary only, whatever ``WEARCOSIM_PLATFORMS``
    says: for FMUs built to run here (built on demand by a scenario, a study or the demo), where
    a cross-compiled binary would double the compile time for nothing."""
    token = _CHOSEN.set("host")
    try:
        yield
    finally:
        _CHOSEN.reset(token)


def platforms(requested: str | Sequence[str] | None = None) -> list[str]:
    """The FMI 2.0 platform folders an FMU gets binaries for: this machine's first.

    ``requested``: a comma-separated list or a sequence of platform folders (``linux64,win64``),
    ``auto`` or ``host`` (this machine's alone); None: ``host`` inside :func:`host_only`, else
    the environment variable ``WEARCOSIM_PLATFORMS`` (what ``wearcosim build --platforms``
    sets), else ``auto``.  ``auto`` is this machine's platform plus win64 when MinGW-w64 is
    installed; without it one info line on stderr, once per process.  A list must name this
    machine's platform (the exporter always builds the binary it can test) and only platforms
    it can cross-compile; a cross compiler that a list asks for and that is missing is an
    error."""
    if requested is None:
        requested = _CHOSEN.get() or os.environ.get("WEARCOSIM_PLATFORMS") or "auto"
    items = [x.strip() for x in (requested.split(",") if isinstance(requested, str) else requested)]
    items = [x for x in items if x]
    host = platform_dir()
    if items == ["host"]:
        return [host]
    if items in ([], ["auto"]):
        out = [host]
        for plat in CROSS:
            if plat == host:
                continue
            if cross_compiler(plat):
                out.append(plat)
            elif plat not in _said_no_cross:
                _said_no_cross.add(plat)
                name, env, hint = CROSS[plat]
                print(f"info: {os.environ.get(env) or name} not found: the FMUs carry {host} binaries only, no {plat} "
                      f"(install {hint}; or set {env})", file=sys.stderr)
        return out
    known = {host} | set(CROSS)
    for x in items:
        if x not in known:
            raise ExportError(f"platform '{x}' cannot be built here: choose from {', '.join(sorted(known))} "
                              f"(or 'auto', or 'host' for {host} alone)", None, "usage")
    if host not in items:
        raise ExportError(f"{host}, this machine's platform, must be among the platforms: the exporter always "
                          f"builds the binary it can load and check", None, "usage")
    for x in items:
        if x != host and not cross_compiler(x):
            name, env, hint = CROSS[x]
            raise ExportError(f"platform {x} needs the cross compiler {os.environ.get(env) or name}, "
                              f"which is not installed ({hint}; or set {env})", None, "compile")
    return [host] + sorted(set(items) - {host})


def pe_imports(data: bytes) -> list[str]:
    """The DLLs a Windows PE32+ file (a .dll or .exe) imports, from its import directory."""
    if data[:2] != b"MZ":
        raise ValueError("not a PE file (no MZ header)")
    pe, = struct.unpack_from("<I", data, 0x3C)
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("not a PE file (no PE signature)")
    nsect, = struct.unpack_from("<H", data, pe + 6)
    opt_size, = struct.unpack_from("<H", data, pe + 20)
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise ValueError("not a PE32+ (64-bit) file")
    imp_rva, _ = struct.unpack_from("<II", data, opt + 112 + 8)     # data directory 1: imports
    sections = [struct.unpack_from("<IIII", data, opt + opt_size + 40 * i + 8) for i in range(nsect)]

    def off(rva):
        for vsize, vaddr, rawsize, rawptr in sections:
            if vaddr <= rva < vaddr + max(vsize, rawsize):
                return rva - vaddr + rawptr
        raise ValueError(f"RVA {rva:#x} outside the sections")

    names = []
    if imp_rva:
        d = off(imp_rva)
        while True:
            entry = struct.unpack_from("<IIIII", data, d)
            if not any(entry):
                break
            start = off(entry[3])
            names.append(data[start:data.index(b"\0", start)].decode("ascii"))
            d += 20
    return names


#: force-included into every unit (fmu/runtime/wc_glibc.h): no glibc symbol newer than 2.17
PIN_HEADER = "wc_glibc.h"
#: preprocessor definitions of every unit: clock_gettime (POSIX.1-2008) under -std=c99
DEFINITIONS = (("_POSIX_C_SOURCE", "200809L"),)
#: the number of states (config.h's N_X) as RT_ODE_FIXED_N: the solvers' loops over the states
#: get a trip count the compiler knows (fmu/runtime/rt_ode.h)
_N_X = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+N_X[ \t]+(\d+)[ \t]*$", re.M)
#: optimisation level of the hand-written units (:data:`HAND_WRITTEN`): small files whose loops
#: over the states, with RT_ODE_FIXED_N known, -O3 unrolls and vectorises (hybrid mechanism,
#: Adams: 11 % fewer instructions than -O2, slider-crank 18 %); bit-identical results (no
#: reassociation without -ffast-math, no contraction with -ffp-contract=off), about a second
#: more to build.  The generated units keep the level given to :func:`compile_binary`.
HAND_WRITTEN_OPT = "-O3"
#: compiler options (GCC/Clang syntax) that decide what the binary computes, exports or needs,
#: so buildDescription.xml lists them for a rebuild: the pinning header; no contraction of
#: a*b+c into a fused multiply-add (already so for gcc -std=c99, but not for GNU modes, which
#: CMake's C_STANDARD gives by default, nor for clang: on a CPU with FMA the results would
#: change); only the FMI functions of the FMU's face exported.
COMPILER_OPTIONS = ("-include", PIN_HEADER, "-ffp-contract=off", "-fvisibility=hidden")
_DLFCN = re.compile(rb"^\s*#\s*include\s*<dlfcn\.h>", re.M)


def libraries(src_dir: Path, units: Iterable[str]) -> list[str]:
    """System libraries the binary is linked with: libm, and libdl for units that use dlopen
    (in libc since glibc 2.34, in libdl before; the container FMUs)."""
    libs = ["m"]
    if any(_DLFCN.search((Path(src_dir) / u).read_bytes()) for u in units):
        libs.append("dl")
    return libs


def _link_flags(libs) -> list:
    flags = []
    for n in libs:
        if n == "dl" and platform.libc_ver()[0] == "glibc":
            # glibc < 2.34 has dlopen in libdl.so.2, and the binary must name it to find it
            # there; linked on a newer glibc, -ldl finds only an empty libdl.a, so the shared
            # library is named itself and kept although none of its symbols is used here
            flags += ["-Wl,--push-state,--no-as-needed", "-l:libdl.so.2", "-Wl,--pop-state"]
        else:
            flags.append(f"-l{n}")
    return flags


def definitions(src_dir: Path) -> list[tuple[str, str]]:
    """Preprocessor definitions of every unit: :data:`DEFINITIONS`, and ``RT_ODE_FIXED_N`` =
    the number of states when ``src_dir/config.h`` defines a positive ``N_X`` (it changes no
    result: without it the solvers take the count at run time)."""
    out = list(DEFINITIONS)
    cfg = Path(src_dir) / "config.h"
    m = _N_X.search(cfg.read_bytes()) if cfg.is_file() else None
    if m and int(m.group(1)) > 0:
        out.append(("RT_ODE_FIXED_N", str(int(m.group(1)))))
    return out


def hand_written(units: Iterable[str]) -> set[str]:
    """The units that are hand-written C (:data:`HAND_WRITTEN`), not generated."""
    names = {p.name for d in HAND_WRITTEN if d.is_dir() for p in d.glob("*.c")}
    return {u for u in units if Path(u).name in names}


def build_description(src_dir: Path, units: Iterable[str], identifier: str) -> "builddesc.BuildConfiguration":
    """The buildDescription.xml configuration of a binary compiled by :func:`compile_binary`."""
    from . import builddesc
    files = builddesc.SourceFileSet(
        list(units), "C99", compiler_options=" ".join(COMPILER_OPTIONS), definitions=definitions(src_dir),
        include_dirs=["."])
    what = {"m": "the C math library", "dl": "dlopen (part of libc since glibc 2.34)"}
    libs = [builddesc.Library(n, True, what.get(n)) for n in libraries(src_dir, units)]
    return builddesc.BuildConfiguration(
        identifier, [files], libs,
        description="the binaries of this FMU were built from these files with these settings "
                    "(compilerOptions in GCC/Clang syntax)")


#: the FMI versions an FMU can be built for, and the face (fmu/runtime) of each: a binary
#: carries one face, so that it exports one FMI version's functions
FACES = {2: "fmi2_face.c", 3: "fmi3_face.c"}
#: the FMI 3.0 platform tuples of the FMI 2.0 platform folders (FMI 3.0, 2.5.1.1)
TUPLES = {"linux64": "x86_64-linux", "linux32": "x86-linux", "win64": "x86_64-windows",
          "win32": "x86-windows", "darwin64": "x86_64-darwin", "darwin32": "x86-darwin"}


def platform_folder(fmi: int = 2, plat: str | None = None) -> str:
    """The ``binaries/`` folder of platform ``plat`` (an FMI 2.0 folder name, default this
    machine's :func:`platform_dir`) in an FMU of FMI version ``fmi``: the FMI 2.0 name
    (``linux64``, ``win64``) or the FMI 3.0 platform tuple (``x86_64-linux``,
    ``x86_64-windows``; this machine's from its processor: ``aarch64-darwin`` on Apple
    silicon)."""
    if fmi == 2:
        return plat or platform_dir()
    if plat is None or plat == platform_dir():
        from .builddesc import platform_tuple
        return platform_tuple()
    return TUPLES.get(plat, plat)


def runtime_sources(fmi: int = 2) -> tuple[list[Path], list[Path]]:
    """(compilation units, headers) of the shared runtime with the face of FMI version ``fmi``
    (:data:`FACES`): the other faces' units and the other versions' headers are left out."""
    if fmi not in FACES:
        raise ExportError(f"FMI version {fmi} is not supported (choose from {', '.join(map(str, FACES))})",
                          None, "usage")
    others = {f for v, f in FACES.items() if v != fmi}
    units = sorted(p for p in RUNTIME.glob("*.c") if p.name not in others)
    api = sorted(p for p in (RUNTIME / "include").glob("*.h") if p.name.startswith(f"fmi{fmi}"))
    headers = sorted(list(RUNTIME.glob("*.h")) + api)
    if not units or not (RUNTIME / FACES[fmi]).is_file():
        raise ExportError(f"the FMI runtime sources are missing in {RUNTIME}", None, "io")
    return units, headers


def copy_sources(gen_dir: Path, src_dir: Path, fmi: int = 2) -> list[str]:
    """Lay out ``sources/``: generated files + runtime with the face of FMI version ``fmi``
    (flat, one include dir)."""
    src_dir.mkdir(parents=True, exist_ok=True)
    units, headers = runtime_sources(fmi)
    for f in list(gen_dir.iterdir()):
        shutil.copy2(f, src_dir / f.name)
    for f in units + headers:
        shutil.copy2(f, src_dir / f.name)
    generated = sorted(f.name for f in gen_dir.glob("*.c"))
    return sorted(generated, key=lambda n: n != "model.c") + [u.name for u in units]


#: a compilation unit whose source (with the .inc files it includes) is larger than this is
#: compiled at -O1: the generated units are straight-line arithmetic, where -O2's extra passes
#: (scheduling, GCSE, value numbering over ~10^5 statements) double gcc's time and memory for
#: a few per cent of run time (33-element rotor: 15 s -> 6 s per 1 MB unit).  IEEE semantics
#: are the same at every level (no -ffast-math; ISO C99 disables FP contraction), so the
#: results do not depend on it.  The library's examples have no unit this large (largest: 482 KB,
#: TwoDiskRub's model.c), so their binaries are unchanged.
LARGE_UNIT_BYTES = 640 * 1024
#: generated units of the directional derivatives alone (codegen.render_c: model_dd<i>.c, the
#: chunks of wc_dd), which fmi2GetDirectionalDerivative calls and a simulation does not: compiled
#: at -O1, a third less of gcc's time for the largest of a model's units (hybrid mechanism:
#: 0.59 -> 0.41 s), with the same results (the same IEEE semantics at every level, as above)
COLD_UNIT = re.compile(r"model_dd\d+\.c$")
_INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"]+\.inc)"', re.M)


def unit_bytes(src_dir: Path, unit: str) -> int:
    """Size of a compilation unit with the generated .inc files it includes."""
    f = Path(src_dir) / unit
    data = f.read_bytes()
    return len(data) + sum((Path(src_dir) / m.decode()).stat().st_size for m in _INCLUDE.findall(data)
                           if (Path(src_dir) / m.decode()).is_file())


@dataclass
class _Target:
    """One binary compile_binary builds: platform folder, compiler, options, objects, output."""
    plat: str
    cc: str
    flags: list
    link: list          # options of the link (after the objects and -o)
    objdir: Path
    out: Path


def compile_binary(src_dir: Path, units: Sequence[str], identifier: str, out: Path, cc: str | None = None,
                   opt: str = "-O2", platforms_: str | Sequence[str] | None = None, fmi: int = 2,
                   objects: Path | None = None, build_cache: Path | None = None) -> list[str]:
    """Compile every unit to an object file, in parallel (one process per core: the generated
    model.c and model_jac.c take most of the time), then link the shared library ``out``
    (this machine's platform, compiler ``cc``, default ``$CC`` or gcc).  Units above
    :data:`LARGE_UNIT_BYTES` and those of :data:`COLD_UNIT` are compiled at -O1, the hand-written ones at
    :data:`HAND_WRITTEN_OPT`.  ``src_dir/buildDescription.xml`` is written from the same lists
    (units, :func:`definitions`, :data:`COMPILER_OPTIONS`, ``src_dir`` as the include
    directory, :func:`libraries`).

    The other platforms of :func:`platforms` (``platforms_``; default: ``WEARCOSIM_PLATFORMS``
    or auto) are cross-compiled from the same units with the same options and definitions, in
    the same pool of jobs, into the sibling folders of ``out``'s folder
    (``binaries/win64/<identifier>.dll``; ``fmi`` = 3: the FMI 3.0 platform tuples,
    ``binaries/x86_64-windows/``, :func:`platform_folder`).  Units that load libraries with dlopen (the
    container FMUs') are built for this machine only: their loader is POSIX.  A win64 DLL is
    linked with -static-libgcc (no libgcc_s_seh-1.dll) and without a time stamp (the same
    sources give the same bytes), stripped, and must import nothing but
    :data:`WINDOWS_SYSTEM_DLLS`.

    Objects of earlier builds (:class:`ObjectCache`) come from ``objects`` (a folder of this
    build's own) or else ``WEARCOSIM_BUILD_CACHE`` (the user's) or else ``build_cache`` (the
    output folder's, :data:`BUILD_CACHE`): the latter is written only once every binary has
    linked, so a failed build adds nothing to the output folder, and is then pruned to
    :data:`BUILD_CACHE_BYTES`.
    Returns the link command of ``out``."""
    from . import builddesc
    cc = cc or os.environ.get("CC", "gcc")
    out.parent.mkdir(parents=True, exist_ok=True)
    libs = libraries(src_dir, units)
    config = build_description(src_dir, units, identifier)
    builddesc.write(src_dir, [config])
    # the header by its path: "-include" looks in the current folder before the include path
    options = [str(Path(src_dir) / o) if o == PIN_HEADER else o for o in COMPILER_OPTIONS]
    # -fno-math-errno: libm need not set errno, so sqrt is inlined (nothing reads errno;
    # like the optimisation level it does not change a result, so it is not a listed option)
    common = [opt, "-fno-math-errno", "-std=c99"] + \
        [f"-D{n}={v}" for n, v in config.file_sets[0].definitions] + options + ["-I", str(src_dir)]
    large = {u for u in units if opt == "-O2" and (COLD_UNIT.match(Path(u).name) or
                                                   unit_bytes(src_dir, u) > LARGE_UNIT_BYTES)}
    level = {u: "-O1" for u in large}
    if opt == "-O2":
        level.update({u: HAND_WRITTEN_OPT for u in hand_written(units)})
    host = platform_dir()
    extra = [p for p in platforms(platforms_) if p != host] if "dl" not in libs else []
    with tempfile.TemporaryDirectory(prefix="wearcosim-obj-") as tmp:
        # the compiler's own temporaries (cc*.s, cc*.o) go into this folder too, so a failed or
        # interrupted build leaves nothing behind in the system's temp folder
        env = dict(os.environ, TMPDIR=tmp)
        targets = [_Target(host, cc, ["-fPIC"] + common, ["-fPIC"] + _link_flags(libs), Path(tmp), out)]
        for plat in extra:
            objdir = Path(tmp) / plat
            objdir.mkdir()
            # -s: no COFF symbol table (Windows tools do not read it; half the DLL's size); no time
            # stamp, and the default image base instead of one hashed from the output's path (a
            # temporary folder): the same sources give the same DLL (it is relocatable either way)
            link = ["-static-libgcc", "-s", "-Wl,--no-insert-timestamp", "-Wl,--disable-auto-image-base"] + \
                [f"-l{n}" for n in libs]
            targets.append(_Target(plat, cross_compiler(plat), list(common), link, objdir,
                                   out.parent.parent / platform_folder(fmi, plat) / (identifier + EXTENSIONS[plat])))
        # in the given order: the generated units (the big ones) come first, the small runtime
        # files fill the gaps; this machine's binary first
        pending = [(t, u) for t in targets for u in units]
        jobs = max(1, min(len(pending), os.cpu_count() or 1))
        running = []
        # (``objects``: a folder of this build's own, e.g. shared by the FMI 2.0 and 3.0 binaries
        # of one model: the units they have in common are compiled once)
        cache = ObjectCache(objects, src_dir) if objects is not None else ObjectCache.from_environment(src_dir)
        if cache is None and build_cache is not None:
            cache = ObjectCache(build_cache, src_dir, deferred=True)
        keys: dict = {}
        try:
            while pending or running:
                while pending and len(running) < jobs:
                    t, unit = pending.pop(0)
                    uflags = [(level.get(unit, opt) if f == opt else f) for f in t.flags]
                    obj = t.objdir / (Path(unit).stem + ".o")
                    cmd = [t.cc, "-c"] + uflags + [str(src_dir / unit), "-o", str(obj)]
                    if cache is not None:
                        keys[(t.plat, unit)] = cache.key(t.cc, uflags, unit)
                        if cache.fetch(keys[(t.plat, unit)], obj):
                            continue
                    try:
                        running.append((t, unit, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                                  text=True, env=env, start_new_session=True)))
                    except FileNotFoundError:
                        what = "install gcc or set CC" if t.plat == host else f"cross compiler for {t.plat}"
                        raise ExportError(f"C compiler '{t.cc}' not found ({what})", None, "compile") from None
                if not running:
                    continue
                t, unit, p = running.pop(0)
                _, err = p.communicate(timeout=600)
                if p.returncode != 0:
                    where = "" if t.plat == host else f" for {t.plat}"
                    raise ExportError(f"C compilation of {identifier}{where} ({unit}) failed:\n{err[-4000:]}", None,
                                      "compile")
                if cache is not None:
                    cache.store(keys[(t.plat, unit)], t.objdir / (Path(unit).stem + ".o"))
        finally:
            for _, _, p in running:          # the whole process group: gcc's cc1/as too
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
        first = None
        for t in targets:
            t.out.parent.mkdir(parents=True, exist_ok=True)
            objs = [str(t.objdir / (Path(u).stem + ".o")) for u in units]
            cmd = [t.cc, "-shared"] + objs + ["-o", str(t.out)] + t.link
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
            if p.returncode != 0:
                where = "" if t.plat == host else f" for {t.plat}"
                raise ExportError(f"linking {identifier}{where} failed:\n{p.stderr[-4000:]}", None, "compile")
            if t.plat.startswith("win"):
                foreign = [d for d in pe_imports(t.out.read_bytes()) if not windows_system_dll(d)]
                if foreign:
                    raise ExportError(f"the {t.plat} binary of {identifier} needs {', '.join(foreign)}, which "
                                      f"Windows does not have (only {', '.join(sorted(WINDOWS_SYSTEM_DLLS))} "
                                      f"may be imported)", None, "compile")
            first = first or cmd
        if cache is not None:
            cache.commit()
    return first


def user_build_cache() -> Path | None:
    """The user's opt-in build cache folder (``WEARCOSIM_BUILD_CACHE``), or None."""
    folder = os.environ.get("WEARCOSIM_BUILD_CACHE", "")
    return Path(folder) if folder else None


_QUOTED_INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"]+)"', re.M)


class ObjectCache:
    """Object files of earlier builds, by content: in the output folder (:data:`BUILD_CACHE`,
    written after a build's binaries linked, unless the build is told not to keep one) or, opt-in,
    in the folder ``WEARCOSIM_BUILD_CACHE`` names (nothing is written anywhere else).  An object's key is the SHA-256 of the compiler
    (its path and ``--version``), the flags (the build's temporary folder written as ``<src>``),
    the unit and every file of the sources folder it includes, directly or through another
    (``#include "..."``: headers and the generated ``.inc`` files; the header a flag
    force-includes too) -- the units include nothing else of the project -- so an object is
    reused only where the compiler would be given the same input.  A rebuild after a change
    that leaves a unit and what it includes as they were (the hand-written runtime of a model
    whose sizes did not change) takes that unit's object instead of compiling it, and the
    solvers, which do not include the model's ``config.h``, are shared by every model with the
    same number of states."""

    _versions: dict = {}

    def __init__(self, folder: Path, src_dir: Path, deferred: bool = False) -> None:
        """``deferred``: :meth:`store` only notes the objects and :meth:`commit` writes them
        (then prunes the folder to :data:`BUILD_CACHE_BYTES`): the output folder's cache, which
        must gain nothing from a build that fails after some units compiled."""
        self.folder = Path(folder)
        self.src_dir = Path(src_dir)
        self.deferred = deferred
        self._closure: dict = {}
        self._pending: list[tuple[str, Path]] = []

    def _included(self, name: str) -> list[str]:
        """The files of the sources folder that ``name`` includes, transitively, sorted."""
        if name not in self._closure:
            seen: set = set()
            todo = [name]
            while todo:
                path = self.src_dir / todo.pop()
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                for m in _QUOTED_INCLUDE.findall(data):
                    inc = m.decode(errors="replace")
                    if inc not in seen and (self.src_dir / inc).is_file():
                        seen.add(inc)
                        todo.append(inc)
            self._closure[name] = sorted(seen)
        return self._closure[name]

    @classmethod
    def from_environment(cls, src_dir: Path) -> "ObjectCache | None":
        folder = user_build_cache()
        return cls(folder, src_dir) if folder is not None else None

    def _version(self, cc: str) -> str:
        if cc not in self._versions:
            try:
                self._versions[cc] = subprocess.run([cc, "--version"], capture_output=True, text=True,
                                                    timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                self._versions[cc] = ""
        return self._versions[cc]

    def key(self, cc: str, flags: Sequence[str], unit: str) -> str:
        h = hashlib.sha256()
        for part in [shutil.which(cc) or cc, self._version(cc), unit] + \
                [f.replace(str(self.src_dir), "<src>") for f in flags]:
            h.update(part.encode() + b"\0")
        h.update((self.src_dir / unit).read_bytes())
        forced = [Path(flags[i + 1]).name for i, f in enumerate(flags[:-1]) if f == "-include"]
        files = set(self._included(unit))
        for f in forced:
            files |= {f, *self._included(f)}
        for name in sorted(files):
            h.update(b"\0" + name.encode() + b"\0" + (self.src_dir / name).read_bytes())
        return h.hexdigest()

    def fetch(self, key: str, obj: Path) -> bool:
        """Copy the cached object of ``key`` to ``obj``; False if there is none.  The object's
        modification time is set to now: :func:`prune_cache` removes the least recently used."""
        cached = self.folder / key[:2] / (key + ".o")
        try:
            shutil.copyfile(cached, obj)
        except OSError:
            return False
        try:
            os.utime(cached)
        except OSError:
            pass
        return True

    def store(self, key: str, obj: Path) -> None:
        """Keep ``obj`` under ``key`` (atomically: a reader never sees half an object); a
        deferred cache notes it for :meth:`commit`."""
        if self.deferred:
            self._pending.append((key, Path(obj)))
            return
        self._write(key, obj)

    def commit(self) -> None:
        """Write the objects a deferred cache noted (their files must still exist), then prune
        the folder to :data:`BUILD_CACHE_BYTES`; nothing for an immediate cache."""
        if not self.deferred:
            return
        pending, self._pending = self._pending, []
        for key, obj in pending:
            self._write(key, obj)
        if pending:
            prune_cache(self.folder, BUILD_CACHE_BYTES)

    def _write(self, key: str, obj: Path) -> None:
        d = self.folder / key[:2]
        part = d / f".{key}.{os.getpid()}.part"
        try:
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(obj, part)
            os.replace(part, d / (key + ".o"))
        except OSError:
            try:                       # a cache that cannot be written is only slower
                part.unlink()
            except OSError:
                pass


#: the output folder's object cache (``<out>/.build-cache``): :func:`compile_binary`'s
#: ``build_cache``, which build.build_fmu turns on unless told not to (``cache=False``,
#: ``wearcosim build --no-build-cache``)
BUILD_CACHE = ".build-cache"
#: the size the output folder's object cache is pruned to after a build (least recently used
#: objects first): the library's 31 examples left 11 MB (0.1-2 MB a model)
BUILD_CACHE_BYTES = 64 * 2 ** 20


def prune_cache(folder: Path, max_bytes: int) -> None:
    """Remove the least recently used objects (by modification time, which
    :meth:`ObjectCache.fetch` renews) of the cache ``folder`` until it holds at most
    ``max_bytes``; objects another build is using stay readable to it (POSIX unlink), and a
    cache that cannot be read or pruned is left as it is."""
    try:
        entries = []
        for p in Path(folder).glob("*/*.o"):
            st = p.stat()
            entries.append((st.st_mtime, st.st_size, p))
    except OSError:
        return
    total = sum(s for _, s, _ in entries)
    for _, size, p in sorted(entries, key=lambda e: e[0]):
        if total <= max_bytes:
            break
        try:
            p.unlink()
            total -= size
        except OSError:
            pass


def write_fmu(stage: Path, dest: Path) -> Path:
    """Zip the staged tree into ``dest`` atomically (temp file + fsync + rename)."""
    with atomic_path(dest, suffix=".part") as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(stage.rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(stage).as_posix())
    return dest
