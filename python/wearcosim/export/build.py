"""``wearcosim build``: Modelica model -> FMI 2.0 and/or FMI 3.0 FMU (ME + CS), pass by pass.

    frontend.load      .mo (rumoca)            -> ir.Model
    dae.build          ir.Model                -> scalar DAE (symbols, residuals, events)
    causalize          scalar DAE              -> BLT blocks, solved symbolically / Newton
    codegen            blocks                  -> CasADi functions -> C + modelDescription.xml
    package            C + runtime             -> binaries/<platform>/<id>.so + sources/ -> .fmu

The passes run once per model; each FMI version asked for (``fmi``) gets its own description
(codegen.render_xml, md3.render_xml3), face (package.FACES) and binary over the same generated
C.  Where the FMUs go: :func:`fmu_path`.
"""
from __future__ import annotations

import os
import re
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from typing import Iterable
from pathlib import Path

from . import alias as _alias
from . import causalize as _causalize
from . import codegen, dae as _dae, events, frontend, ir, md3, package
from .errors import ExportError

from ..resources import build_dir, library_root

DEFAULT_PACKAGE = library_root() / "WearCosim"


@dataclass
class BuildResult:
    model: str
    fmu: Path                 # the FMI 2.0 FMU if one was built, else the FMI 3.0 one
    seconds: float
    n_states: int
    n_event_indicators: int
    stats: dict
    fmus: dict = field(default_factory=dict)    # {FMI version: FMU path}


#: the FMI versions a build makes by default
DEFAULT_FMI = (2,)


def fmi_versions(spec: "str | int | Iterable[int] | None") -> tuple[int, ...]:
    """The FMI versions of ``spec``: ``"2"``, ``"3"``, ``"2,3"``, an int or ints (None: the
    default, FMI 2.0), sorted without repetition; anything else is a usage error."""
    if spec is None:
        return DEFAULT_FMI
    items = [spec] if isinstance(spec, int) else \
        [x.strip() for x in spec.split(",")] if isinstance(spec, str) else list(spec)
    out = set()
    for x in items:
        try:
            v = int(str(x).strip().removesuffix(".0"))
        except ValueError:
            v = None
        if v not in package.FACES:
            raise ExportError(f"--fmi: unknown FMI version {x!r} (choose 2, 3 or 2,3)", None, "usage")
        out.add(v)
    if not out:
        raise ExportError("--fmi: no FMI version given (choose 2, 3 or 2,3)", None, "usage")
    return tuple(sorted(out))


def fmu_path(out_dir: Path, identifier: str, fmi: int) -> Path:
    """Where the FMU of FMI version ``fmi`` goes: ``<out_dir>/<identifier>.fmu`` for FMI 2.0,
    ``<out_dir>/fmi3/<identifier>.fmu`` for FMI 3.0 (whether or not FMI 2.0 is built too: the
    same command line finds it at the same place, it never replaces an FMI 2.0 FMU, and its
    file name is its model identifier, as importers expect)."""
    return Path(out_dir) / (f"{identifier}.fmu" if fmi == 2 else f"fmi{fmi}/{identifier}.fmu")


def model_path(package_dir: Path, model: str) -> Path:
    # resolved first: the package's name is its folder's name, and Path(".").name is "" (a
    # build with --package . looked for Bounce/Ball.mo inside the Bounce folder itself)
    package_dir = Path(package_dir).resolve()
    p = frontend.model_file_for(package_dir, model)
    top = model.split(".")[0]
    if p is None and (package_dir / "package.mo").is_file() and top != frontend.package_name(package_dir):
        # a class of another library (Modelica.Mechanics.Rotational.Examples.First): its package
        # from --library / MODELICAPATH (MLS 13.3.3; a folder name may carry the version)
        lib = frontend.library_packages().get(top)
        if lib is not None and lib.is_dir():
            p = frontend.model_file_for(lib, model)
    if p is None:
        raise frontend.unknown_class_error(model, frontend.package_classes(Path(package_dir)),
                                           f"{package_dir} (one class per file)", None)
    return p


def short_name(model: str) -> str:
    return model.split(".")[-1]


