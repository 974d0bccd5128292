"""``sources/buildDescription.xml``: how an FMU's binary was built, and a CMake rebuild from it.

The exporter writes the file next to the C sources of every FMU (:func:`write`, called by
:func:`wearcosim.export.package.compile_binary` with the very lists it compiles with): one
``BuildConfiguration`` (no ``platform``: it is the configuration for every platform) with one
``SourceFileSet`` holding the compilation units, the preprocessor definitions, the include
directory and the compiler options that change what the binary computes, exports or needs,
and the libraries it is linked with.  The layout is FMI 3.0's (``fmi3BuildDescription.xsd``);
FMI 2.0.4 takes it over unchanged for FMI 2.0 FMUs, where it has precedence over the
``SourceFiles`` of ``modelDescription.xml``.  ``fmiVersion="3.0"`` names that schema (the
FMI 3.0 text: in earlier FMI versions the attribute points to the version that defines the
file).  Optimisation levels are not listed: with ISO C99 and no fast-math option they do not
change the results (package.py), so they are the rebuilder's choice.

:func:`cmake_lists` turns a build configuration into a ``CMakeLists.txt`` (every source-file
set an object library with its own language standard, definitions, include directories and
options; the shared library links them with the listed libraries), and :func:`rebuild_fmu`
builds an FMU's binary from its sources that way and writes a copy of the FMU with it::

    python -m wearcosim.export.builddesc rebuild Model.fmu Rebuilt.fmu [--build-type Release]
    python -m wearcosim.export.builddesc cmake Model.fmu DIR     # DIR/CMakeLists.txt + sources

Why a generator of our own: FMPy 0.3.32 reads buildDescription.xml only in FMI 3.0 FMUs (for
FMI 2.0 it compiles the ``SourceFiles`` list with no definitions or options), and
fmi-bd2cmake 0.1.0 ignores ``platform`` (takes the first configuration) and compiles C99 as
GNU99.  Both still give a working binary of these FMUs (tests/export/test_portability.py
rebuilds one with fmi-bd2cmake too); this one applies everything the file says.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

#: the schema version written into fmiVersion (the FMI 3.0 build-description schema)
SCHEMA_VERSION = "3.0"
FILE_NAME = "buildDescription.xml"


class BuildDescriptionError(ValueError):
    """A build description that cannot be read or built; the message is one line."""


@dataclass
class SourceFileSet:
    files: list
    language: str | None = None
    compiler: str | None = None
    compiler_options: str | None = None
    definitions: list = field(default_factory=list)     # (name, value or None)
    include_dirs: list = field(default_factory=list)    # relative to sources/


@dataclass
class Library:
    name: str
    external: bool = False
    description: str | None = None


@dataclass
class BuildConfiguration:
    model_identifier: str
    file_sets: list
    libraries: list = field(default_factory=list)
    platform: str | None = None
    description: str | None = None


# ----------------------------------------------------------------------------- writing

def to_xml(configs: Iterable[BuildConfiguration]) -> str:
    """The text of a buildDescription.xml holding ``configs``."""
    root = ET.Element("fmiBuildDescription", fmiVersion=SCHEMA_VERSION)
    for c in configs:
        e = ET.SubElement(root, "BuildConfiguration", _attrs(modelIdentifier=c.model_identifier,
                                                             platform=c.platform, description=c.description))
        for s in c.file_sets:
            se = ET.SubElement(e, "SourceFileSet", _attrs(language=s.language, compiler=s.compiler,
                                                          compilerOptions=s.compiler_options))
            # the schema's order: SourceFile+, PreprocessorDefinition*, IncludeDirectory*
            for f in s.files:
                ET.SubElement(se, "SourceFile", name=f)
            for name, value in s.definitions:
                ET.SubElement(se, "PreprocessorDefinition", _attrs(name=name, value=value))
            for d in s.include_dirs:
                ET.SubElement(se, "IncludeDirectory", name=d)
        for lib in c.libraries:
            ET.SubElement(e, "Library", _attrs(name=lib.name, external="true" if lib.external else None,
                                               description=lib.description))
    ET.indent(root, "  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _attrs(**kw) -> dict:
    return {k: v for k, v in kw.items() if v is not None}


def write(src_dir: str | Path, configs: Iterable[BuildConfiguration]) -> Path:
    """Write ``<src_dir>/buildDescription.xml``."""
    path = Path(src_dir) / FILE_NAME
    path.write_text(to_xml(configs), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- reading

def read(source: str | Path) -> list[BuildConfiguration]:
    """The build configurations of a buildDescription.xml: a path to the file, to an FMU
    (``sources/buildDescription.xml`` inside it) or to an extracted FMU's folder."""
    source = Path(source)
    if not source.exists():
        raise BuildDescriptionError(f"{source}: no such file")
    try:
        if source.is_dir():
            data = (source / "sources" / FILE_NAME).read_bytes()
        elif zipfile.is_zipfile(source):
            with zipfile.ZipFile(source) as z:
                try:
                    data = z.read("sources/" + FILE_NAME)
                except KeyError:
                    raise BuildDescriptionError(f"{source}: no sources/{FILE_NAME} in the FMU") from None
        else:
            data = source.read_bytes()
        root = ET.fromstring(data)
    except OSError as exc:
        raise BuildDescriptionError(f"{source}: {exc.strerror or exc}") from None
    except ET.ParseError as exc:
        raise BuildDescriptionError(f"{source}: {FILE_NAME} is not well-formed XML ({exc})") from None
    if root.tag != "fmiBuildDescription":
        raise BuildDescriptionError(f"{source}: the root element is <{root.tag}>, not <fmiBuildDescription>")
    configs = []
    for e in root.findall("BuildConfiguration"):
        ident = e.get("modelIdentifier")
        if not ident:
            raise BuildDescriptionError(f"{source}: a BuildConfiguration has no modelIdentifier")
        sets = []
        for s in e.findall("SourceFileSet"):
            files = [f.get("name") for f in s.findall("SourceFile")]
            if not files or None in files:
                raise BuildDescriptionError(f"{source}: a SourceFileSet of {ident} has no SourceFile (or one "
                                            f"without a name)")
            sets.append(SourceFileSet(files, s.get("language"), s.get("compiler"), s.get("compilerOptions"),
                                      [(d.get("name"), d.get("value")) for d in s.findall("PreprocessorDefinition")],
                                      [d.get("name") for d in s.findall("IncludeDirectory")]))
        libs = [Library(lib.get("name"), lib.get("external", "false") in ("true", "1"), lib.get("description"))
                for lib in e.findall("Library")]
        configs.append(BuildConfiguration(ident, sets, libs, e.get("platform"), e.get("description")))
    if not configs:
        raise BuildDescriptionError(f"{source}: no BuildConfiguration")
    return configs


