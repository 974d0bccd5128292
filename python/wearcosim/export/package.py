"""Pass 4: compile the generated C with the shared runtime and zip the FMU.

The FMU holds ``modelDescription.xml``, ``binaries/linux64/<id>.so`` and, under
``sources/``, every C file needed to rebuild the binary on another platform (FMPy's
``compile_platform_binary`` works on it).  The archive is written to a temporary file next
to its destination and renamed into place, so an interrupted or failed build never leaves
a half-written FMU behind.
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

from ..atomic import atomic_path
from .errors import ExportError

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "fmu" / "runtime"


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


def runtime_sources():
    """(compilation units, headers) of the shared runtime."""
    units = sorted(p for p in RUNTIME.glob("*.c"))
    headers = sorted(list(RUNTIME.glob("*.h")) + list((RUNTIME / "include").glob("*.h")))
    if not units:
        raise ExportError(f"the FMI runtime sources are missing in {RUNTIME}", None, "io")
    return units, headers


def copy_sources(gen_dir: Path, src_dir: Path):
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


def compile_binary(src_dir: Path, units, identifier: str, out: Path, cc: str = None, opt: str = "-O2"):
    """Compile every unit to an object file, in parallel (one process per core: the generated
    model.c and model_jac.c take most of the time), then link the shared library.  Units above
    :data:`LARGE_UNIT_BYTES` are compiled at -O1.  Returns the link command."""
    cc = cc or os.environ.get("CC", "gcc")
    out.parent.mkdir(parents=True, exist_ok=True)
    flags = ["-fPIC", opt, "-fvisibility=hidden", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-I", str(src_dir)]
    large = {u for u in units if opt == "-O2" and unit_bytes(src_dir, u) > LARGE_UNIT_BYTES}
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
                    uflags = [("-O1" if f == opt and units[i] in large else f) for f in flags]
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
        cmd = [cc, "-shared", "-fPIC"] + objs + ["-o", str(out), "-lm"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        if p.returncode != 0:
            raise ExportError(f"linking {identifier} failed:\n{p.stderr[-4000:]}", None, "compile")
    return cmd


def write_fmu(stage: Path, dest: Path):
    """Zip the staged tree into ``dest`` atomically (temp file + fsync + rename)."""
    with atomic_path(dest, suffix=".part") as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(stage.rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(stage).as_posix())
    return dest