def load(path: Path, model: str) -> ir.Model:
    """``frontend.load``, with rumoca's refusals of invalid when-clauses that the front end
    reports without their place (a reinit() of one state in two when-equations, a state
    assigned in a when-clause) named at their lines (``events.diagnose_when_refusal``, which
    reads rumoca's own message: the cause of the front end's error)."""
    try:
        src = frontend.sources(Path(path))
        flat = frontend._flatten(src, model)
        irm = frontend._to_ir(flat, src, model, probe=False)   # = frontend.load(path, model)
    except ExportError as exc:
        cause = exc.__cause__ or exc.__context__
        if cause is None or exc.kind not in ("compile", "unsupported", "structure", "error"):
            raise
        src = frontend.sources(Path(path))
        better = events.diagnose_when_refusal(str(cause), src.files, src.path)
        if better is None:
            raise
        raise better from None
    # the enumeration types of the model's variables (the IR has them as Integers): for the
    # FMI <Enumeration> variables and their <TypeDefinitions> (codegen)
    irm.enumerations = enumerations(flat, src, irm)
    return irm


@dataclass
class EnumType:
    """An enumeration type (MLS 4.9.5) as FMI 2.0 declares it: a SimpleType with Items
    ``(name, description)`` whose values are 1..n in this order."""
    name: str                 # qualified Modelica name, e.g. "Modelica.Blocks.Types.Init"
    items: tuple              # ((literal, description), ...)
    description: str = ""


_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def enumerations(flat: dict, src: "frontend.Sources", irm: ir.Model) -> dict:
    """{variable name: EnumType} of the model's enumeration-typed variables, from rumoca's flat
    model: the literals' ordinals (``enum_literal_ordinals``, keyed by qualified and short
    type names), each variable's type as written (``variable_type_names``) and its type id
    (variables of one canonical type have one enumeration).  The descriptions of the type and
    of its literals are read from its declaration in the sources (rumoca does not keep them);
    none where it is not found."""
    ords = flat.get("enum_literal_ordinals") or {}
    roots = set(flat.get("enumeration_type_roots") or [])
    eff = {int(k): v for k, v in (flat.get("effective_types") or {}).items()}
    written = flat.get("variable_type_names") or {}
    types: dict = {}                                     # type name -> {ordinal: literal}
    for key, k in ords.items():
        m = re.match(r"^(.*)\.('(?:[^'\\]|\\.)*'|[^.']+)$", key)
        if not m:
            continue
        lit = m.group(2)
        if lit.startswith("'") and re.fullmatch(r"'[A-Za-z_][A-Za-z0-9_]*'", lit):
            lit = lit[1:-1]                              # 'off' and off are one literal
        types.setdefault(m.group(1), {}).setdefault(int(k), lit)
    # a short key (Mode.off) beside the qualified one (Lab.Mode.off): the qualified one
    full = {t for t in types if not any(u != t and u.endswith("." + t) and types[u] == types[t] for u in types)}
    by_root: dict = {}                                   # canonical type id -> [variable]
    for name, r in (flat.get("variables") or {}).items():
        root = eff.get(r.get("type_id"), {}).get("canonical_type")
        if root in roots and name in irm.variables:
            by_root.setdefault(root, []).append(name)
    out, made = {}, {}
    for root, names in by_root.items():
        said = {written.get(n, "") for n in names} - {""}
        cands = [t for t in full if said and all(t == w or t.endswith("." + w) for w in said)]
        if not cands:
            continue
        t = max(cands, key=len) if len(cands) == 1 else sorted(cands, key=lambda c: (-len(c), c))[0]
        if t not in made:
            lits = [types[t][k] for k in sorted(types[t])]
            descr, items = _enum_descriptions(t, lits, src)
            made[t] = EnumType(t, tuple(zip(lits, items)), descr)
        for n in names:
            out[n] = made[t]
    return out


def _enum_descriptions(tname: str, lits: list, src) -> tuple:
    """(type description, [literal description]) from the declaration ``type <Name> =
    enumeration(a "...", b "...") "..."`` of ``tname`` in the sources ("" where not found)."""
    none = ("", [""] * len(lits))
    short = tname.split(".")[-1]
    files = []
    top = tname.split(".")[0]
    lib = frontend.library_packages().get(top)
    for root in ([lib] if lib is not None else []) + [src.root]:
        try:
            f = frontend.model_file_for(Path(root), tname) if Path(root).is_dir() else None
        except OSError:
            f = None
        if f is not None:
            files.append(Path(f))
    files.append(Path(src.path))
    pat = re.compile(r"\btype\s+" + re.escape(short) + r"\s*=\s*enumeration\s*\(")
    for f in dict.fromkeys(files):
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        m = pat.search(text)
        if not m:
            continue
        body, end = _balanced(text, m.end())
        if body is None:
            return none
        got = {}
        for part in _split_top(body):
            pm = re.match(r"\s*('(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*)\s*(.*)$", part, re.S)
            if pm:
                lit = pm.group(1).strip("'") if re.fullmatch(r"'[A-Za-z_][A-Za-z0-9_]*'", pm.group(1)) else pm.group(1)
                got[lit] = _string_comment(pm.group(2))
        return _string_comment(text[end:end + 2000]), [got.get(x, "") for x in lits]
    return none