def platform_tuple() -> str:
    """This machine's FMI 3.0 platform tuple (``x86_64-linux``, ``aarch64-darwin``, ...)."""
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64",
            "i386": "x86", "i686": "x86", "x86": "x86"}.get(machine, machine)
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "windows"}.get(platform.system(),
                                                                              platform.system().lower())
    return f"{arch}-{system}"


def choose(configs: Sequence[BuildConfiguration], model_identifier: str, tuple_: str | None = None) -> BuildConfiguration:
    """The configuration an importer on platform ``tuple_`` (default: this machine) uses for
    ``model_identifier``: the one for that platform, else the one without a platform."""
    tuple_ = tuple_ or platform_tuple()
    mine = [c for c in configs if c.model_identifier == model_identifier]
    for c in mine:
        if c.platform == tuple_:
            return c
    for c in mine:
        if c.platform is None:
            return c
    raise BuildDescriptionError(f"no build configuration of {model_identifier} for {tuple_} (nor one for every "
                                f"platform)")


# ----------------------------------------------------------------------------- CMake

_C_STANDARDS = {"C89": "90", "C90": "90", "C99": "99", "C11": "11", "C17": "17", "C18": "17", "C23": "23"}
_CXX_STANDARDS = {"C++98": "98", "C++03": "98", "C++11": "11", "C++14": "14", "C++17": "17", "C++20": "20",
                  "C++23": "23"}


def cmake_literal(text: str) -> str:
    """``text`` escaped for a CMake quoted argument, taken literally (no variable references)."""
    return re.sub(r'([\\"$;])', r"\\\1", str(text))


def _q(text: str, prefix: str = "") -> str:
    """A CMake quoted argument: ``prefix`` (CMake text, variables expanded) + literal ``text``."""
    return '"' + prefix + cmake_literal(text) + '"'


