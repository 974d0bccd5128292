"""Pass 4: compile the generated C with the shared runtime and zip the FMU.

The FMU holds ``modelDescription.xml``, ``binaries/linux64/<id>.so`` and, under
``sources/``, every C file needed to rebuild the binary on another platform, with
``buildDescription.xml`` listing the units, definitions, include directory, compiler options
and libraries the binary was built with (:mod:`.builddesc`; ``python -m
wearcosim.export.builddesc rebuild`` rebuilds from it with CMake).  The archive is written to a
temporary file next to its destination and renamed into place, so an interrupted or failed
build never leaves a half-written FMU behind.

Portable binaries: every unit is compiled with ``-include wc_glibc.h`` (fmu/runtime), which
binds the C-library functions whose default symbol version is newer than glibc 2.17 (exp,
log, pow, ... since 2.27-2.38; dlopen & co. since 2.34) to their baseline versions, so the
``.so`` built on a current Linux loads on any glibc >= 2.17 (manylinux2014), with
bit-identical results on the build machine.
"""
from __future__ import annotations

import os
import re
import platform
import shutil
import signal
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

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
    return {"Linux": ".so", "Darwin": ".dylib", "Windows": ".dll"}.get(platform.system(), ".so")


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
#: change); only the fmi2 functions exported.
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


def runtime_sources() -> tuple[list[Path], list[Path]]:
    """(compilation units, headers) of the shared runtime."""
    units = sorted(p for p in RUNTIME.glob("*.c"))
    headers = sorted(list(RUNTIME.glob("*.h")) + list((RUNTIME / "include").glob("*.h")))
    if not units:
        raise ExportError(f"the FMI runtime sources are missing in {RUNTIME}", None, "io")
    return units, headers


def copy_sources(gen_dir: Path, src_dir: Path) -> list[str]:
    """Lay out ``sources/``: generated files + runtime (flat, one include dir)."""
    src_dir.mkdir(parents=True, exist_ok=True)
    units, headers = runtime_sources()
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
_INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"]+\.inc)"', re.M)


def unit_bytes(src_dir: Path, unit: str) -> int:
    """Size of a compilation unit with the generated .inc files it includes."""
    f = Path(src_dir) / unit
    data = f.read_bytes()
    return len(data) + sum((Path(src_dir) / m.decode()).stat().st_size for m in _INCLUDE.findall(data)
                           if (Path(src_dir) / m.decode()).is_file())


def compile_binary(src_dir: Path, units: Sequence[str], identifier: str, out: Path, cc: str | None = None,
                   opt: str = "-O2") -> list[str]:
    """Compile every unit to an object file, in parallel (one process per core: the generated
    model.c and model_jac.c take most of the time), then link the shared library.  Units above
    :data:`LARGE_UNIT_BYTES` are compiled at -O1, the hand-written ones at
    :data:`HAND_WRITTEN_OPT`.  ``src_dir/buildDescription.xml`` is written from the same lists
    (units, :func:`definitions`, :data:`COMPILER_OPTIONS`, ``src_dir`` as the include
    directory, :func:`libraries`).  Returns the link command."""
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
    flags = ["-fPIC", opt, "-fno-math-errno", "-std=c99"] + \
        [f"-D{n}={v}" for n, v in config.file_sets[0].definitions] + options + ["-I", str(src_dir)]
    large = {u for u in units if opt == "-O2" and unit_bytes(src_dir, u) > LARGE_UNIT_BYTES}
    level = {u: "-O1" for u in large}
    if opt == "-O2":
        level.update({u: HAND_WRITTEN_OPT for u in hand_written(units)})
    jobs = max(1, min(len(units), os.cpu_count() or 1))
    with tempfile.TemporaryDirectory(prefix="wearcosim-obj-") as tmp:
        # the compiler's own temporaries (cc*.s, cc*.o) go into this folder too, so a failed or
        # interrupted build leaves nothing behind in the system's temp folder
        env = dict(os.environ, TMPDIR=tmp)
        objs = [str(Path(tmp) / (Path(u).stem + ".o")) for u in units]
        # in the given order: the generated units (the big ones) come first, the small runtime
        # files fill the gaps
        running, pending = [], list(range(len(units)))
        try:
            while pending or running:
                while pending and len(running) < jobs:
                    i = pending.pop(0)
                    uflags = [(level.get(units[i], opt) if f == opt else f) for f in flags]
                    cmd = [cc, "-c"] + uflags + [str(src_dir / units[i]), "-o", objs[i]]
                    try:
                        running.append((units[i], subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                                   text=True, env=env, start_new_session=True)))
                    except FileNotFoundError:
                        raise ExportError(f"C compiler '{cc}' not found (install gcc or set CC)", None,
                                          "compile") from None
                unit, p = running.pop(0)
                _, err = p.communicate(timeout=600)
                if p.returncode != 0:
                    raise ExportError(f"C compilation of {identifier} ({unit}) failed:\n{err[-4000:]}", None,
                                      "compile")
        finally:
            for _, p in running:          # the whole process group: gcc's cc1/as too
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
        cmd = [cc, "-shared", "-fPIC"] + objs + ["-o", str(out)] + _link_flags(libs)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        if p.returncode != 0:
            raise ExportError(f"linking {identifier} failed:\n{p.stderr[-4000:]}", None, "compile")
    return cmd


def write_fmu(stage: Path, dest: Path) -> Path:
    """Zip the staged tree into ``dest`` atomically (temp file + fsync + rename)."""
    with atomic_path(dest, suffix=".part") as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(stage.rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(stage).as_posix())
    return dest