def _balanced(text: str, i: int):
    """(the text up to the parenthesis closing the one opened before ``i``, index after it)."""
    depth, j, n = 1, i, len(text)
    while j < n:
        ch = text[j]
        if ch == '"':
            j += 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[i:j], j + 1
        j += 1
    return None, n


def _split_top(body: str) -> list:
    """``body`` split at the commas outside strings and parentheses."""
    parts, depth, start, j = [], 0, 0, 0
    while j < len(body):
        ch = body[j]
        if ch == '"':
            j += 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:j])
            start = j + 1
        j += 1
    parts.append(body[start:])
    return parts


def _string_comment(text: str) -> str:
    """The string comment at the start of ``text`` ("a" + "b" joined), "" if none."""
    m = re.match(r'\s*"((?:[^"\\]|\\.)*)"((?:\s*\+\s*"(?:[^"\\]|\\.)*")*)', text, re.S)
    if not m:
        return ""
    s = m.group(1) + "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
    return re.sub(r'\\(.)', r"\1", s)


def alias_default() -> bool:
    """Alias elimination is on by default (``WEARCOSIM_ALIAS=0`` turns it off, to compare)."""
    return os.environ.get("WEARCOSIM_ALIAS", "1") not in ("", "0")


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished children (the C
    compiler): on a shared machine the wall time says how busy the others were, the CPU time
    what the build itself cost."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