def cmake_lists(config: BuildConfiguration, sources: str = "${CMAKE_CURRENT_SOURCE_DIR}/sources",
                output_dir: str | None = None) -> str:
    """A CMakeLists.txt building ``config``'s shared library ``<modelIdentifier>`` (no ``lib``
    prefix) into ``output_dir`` (default: ``binaries/<FMI 2.0 platform folder>`` next to the
    CMakeLists.txt, as in an extracted FMU).
    ``sources`` is the FMU's ``sources`` folder as CMake should see it.  A language name
    (``C99``, ``C++17``, ...) means that ISO standard without compiler extensions, as the
    exporter's ``-std=c99``.  ``sources`` and ``output_dir`` are CMake text (variables are
    expanded; :func:`cmake_literal` escapes a plain path); names from the file are literal.  ``compilerOptions`` are passed as written (``SHELL:`` keeps
    option pairs such as ``-include file`` together)."""
    from .package import platform_dir
    ident = config.model_identifier
    if output_dir is None:
        output_dir = f"${{CMAKE_CURRENT_SOURCE_DIR}}/binaries/{platform_dir()}"
    langs = set()
    body = []
    objects = []
    for i, s in enumerate(config.file_sets, 1):
        target = f"{ident}_set{i}"
        lang = (s.language or "").strip()
        body.append(f"# SourceFileSet {i}" + (f" ({lang})" if lang else ""))
        body.append(f"add_library({target} OBJECT")
        body += [f"    {_q(f, sources + '/')}" for f in s.files]
        body.append(")")
        props = ["POSITION_INDEPENDENT_CODE ON"]
        if lang.upper() in _C_STANDARDS:
            langs.add("C")
            props += [f"C_STANDARD {_C_STANDARDS[lang.upper()]}", "C_STANDARD_REQUIRED ON", "C_EXTENSIONS OFF"]
        elif lang.upper() in _CXX_STANDARDS:
            langs.add("CXX")
            props += [f"CXX_STANDARD {_CXX_STANDARDS[lang.upper()]}", "CXX_STANDARD_REQUIRED ON",
                      "CXX_EXTENSIONS OFF"]
        elif lang:
            raise BuildDescriptionError(f"{ident}: unknown language {lang!r} of a SourceFileSet (known: "
                                        f"{', '.join(list(_C_STANDARDS) + list(_CXX_STANDARDS))})")
        else:
            langs.add("CXX" if any(f.endswith((".cpp", ".cxx", ".cc")) for f in s.files) else "C")
        body.append(f"set_target_properties({target} PROPERTIES {' '.join(props)})")
        if s.definitions:
            defs = [name if value is None else f"{name}={value}" for name, value in s.definitions]
            body.append(f"target_compile_definitions({target} PRIVATE {' '.join(_q(d) for d in defs)})")
        if s.include_dirs:
            dirs = [_q(d, sources + "/") for d in s.include_dirs]
            body.append(f"target_include_directories({target} PRIVATE {' '.join(dirs)})")
        if s.compiler_options and s.compiler_options.strip():
            body.append(f"target_compile_options({target} PRIVATE {_q('SHELL:' + s.compiler_options.strip())})")
        objects.append(f"$<TARGET_OBJECTS:{target}>")
        body.append("")
    lines = ["# Generated by wearcosim.export.builddesc from sources/buildDescription.xml",
             "cmake_minimum_required(VERSION 3.20)",
             f"project({_q(ident)} LANGUAGES {' '.join(sorted(langs))})", ""] + body
    lines.append(f"add_library({ident} SHARED {' '.join(objects)})")
    libs = []
    for lib in config.libraries:
        # external: provided by the system (-l<name>); otherwise shipped in binaries/<platform>
        libs.append(_q(lib.name) if lib.external else _q(lib.name, output_dir + "/"))
    if libs:
        lines.append(f"target_link_libraries({ident} PRIVATE {' '.join(libs)})")
    # $<0:> keeps multi-configuration generators from appending a per-configuration folder
    out = f'"{output_dir}$<0:>"'
    lines.append(f"set_target_properties({ident} PROPERTIES PREFIX \"\" OUTPUT_NAME {_q(ident)}\n"
                 f"    LIBRARY_OUTPUT_DIRECTORY {out} RUNTIME_OUTPUT_DIRECTORY {out})")
    return "\n".join(lines) + "\n"


def _identifier(fmu: Path) -> str:
    from fmpy import read_model_description
    try:
        md = read_model_description(str(fmu), validate=False)
    except Exception as exc:          # FMPy raises several kinds for a bad file
        raise BuildDescriptionError(f"{fmu}: cannot read modelDescription.xml ({exc})") from None
    kind = md.coSimulation or md.modelExchange
    if kind is None:
        raise BuildDescriptionError(f"{fmu}: modelDescription.xml has neither ModelExchange nor CoSimulation")
    return kind.modelIdentifier


def _run(cmd, cwd, env, what: str):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    except FileNotFoundError:
        raise BuildDescriptionError(f"{cmd[0]!r} not found (install CMake >= 3.20)") from None
    if p.returncode != 0:
        tail = (p.stdout + p.stderr).strip().splitlines()[-12:]
        raise BuildDescriptionError(f"{what} failed: " + " | ".join(tail))


def build_binary(sources: Path, config: BuildConfiguration, work: Path, build_type: str = "Release",
                 cmake: str = "cmake") -> Path:
    """Configure and build ``config`` with CMake in the folder ``work`` (created) from the
    FMU sources folder ``sources``; return the built shared library."""
    from .package import shared_ext
    work = Path(work)
    project, build, out = work / "project", work / "build", work / "out"
    project.mkdir(parents=True)
    (project / "CMakeLists.txt").write_text(cmake_lists(config, cmake_literal(Path(sources).resolve().as_posix()),
                                                        cmake_literal(out.resolve().as_posix())))
    tmp = work / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))     # the compiler's temporaries stay in work/
    _run([cmake, "-S", str(project), "-B", str(build), f"-DCMAKE_BUILD_TYPE={build_type}"], work, env,
         "CMake configuration")
    _run([cmake, "--build", str(build), "--config", build_type, "--parallel", str(os.cpu_count() or 1)], work, env,
         "CMake build")
    lib = out / (config.model_identifier + shared_ext())
    if not lib.is_file():
        raise BuildDescriptionError(f"the CMake build did not produce {lib.name}")
    return lib


def rebuild_fmu(fmu: str | Path, dest: str | Path, build_type: str = "Release", cmake: str = "cmake") -> Path:
    """Rebuild the binary of ``fmu`` from its ``sources/`` as its buildDescription.xml says
    (CMake) and write ``dest``: the same archive with this platform's binary replaced."""
    from ..atomic import atomic_path
    from ..fmi.archive import safe_extract
    from .package import platform_dir, shared_ext
    fmu, dest = Path(fmu), Path(dest)
    configs = read(fmu)
    config = choose(configs, _identifier(fmu))
    member = f"binaries/{platform_dir()}/{config.model_identifier}{shared_ext()}"
    with tempfile.TemporaryDirectory(prefix="wearcosim-rebuild-") as tmp:
        tmp = Path(tmp)
        root = safe_extract(fmu, tmp / "fmu")
        lib = build_binary(root / "sources", config, tmp / "cmake", build_type, cmake)
        with atomic_path(dest, suffix=".part") as part:
            with zipfile.ZipFile(fmu) as zin, zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as zout:
                for info in zin.infolist():
                    if info.filename != member:
                        zout.writestr(info, zin.read(info))
                zout.write(lib, member)
    return dest


def write_cmake_project(fmu: str | Path, folder: str | Path) -> Path:
    """Extract ``fmu`` into ``folder`` and write ``folder/CMakeLists.txt`` (the binary goes to
    ``folder/binaries/<platform>``); returns the CMakeLists.txt."""
    from ..fmi.archive import safe_extract
    fmu, folder = Path(fmu), Path(folder)
    configs = read(fmu)
    config = choose(configs, _identifier(fmu))
    root = safe_extract(fmu, folder)
    path = root / "CMakeLists.txt"
    path.write_text(cmake_lists(config))
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wearcosim.export.builddesc",
                                description="Rebuild an FMU's binary from sources/buildDescription.xml with CMake.")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rebuild", help="build the binary from the sources and write a copy of the FMU with it")
    r.add_argument("fmu")
    r.add_argument("dest")
    r.add_argument("--build-type", default="Release", help="CMAKE_BUILD_TYPE (default Release)")
    c = sub.add_parser("cmake", help="extract the FMU into a folder and write a CMakeLists.txt there")
    c.add_argument("fmu")
    c.add_argument("folder")
    args = p.parse_args(argv)
    from ..fmi.archive import FMUOpenError
    try:
        if args.cmd == "rebuild":
            print(f"rebuilt {rebuild_fmu(args.fmu, args.dest, args.build_type)}")
        else:
            print(f"wrote {write_cmake_project(args.fmu, args.folder)}")
    except (BuildDescriptionError, FMUOpenError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