class StageClock:
    """Wall and CPU seconds (:func:`cpu_seconds`) of the stages of a build, in order
    (``with clock("dae"): ...``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def __call__(self, name: str) -> "StageClock":
        self._name = name
        return self

    def __enter__(self) -> "StageClock":
        self._t0, self._c0 = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds[self._name] = self.seconds.get(self._name, 0.0) + time.perf_counter() - self._t0
        self.cpu[self._name] = self.cpu.get(self._name, 0.0) + cpu_seconds() - self._c0


#: the stages of a build as :class:`BuildResult` ``stats["stages"]`` names them, in order
STAGES = ("front end", "DAE", "alias", "causalise", "functions", "C code", "compile", "package")


def generate(model: str, path: Path, expose_protected: bool = False, alias: bool | None = None,
             clock: StageClock | None = None) -> tuple:
    """The front half of a build, the passes from the Modelica file ``path`` to the generated
    CasADi functions of class ``model``: (the front end's model, the causalized DAE,
    codegen.Generated).  ``alias``: eliminate alias equations first (alias.py; None: the
    default, :func:`alias_default`); ``clock``: times the stages."""
    clock = clock or StageClock()
    with clock("front end"):
        irm = load(path, model)
    with clock("DAE"):          # and the index reduction
        d = _dae.build(irm)
    with clock("alias"):
        if alias_default() if alias is None else alias:
            d = _alias.eliminate(d)
    with clock("causalise"):
        c = _causalize.causalize(d)
        _alias.restore(c)
    with clock("functions"):
        gen = codegen.build_functions(c, expose_protected)
    return irm, c, gen


def build_fmu(model: str, package_dir: str | Path = DEFAULT_PACKAGE, out_dir: str | Path | None = None,
              path: str | Path | None = None,
              identifier: str | None = None, keep_dir: str | Path | None = None,
              expose_protected: bool = False, alias: bool | None = None,
              fmi: "str | int | Iterable[int] | None" = None, cache: bool = True) -> BuildResult:
    """Build the FMU(s) of class ``model``: ``<out_dir>/<ShortName>.fmu`` (FMI 2.0) and/or
    ``<out_dir>/fmi3/<ShortName>.fmu`` (FMI 3.0), as ``fmi`` asks (:func:`fmi_versions`;
    default FMI 2.0 only).  The passes up to the C code run once; each version gets its model
    description, face and binary.  Protected parameters are not variables of the FMU unless
    ``expose_protected`` (as in Dymola's default).  ``keep_dir``: a copy of the unzipped FMU
    (with two versions, of each in ``keep_dir/fmi<v>``).

    ``cache``: keep the object files in ``<out_dir>/.build-cache`` (package.BUILD_CACHE) by
    content and take them from there when a unit and what it includes are unchanged, so that a
    rebuild, a second model (the runtime's objects) or a changed parameter default (only
    model_start.c changes) compiles little; the binary is the same.  Off: nothing but the FMUs
    is written to ``out_dir``.  ``WEARCOSIM_BUILD_CACHE`` (a folder of the user's) is used instead
    when set."""
    t0 = time.perf_counter()
    versions = fmi_versions(fmi)
    clock = StageClock()
    package_dir = Path(package_dir).resolve()
    path = Path(path) if path else model_path(package_dir, model)
    irm, c, gen = generate(model, path, expose_protected, alias, clock)
    ident = identifier or short_name(model)
    gen.identifier = ident
    exp = irm.experiment
    xml_exp = {}
    if "StartTime" in exp:
        xml_exp["startTime"] = exp["StartTime"]
    if "StopTime" in exp:
        xml_exp["stopTime"] = exp["StopTime"]
    if "Tolerance" in exp:
        xml_exp["tolerance"] = exp["Tolerance"]
    if "Interval" in exp:
        xml_exp["stepSize"] = exp["Interval"]
    out_root = Path(out_dir if out_dir is not None else build_dir())
    fmus: dict = {}
    with tempfile.TemporaryDirectory(prefix="wearcosim-build-") as tmp:
        tmp = Path(tmp)
        gdir = tmp / "generated"
        with clock("C code"):
            codegen.render_c(gen, gdir, exp)
            doc = codegen.render_documentation(gen, irm.description, irm.documentation, irm.metadata)
        # two versions: the units they share (model code, runtime core, solvers) compiled once,
        # through an object cache of this build unless a longer-lived one serves them (the
        # user's, which compile_binary puts before the output folder's, or the output folder's)
        shared = tmp / "objects" if len(versions) > 1 and not cache and package.user_build_cache() is None else None
        out_cache = out_root / package.BUILD_CACHE if cache else None
        for v in versions:
            stage = tmp / f"fmu{v}"
            with clock("C code"):
                units = package.copy_sources(gdir, stage / "sources", v)
                if v == 2:
                    xml = codegen.render_xml(gen, xml_exp, irm.description, units, irm.metadata)
                else:
                    # the value-reference table of the FMI 3.0 face (fmu/runtime/fmi3_face.c)
                    (stage / "sources" / "fmi3_table.h").write_text(md3.render_table_c(gen))
                    xml = md3.render_xml3(gen, xml_exp, irm.description, irm.metadata)
                (stage / "modelDescription.xml").write_text(xml)
                # documentation/index.html: the entry point of the FMU's documentation (FMI 2.0
                # 2.1, FMI 3.0 2.5)
                (stage / "documentation").mkdir()
                (stage / "documentation" / "index.html").write_text(doc, encoding="utf-8")
            so = stage / "binaries" / package.platform_folder(v) / (ident + package.shared_ext())
            with clock("compile"):
                package.compile_binary(stage / "sources", units, ident, so, fmi=v, objects=shared,
                                       build_cache=out_cache)
            if keep_dir:
                kd = Path(keep_dir) if len(versions) == 1 else Path(keep_dir) / f"fmi{v}"
                if kd.exists():
                    shutil.rmtree(kd)
                shutil.copytree(stage, kd)
            dest = fmu_path(out_root, ident, v)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with clock("package"):
                package.write_fmu(stage, dest)
            fmus[v] = dest
    L = gen.layout
    stats = {"blocks": {k: sum(1 for b in c.blocks if b.kind == k) for k in ("explicit", "linear", "nonlinear")},
             "n_w": len(c.w), "nv": L.NV, "n_aliases": len(c.dae.aliases),
             "stages": {k: round(clock.seconds[k], 3) for k in STAGES if k in clock.seconds},
             "stages_cpu": {k: round(clock.cpu[k], 3) for k in STAGES if k in clock.cpu}}
    return BuildResult(model, fmus.get(2, fmus[versions[0]]), time.perf_counter() - t0, L.n["X"], L.n["M"], stats,
                       fmus)
