"""Front end: rumoca (pinned) parses, resolves and flattens; this adapter turns its flat
JSON into :mod:`wearcosim.export.ir`.

This is the ONLY module that knows rumoca's flat-IR schema (which carries no version):
a rumoca upgrade touches this file and the IR snapshot tests of ``tests/export``.

Diagnostics: rumoca's errors are translated into :class:`ExportError` with ``file:line``;
the spans of a model rumoca compiled are mapped to files through rumoca's own table of source
ids (its DAE stage's ``source_map``), never by matching byte offsets against every file.
Parse errors carry their location in rumoca's diagnostics; for semantic errors (unknown
name, type mismatch) rumoca 0.10.2 gives no location, so the offending identifier is
searched in the source files of the package (first use outside comments).  An unbalanced
model is flattened again as a partial class (rumoca checks the balance of complete models
only) and diagnosed by our own matching (``causalize.check_balance``), which names the
variables and equations left over with their lines.  rumoca's ToDae refusals without a place
(``expression shape mismatch``, ...) are located by compiling the partial class with one
statement of the model's files blanked out at a time (``_diagnose_spanless``): the statement
whose removal makes the refusal go away is the one reported.

What is compiled: a file inside a package (a folder with ``package.mo``) is loaded with its
package, as rumoca does; a file outside any package is compiled alone, with the WearCosim
library as the only other source root -- never with the other ``.mo`` files of its folder
(rumoca would read them all: a broken or duplicate neighbour would break the build).
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from ..resources import library_root
from . import ir
from .errors import ExportError
from .package import user_build_cache

RUMOCA_VERSION = "0.10.2"

#: the folder holding the WearCosim library (source root of files outside any package)
LIBRARY_ROOT = library_root()
#: name given to a stand-alone file handed to rumoca: a folder that does not exist, so that
#: rumoca reads no neighbouring file (it loads every .mo file of a source's folder)
_DETACHED = Path("/nonexistent-wearcosim-detached-source")
#: the partial class wrapped around an unbalanced model to flatten it anyway
_PROBE = "WearCosimBalanceProbe__"

_BINOPS = {
    "Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Exp": "^",
    "AddElem": ".+", "SubElem": ".-", "MulElem": ".*", "DivElem": "./", "ExpElem": ".^",
    "Gt": ">", "Lt": "<", "Ge": ">=", "Le": "<=", "Eq": "==", "Neq": "<>",
    "And": "and", "Or": "or",
}
_UNOPS = {"Minus": "-", "Not": "not", "Plus": "+", "ElemMinus": "-", "ElemPlus": "+"}

# rumoca builtin names -> Modelica names used in our IR
_BUILTINS = {
    "Der": "der", "Pre": "pre", "Edge": "edge", "Change": "change", "Initial": "initial",
    "Terminal": "terminal", "NoEvent": "noEvent", "Smooth": "smooth", "Reinit": "reinit",
    "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin", "Acos": "acos", "Atan": "atan",
    "Atan2": "atan2", "Sinh": "sinh", "Cosh": "cosh", "Tanh": "tanh", "Exp": "exp",
    "Log": "log", "Log10": "log10", "Sqrt": "sqrt", "Abs": "abs", "Sign": "sign",
    "Min": "min", "Max": "max", "Mod": "mod", "Rem": "rem", "Floor": "floor", "Ceil": "ceil",
    "Integer": "integer", "Div": "div", "Sum": "sum", "Product": "product", "Size": "size",
    "Fill": "fill", "Zeros": "zeros", "Ones": "ones", "Transpose": "transpose",
    "Identity": "identity", "Diagonal": "diagonal", "Cross": "cross", "Skew": "skew",
    "Scalar": "scalar", "Vector": "vector", "Matrix": "matrix", "Ndims": "ndims",
    "Linspace": "linspace", "Cat": "cat", "OuterProduct": "outerProduct",
    "Homotopy": "homotopy", "SemiLinear": "semiLinear", "Delay": "delay", "Sample": "sample",
    "Time": "time", "Abs_": "abs",
}

_TYPE_NAMES = {0: "Real", 1: "Integer", 2: "Boolean", 3: "String"}


def _err(msg, loc=None, kind="error"):
    return ExportError(msg, loc, kind)


# ----------------------------------------------------------------------------- sources
class SourceMap:
    """Maps rumoca's (source id, byte offset) spans to ``file:line``.

    rumoca identifies sources by an opaque id.  Keyword locations carry both the id and a
    line number, which pins each id to the one candidate file where that byte offset lies
    on that line and holds that keyword text.
    """

    def __init__(self, files: Iterable[str | Path]) -> None:
        self.files = [Path(f) for f in files]
        self._text = {}
        self._lines = {}
        self.ids: dict = {}

    def text(self, f: Path) -> bytes:
        if f not in self._text:
            self.use_text(f, f.read_bytes())
        return self._text[f]

    def use_text(self, f: Path, b: bytes) -> None:
        """Read spans into ``f`` against ``b``: the file as read, or the text rumoca compiled
        (:func:`_rewrites`)."""
        self._text[f] = b
        self._lines[f] = [0] + [m.end() for m in re.finditer(rb"\n", b)]

    def line_of(self, f: Path, offset: int) -> int:
        self.text(f)
        import bisect
        return bisect.bisect_right(self._lines[f], offset)

    def learn(self, location: dict[str, Any]) -> None:
        sid = location.get("source")
        if sid is None or sid in self.ids:
            return
        line = location.get("start_line")
        start = location.get("start")
        txt = location.get("text", "")
        for f in self.files:
            b = self.text(f)
            if start is None or start > len(b):
                continue
            if self.line_of(f, start) == line and (not txt or b[start:start + len(txt)].decode(errors="ignore") == txt):
                self.ids[sid] = f
                return

    def learn_span(self, span: dict[str, Any], text: str, prefer: Optional[Path] = None) -> None:
        """Pin a source id from a span known to cover ``text`` (a declaration's name)."""
        sid = span.get("source") if span else None
        if sid is None or sid in self.ids:
            return
        start, end = span.get("start"), span.get("end")
        if start is None or end is None:
            return
        order = ([prefer] if prefer in self.files else []) + [f for f in self.files if f != prefer]
        for f in order:
            b = self.text(f)
            if re.search(r"(?<!\w)" + re.escape(text) + r"(?!\w)", b[start:end].decode(errors="ignore")):
                self.ids[sid] = f
                return

    def loc(self, span: Optional[dict]) -> ir.Loc:
        if not span:
            return ir.Loc()
        f = self.ids.get(span.get("source"))
        if f is None:
            return ir.Loc()
        return ir.Loc(str(f), self.line_of(f, span.get("start", 0)))


def _package_files(path: Path):
    """All .mo files rumoca will see: the package tree containing ``path``."""
    root = path.parent
    while (root.parent / "package.mo").exists() and (root / "package.mo").exists():
        if root.parent == root:         # '.' (its parent is itself): go on from the real folder
            if root.is_absolute():
                break
            root = Path(os.path.abspath(root))
            continue
        root = root.parent
    return sorted(root.rglob("*.mo")), root


@dataclass
class Sources:
    """What one build compiles: the file named, and what it belongs to or may reference."""
    path: Path              # the file named
    in_package: bool        # inside a package folder (package.mo beside it)
    root: Path              # top package folder, or the file's folder
    files: list             # .mo files of the compilation (diagnostics, identifier search)
    roots: list             # rumoca source roots: the referenced library packages
    map_files: list         # files rumoca's source spans may point into


def modelica_path() -> list[Path]:
    """Folders searched for top-level library packages, in order: the entries of the
    ``MODELICAPATH`` environment variable (``os.pathsep``-separated, as in the Modelica
    specification, section 13.3.3), then the bundled library folder (``modelica/``)."""
    out = []
    for p in os.environ.get("MODELICAPATH", "").split(os.pathsep):
        if p.strip():
            out.append(Path(p).expanduser().resolve())
    lib = LIBRARY_ROOT.resolve()
    if lib not in out:
        out.append(lib)
    return [p for p in out if p.is_dir()]


def _top_packages(folder: Path) -> dict:
    """Top-level packages of a library folder: name -> package folder (``Name/package.mo``)
    or single file (``Name.mo``)."""
    out = {}
    for child in sorted(folder.iterdir()):
        if child.is_dir() and (child / "package.mo").is_file():
            out.setdefault(package_name(child), child)
        elif child.suffix == ".mo" and child.is_file():
            out.setdefault(package_name(child), child)
    return out


def package_name(p: Path) -> str:
    """The Modelica name of a library folder or file: its name without a version
    (``Modelica 4.0.0`` is the package Modelica, MLS 13.3.3)."""
    name = p.stem if p.suffix == ".mo" and not p.is_dir() else p.name
    return name.split(" ")[0]


def _package_tree(pkg: Path) -> list:
    return sorted(pkg.rglob("*.mo")) if pkg.is_dir() else [pkg]


_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")


def library_packages() -> dict:
    """The top-level library packages on :func:`modelica_path`: name -> folder or file, the
    first folder that holds a package winning (MLS 13.3.3)."""
    found: dict = {}
    for folder in modelica_path():
        for name, p in _top_packages(folder).items():
            found.setdefault(name, p)
    return found


def referenced_libraries(texts: Iterable[str], own: Optional[str] = None) -> list[str]:
    """Library packages (folders or files) that the sources in ``texts`` refer to by their
    top-level name, and, transitively, the ones those refer to.  The first folder of
    :func:`modelica_path` that holds a package wins; ``own`` (the name of the package being
    compiled) is never taken from the path.  Unrelated packages are not read at all."""
    found = library_packages()
    found.pop(own, None)
    chosen = {}
    pending: list = [set(_IDENT.findall(_strip_comments(text))) for text in texts]
    while pending:
        names = pending.pop()
        for name in sorted(names & set(found) - set(chosen)):
            chosen[name] = found[name]
            pending.extend(_file_identifiers(f) for f in _package_tree(found[name]))
    return [chosen[n] for n in sorted(chosen)]


#: (path, modification time in ns, size) -> the identifiers of a library file outside its
#: comments and strings: a process that builds many models (``wearcosim build`` of every
#: example) reads and strips each library file once, not once per model
_IDENTIFIERS: dict = {}


def _file_identifiers(f: Path) -> frozenset:
    """The identifiers of the file ``f`` outside its comments and strings (:data:`_IDENT`),
    remembered while the file's modification time and size stay the same."""
    try:
        st = Path(f).stat()
        key = (str(f), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is not None and key in _IDENTIFIERS:
        return _IDENTIFIERS[key]
    ids = frozenset(_IDENT.findall(_strip_comments(Path(f).read_text(encoding="utf-8", errors="replace"))))
    if key is not None:
        if len(_IDENTIFIERS) > 20000:           # a bound, for a process that builds for days
            _IDENTIFIERS.clear()
        _IDENTIFIERS[key] = ids
    return ids


def sources(path: Path) -> Sources:
    """The files of one build: ``path`` and its package (when ``package.mo`` is beside it),
    plus the libraries they refer to (:func:`referenced_libraries`, found on MODELICAPATH or
    bundled), each given to rumoca as a source root of its own."""
    path = Path(path)
    in_package = (path.parent / "package.mo").exists()
    if in_package:
        files, root = _package_files(path)
    else:
        files, root = ([path] if path.is_file() else []), path.parent
    libs = referenced_libraries([f.read_text(encoding="utf-8", errors="replace") for f in files],
                                own=root.name if in_package else None)
    lib_files = [f for lib in libs for f in _package_tree(lib)]
    return Sources(path, in_package, root, files if in_package else [path], libs,
                   (files if in_package else [path]) + lib_files)


@contextmanager
def _rust_stderr():
    """rumoca's Rust panics print their own report on file descriptor 2 (several lines next to
    our one-line error): that output is held back, and passed on unless the call panicked."""
    panicked = False
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):      # no usable fd 2: nothing to hold back
        yield
        return
    tmp = tempfile.TemporaryFile()
    os.dup2(tmp.fileno(), 2)
    try:
        yield
    except BaseException as exc:
        panicked = _is_panic(exc)
        raise
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        if not panicked:
            tmp.seek(0)
            held = tmp.read()
            if held:
                sys.stderr.write(held.decode(errors="replace"))
                sys.stderr.flush()
        tmp.close()


@contextmanager
def _environ(name: str, value: Optional[str]):
    """The environment variable ``name`` set to ``value`` (None: unset) for the call, as it
    was afterwards."""
    saved = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def _no_modelicapath():
    """rumoca reads ``MODELICAPATH`` itself and parses every package of every folder on it;
    the libraries a build needs are chosen here (:func:`referenced_libraries`) and handed to
    rumoca as roots, so the variable is hidden from it for the call."""
    return _environ("MODELICAPATH", None)


#: name prefix of a temporary library view (:func:`_library_view`)
_VIEW_PREFIX = "wearcosim-libs-"


def _is_temporary_view(root: str) -> bool:
    """``root`` is a temporary library view, removed after its call (:func:`_library_view`)."""
    return Path(root).name.startswith(_VIEW_PREFIX)


def _link_name(p: Path) -> str:
    """The name of library package ``p``'s link in a library view: the package's name, and
    ``.mo`` for a single-file package."""
    return package_name(p) + (".mo" if p.suffix == ".mo" and not p.is_dir() else "")


@contextmanager
def _library_view(libs, rewritten: Optional[dict] = None):
    """rumoca's source roots for the library packages ``libs``.  rumoca parses every package
    of a root folder, so: the packages' own folders when each holds exactly these packages
    (the bundled library; the MSL of a tool's installation beside a user's package folder --
    rumoca resolves references between roots; real folders also let a session be kept,
    :func:`_session_load`), else a folder of symbolic links to them (kept in the build cache,
    :func:`_kept_view`, or temporary and removed afterwards).  ``rewritten`` (file ->
    text, :func:`_rewrites`): those files are written into the temporary folder, whose folders on
    their way are real folders and every other entry a link to the original; the view's files
    -> the originals are then in :data:`_VIEW_FILES` during the call."""
    libs = [Path(p) for p in libs]
    if not libs:
        yield []
        return
    groups: dict = {}
    for p in libs:
        groups.setdefault(p.parent, set()).add(p)
    names = {package_name(p) for p in libs}
    if not rewritten and all(package_name(p) == p.stem for p in libs) and \
            all(_root_holds(folder, ps, names) for folder, ps in groups.items()):
        yield [str(folder) for folder in sorted(groups)]
        return
    if not rewritten:
        kept = _kept_view(libs)
        if kept is not None:
            yield [str(kept)]
            return
    view = Path(tempfile.mkdtemp(prefix=_VIEW_PREFIX))
    rewritten = {Path(f).resolve(): (Path(f), t) for f, t in (rewritten or {}).items()}
    on_way = {a for f in rewritten for a in f.parents}

    def mirror(src: Path, dst: Path) -> None:
        if src.resolve() in rewritten:
            orig, t = rewritten[src.resolve()]
            dst.write_text(t, encoding="utf-8")
            _VIEW_FILES[dst.resolve()] = orig
        elif src.is_dir() and src.resolve() in on_way:
            dst.mkdir()
            for child in sorted(src.iterdir()):
                mirror(child, dst / child.name)
        else:
            dst.symlink_to(src.resolve(), target_is_directory=src.is_dir())
    try:
        for p in libs:
            mirror(p, view / _link_name(p))
        yield [str(view)]
    finally:
        import shutil
        for k in [k for k in _VIEW_FILES if view in k.parents]:
            _VIEW_FILES.pop(k, None)
        shutil.rmtree(view, ignore_errors=True)


def _root_holds(folder: Path, packages: set, names: set) -> bool:
    """Whether the folder ``folder`` can be rumoca's root for ``packages`` (its packages among
    the libraries of the names ``names``): it holds them and nothing else, or it is the bundled
    library's folder (:func:`wearcosim.resources.library_root`), whose other packages are ours
    (WearCosimMSL beside WearCosim), parse, and name none of ``names``.  The bundled examples
    are then loaded from the real folder: rumoca's session is kept between builds (0.5 s of a
    build's front end in a library view of links, 0.03 s in a kept session)."""
    extra = {name for name, p in _top_packages(folder).items() if p not in packages}
    if not extra:
        return True
    try:
        bundled = folder.resolve() == library_root().resolve()
    except OSError:
        return False
    return bundled and not (extra & names)


#: the rewritten files of a library view (:func:`_library_view`) -> the files they stand for
_VIEW_FILES: dict = {}


def _kept_view(libs: list) -> Optional[Path]:
    """With the build cache on: a library view of links (no rewritten file) kept in the cache
    folder under a name hashed from the packages it links, so that the next build with the same
    libraries hands rumoca the same root and finds its parsed files in rumoca's cache
    (:func:`_rumoca_cache`).  Made under a temporary name and renamed into place, so a
    concurrent build sees a whole view or none.  None without the cache, or when it cannot be
    written (the build then makes a temporary view)."""
    cache = user_build_cache()
    if cache is None:
        return None
    import hashlib
    import shutil
    links = sorted((_link_name(p), str(p.resolve())) for p in libs)
    key = hashlib.sha256("\0".join(f"{a}={b}" for a, b in links).encode()).hexdigest()[:24]
    view = cache / "library-views" / key
    if view.is_dir():
        return view
    part = None
    try:
        view.parent.mkdir(parents=True, exist_ok=True)
        part = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=view.parent))
        for link, target in links:
            (part / link).symlink_to(target, target_is_directory=Path(target).is_dir())
        os.rename(part, view)
        part = None
    except OSError:
        if not view.is_dir():
            return None
    finally:
        if part is not None:
            shutil.rmtree(part, ignore_errors=True)
    return view


#: name prefixes of the temporary folders rumoca's cache is kept in: for one call
#: (:func:`_rumoca_cache`), for the life of a process (:func:`_process_rumoca_cache`)
_XDG_PREFIX = "wearcosim-rumoca-cache-"
XDG_PROCESS_PREFIX = "wearcosim-rumoca-process-"
_PROCESS_XDG: list = []         # [folder] of :func:`_process_rumoca_cache`


def _process_rumoca_cache() -> Path:
    """A temporary folder for rumoca's cache that lives as long as this process (removed at
    its exit), for the roots that outlive a call: a kept session (:func:`_session_load`) finds its
    parsed files there at the next build, where a new folder per call would make rumoca write
    them all again (MSL: 8.5 s of CPU per build instead of 2.2).  Named with the process id;
    the folders of processes that died without removing theirs (killed) are removed when the
    next one is made."""
    import atexit
    import shutil
    if _PROCESS_XDG and _PROCESS_XDG[0].is_dir():
        return _PROCESS_XDG[0]
    pid = os.getpid()
    base = Path(tempfile.gettempdir())
    for old in base.glob(f"{XDG_PROCESS_PREFIX}*-*"):
        try:
            os.kill(int(old.name[len(XDG_PROCESS_PREFIX):].split("-")[0]), 0)
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except (ValueError, OSError):
            pass
    folder = Path(tempfile.mkdtemp(prefix=f"{XDG_PROCESS_PREFIX}{pid}-"))
    _PROCESS_XDG[:] = [folder]

    def remove() -> None:
        if os.getpid() == pid:                  # not in a forked child
            shutil.rmtree(folder, ignore_errors=True)
    atexit.register(remove)
    return folder


@contextmanager
def _rumoca_cache(roots: list):
    """Where rumoca keeps its cache of parsed files during the call.  rumoca writes one under
    ``$XDG_CACHE_HOME/rumoca`` (default ``~/.cache/rumoca``), keyed by the files' paths: about
    160 MB for the Modelica Standard Library, written again for every new root folder -- and a
    temporary library view is a new folder at every build (measured: 3.2 GB after one run of
    the test suite).  A build writes nothing outside the folders it is given, so: with the
    opt-in build cache (``WEARCOSIM_BUILD_CACHE``) and roots that outlive the call (a library's
    own folder, a kept view), rumoca's cache lives in ``<cache>/rumoca-xdg`` and the next build
    of the same libraries reads its parsed files from there (MSL's First: 14.3 s CPU cold,
    7.7 s warm); without the build cache in a temporary folder of the process
    (:func:`_process_rumoca_cache`); for a temporary library view in a temporary folder
    removed after the call."""
    import shutil
    cache = user_build_cache()
    tmp = None
    if any(_is_temporary_view(r) for r in roots):
        tmp = Path(tempfile.mkdtemp(prefix=_XDG_PREFIX))
        target = tmp
    elif cache is not None:
        target = cache / "rumoca-xdg"
    else:
        target = _process_rumoca_cache()
    try:
        with _environ("XDG_CACHE_HOME", str(target)):
            yield
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


#: rumoca sessions kept by this process (:func:`_session_load`): (roots, fingerprint, session, lock)
_SESSIONS: list = []
_SESSIONS_LOCK = threading.Lock()
#: how many sessions a process keeps (the Modelica Standard Library's holds ~1.4 GB)
KEPT_SESSIONS = 1


def _roots_fingerprint(roots: list) -> str:
    """The folders under ``roots`` (links followed), each with its modification time and the
    names it holds: what a file added, removed or renamed changes (rumoca's session sees an
    edited file by itself, but keeps a removed one).  MSL: 389 folders, 6 ms."""
    import hashlib
    h = hashlib.sha256()
    for root in roots:
        if not os.path.isdir(root):
            try:
                h.update(f"{root}\0{os.stat(root).st_mtime_ns}\n".encode())
            except OSError:
                h.update(f"{root}\0-\n".encode())
            continue
        for folder, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            try:
                stamp = os.stat(folder).st_mtime_ns
            except OSError:
                stamp = -1
            h.update(f"{folder}\0{stamp}\0{'/'.join(sorted(files))}\n".encode())
    return h.hexdigest()


def _is_view(root: str) -> bool:
    """``root`` is a library view of links (:func:`_library_view`, :func:`_kept_view`)."""
    cache = user_build_cache()
    return _is_temporary_view(root) or (cache is not None and Path(root).parent == cache / "library-views")


def _session_load(roots: list, path: Path, model: str) -> Any:
    """rumoca's model ``model`` of the file ``path``, one of the files under ``roots``
    (``Session.load``), through a session kept by this process.

    A session keeps the libraries it has parsed and resolved, so the builds of one process
    with the same roots share it: MSL examples' front end 10 s of CPU for the first, about 2 s
    for the next ones (``wearcosim build`` of several models, the API in a loop, the ladder's
    build servers).  rumoca's session reads an edited file again by itself; a file added,
    removed or renamed under the roots changes :func:`_roots_fingerprint` and the session is
    made anew.  Kept only where this is so:

    * for a model file of the roots, never for source text handed over as such
      (``Session.loads``: a file outside any package, the balance probe), which a session keeps
      as a document of its own, so that a second one defining the same class is refused;
    * for real folders, never for a library view of links (rumoca 0.10.2 reads a file reached
      through a link as a second document beside the one the model names: a duplicate class
      in a kept session);
    * a reused session that fails is dropped and the model loaded again in a new one, so an
      error is always a new session's.

    At most :data:`KEPT_SESSIONS` are kept; :func:`release_sessions` drops them."""
    rumoca = _rumoca()
    if KEPT_SESSIONS < 1 or any(_is_view(r) for r in roots):
        return rumoca.Session(roots=roots).load(str(path), model=model)
    key, fp = tuple(roots), _roots_fingerprint(roots)
    with _SESSIONS_LOCK:
        entry = next((e for e in _SESSIONS if e[0] == key), None)
        if entry is not None:
            _SESSIONS.remove(entry)
        reused = entry is not None and entry[1] == fp
        if not reused:
            entry = (key, fp, rumoca.Session(roots=roots), threading.Lock())
        _SESSIONS.insert(0, entry)
        del _SESSIONS[KEPT_SESSIONS:]
    with entry[3]:
        try:
            return entry[2].load(str(path), model=model)
        except Exception:
            if not reused:
                raise
    with _SESSIONS_LOCK:
        if entry in _SESSIONS:
            _SESSIONS.remove(entry)
    return _session_load(roots, path, model)


def release_sessions() -> None:
    """Drop the rumoca sessions this process keeps (:func:`_session_load`), and their memory."""
    with _SESSIONS_LOCK:
        _SESSIONS.clear()


def _forget_in_child() -> None:
    """A forked child never uses its parent's sessions, locks or cache folder."""
    global _SESSIONS_LOCK
    _SESSIONS_LOCK = threading.Lock()
    _SESSIONS.clear()
    _PROCESS_XDG.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _rumoca() -> Any:
    """The rumoca module, imported without its IPython probe where that probe cannot find a
    shell: on import rumoca 0.10.2 imports IPython (when installed) to register a Jupyter
    magic if it runs inside IPython -- 0.3 s of CPU in every ``wearcosim build``, the larger
    part of a rebuild's.  A running IPython shell has IPython imported already, so when it is
    not in ``sys.modules`` the probe is given an ImportError (which rumoca catches) for the
    time of the import, and nothing else changes; inside IPython the import is as before."""
    if "rumoca" in sys.modules or "IPython" in sys.modules:
        import rumoca
        return rumoca
    sys.modules["IPython"] = None        # type: ignore[assignment]  # "import IPython" raises ImportError
    try:
        import rumoca
    finally:
        if sys.modules.get("IPython", 0) is None:
            del sys.modules["IPython"]
    return rumoca


def _is_panic(exc) -> bool:
    return type(exc).__name__ == "PanicException"


def _rumoca_flat(src: Sources, model: str, text: str, partial: bool = False, rewritten: Optional[dict] = None) -> dict:
    """rumoca's flat IR of ``model``; ``partial``: of a partial class extending it (no balance
    check); ``rewritten``: files given to rumoca in a rewritten form (:func:`_rewrites`).  Raises
    rumoca's errors and panics."""
    rumoca = _rumoca()
    # a package's own folder is one of the roots too: rumoca then reads its other files as a
    # library; the flat IR of a WearCosim model is the same either way.  (MSL's lower-case
    # package Blocks.Continuous.base is only a warning of rumoca's linter, never a refusal:
    # see _translate_rumoca_error)
    libs = list(src.roots) + ([src.root] if src.in_package and src.root not in src.roots else [])
    if rewritten and src.in_package:
        # the model is loaded from the view: rumoca finds the packages beside its top package
        # (MSL's ModelicaServices, Complex) in the view's folder, as it does beside the original;
        # the model's file is a file of the view too (rumoca follows a link to the original
        # folders, and would read the original of a rewritten file there as well)
        libs += [p for p in _top_packages(src.root.parent).values() if p not in libs]
        rewritten = dict(rewritten)
        rewritten.setdefault(src.path, _read(src.path))
    with _rust_stderr(), _no_modelicapath(), _library_view(libs, rewritten) as roots, _rumoca_cache(roots):
        if src.in_package:
            if partial:
                m = rumoca.Session(roots=[str(src.root.parent)] + roots).loads(
                    f"partial model {_PROBE} extends {model}; end {_PROBE};", model=_PROBE,
                    filename=str(_DETACHED / f"{_PROBE}.mo"))
            else:
                path = src.path
                if rewritten and roots:        # the model's file as the view holds it
                    for lib in libs:
                        lib = Path(lib)
                        if lib in src.path.parents:
                            path = Path(roots[0]) / package_name(lib) / src.path.relative_to(lib)
                            break
                m = _session_load(roots, path, model)
        else:
            code, name = (rewritten or {}).get(src.path, text), model
            if partial:      # appended: the spans of the file's own text stay as they are
                code, name = text + f"\npartial model {_PROBE} extends {model}; end {_PROBE};\n", _PROBE
            m = rumoca.Session(roots=roots).loads(
                code, model=name, filename=str(_DETACHED / src.path.name))
        flat = m.to_dict("flat")
        flat[_SOURCE_FILES] = _source_files(m, src, roots)
        _restore_propagated_bindings(flat)
        return flat


#: key under which :func:`_rumoca_flat` adds rumoca's source ids -> our files to the flat IR
_SOURCE_FILES = "wearcosim_source_files"


def _binding_span(binding: Any) -> Optional[tuple]:
    """(source, start, end) of a flat binding expression's own span, or None."""
    if not isinstance(binding, dict) or len(binding) != 1:
        return None
    body = next(iter(binding.values()))
    span = body.get("span") if isinstance(body, dict) else None
    if not isinstance(span, dict) or "start" not in span:
        return None
    return span.get("source"), span["start"], span.get("end")


def _is_parameter(v: dict) -> bool:
    var = v.get("variability")
    return isinstance(var, dict) and "Parameter" in var


def _restore_propagated_bindings(flat: dict) -> None:
    """Put back the reference a modifier's value was propagated through (rumoca 0.10.2).

    ``extends Example(joint(n_exp = 1.5))`` where the joint declares ``parameter Real n_exp``
    and ``NormalForce normalForce(final n_exp = n_exp)``: rumoca binds ``joint.n_exp = 1.5``
    and also ``joint.normalForce.n_exp = 1.5`` -- the modifier's value copied into the inner
    binding instead of the reference ``joint.n_exp``.  The default is right, but the FMU's
    parameter ``joint.n_exp`` then changes nothing when set (the inner one became a constant):
    a silently wrong result.  Such a copy is recognised by its span: the binding of both
    variables is the one expression at the modifier's place in the file.  The variable the
    modifier names is the shallowest of those sharing the span; the others, parameters inside
    its enclosing component with the same dimensions, are bound to it again.  A span shared by
    no single shallowest variable (``each`` on an array of components, one short class's
    modifier in several instances) is left as it is: those are independent copies."""
    variables = flat.get("variables")
    if not isinstance(variables, dict):
        return
    groups: dict = {}
    for name, v in variables.items():
        if isinstance(v, dict) and v.get("binding_from_modification") and _is_parameter(v):
            key = _binding_span(v.get("binding"))
            if key is not None:
                groups.setdefault(key, []).append(name)

    def depth(name: str) -> int:
        return re.sub(r"\[[^\]]*\]", "", name).count(".")
    for names in groups.values():
        if len(names) < 2:
            continue
        top = min(depth(n) for n in names)
        owners = [n for n in names if depth(n) == top]
        if len(owners) != 1:
            continue
        owner = owners[0]
        scope = owner.rsplit(".", 1)[0] + "." if "." in owner else ""
        span = next(iter(variables[owner]["binding"].values())).get("span")
        for n in names:
            if n == owner or not n.startswith(scope) or \
                    variables[n].get("dims") != variables[owner].get("dims"):
                continue
            variables[n]["binding"] = {"VarRef": {"name": {"name": owner}, "subscripts": [], "span": span}}


def _source_files(m, src: Sources, roots: list) -> dict:
    """rumoca's source ids -> the files they are.  The flat IR names sources by id only; the
    DAE stage carries the table (``source_map.files``: id, path, text).  A stand-alone file was
    handed over under a detached name and library files through a view of links: both are
    mapped back to the files of ``src``."""
    known = {}
    for f in src.map_files:
        try:
            known[Path(f).resolve()] = Path(f)
        except OSError:
            continue
    out = {}
    try:
        table = m.to_dict("dae").get("source_map", {}).get("files", [])
    except Exception:            # no table: the spans are matched against the files instead
        return out
    for entry in table:
        sid, name = entry[0], Path(entry[1])
        if name.parent == _DETACHED:
            out[sid] = src.path
            continue
        try:
            f = known.get(name.resolve()) or _VIEW_FILES.get(name.resolve())
        except OSError:
            f = None
        if f is not None:
            out[sid] = f
    return out


def _read_source(path: Path) -> str:
    """The text of a model file; a file that is not UTF-8 or holds no class is an error."""
    data = path.read_bytes()
    err = _utf8_error(path, data)
    if err is not None:
        raise err
    text = data.decode("utf-8")
    if not _strip_comments(text).strip():
        raise _err("the file is empty: no class definition", ir.Loc(str(path), 1), "syntax")
    return text


def _utf8_error(path: Path, data: bytes = None) -> Optional[ExportError]:
    try:
        data = Path(path).read_bytes() if data is None else data
        data.decode("utf-8")
        return None
    except OSError:
        return None
    except UnicodeDecodeError as e:
        ls = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[ls:e.start].decode("utf-8", errors="replace")) + 1
        return _err(f"not a UTF-8 text file: byte 0x{data[e.start]:02x} cannot be decoded "
                    f"(Modelica files are UTF-8: save the file as UTF-8)", ir.Loc(str(path), line, col), "syntax")


_CLASS_DEF = re.compile(r"(?<![\w.])(?:(?:encapsulated|partial|final|expandable|pure|impure|operator|"
                        r"replaceable|redeclare|inner|outer)\s+)*(model|block|class|connector|record|type|"
                        r"package|function)\s+(\w+)")


def class_names(path: Path, text: Optional[str] = None) -> list[str]:
    """Dotted names of the classes a file defines (with its ``within`` prefix)."""
    try:
        src = _strip_comments(text if text is not None else Path(path).read_text(errors="ignore"))
    except OSError:
        return []
    m = re.search(r"^\s*within\s+([\w.]*)\s*;", src, re.M)
    prefix = (m.group(1) + ".") if m and m.group(1) else ""
    out = []
    for mm in _CLASS_DEF.finditer(src):
        before = src[max(0, mm.start() - 4):mm.start()]
        if re.search(r"\bend\s*$", before) or src[:mm.start()].rstrip().endswith("end"):
            continue
        n = prefix + mm.group(2)
        if n not in out:
            out.append(n)
    return out


def unknown_class_error(model: str, names: list[str], where: str, loc: Optional[ir.Loc]) -> ExportError:
    """``model`` is not one of ``names``: say which names exist, the closest first."""
    last = model.split(".")[-1]
    close_last = set(difflib.get_close_matches(last, [n.split(".")[-1] for n in names], n=5, cutoff=0.6))
    close = sorted((n for n in names if n.split(".")[-1] in close_last),
                   key=lambda n: -difflib.SequenceMatcher(None, model, n).ratio())[:3]
    if close:
        return _err(f"no class named {model} in {where}; did you mean {' or '.join(close)}?", loc, "name")
    listed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return _err(f"no class named {model} in {where} (classes there: {listed or 'none'})", loc, "name")


_LEXEME = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|"|/\*', re.S)


def _spaces(text: str) -> str:
    """``text`` with every character but the line breaks a space (a comment's or a string's
    body, blanked: the lines and columns of what follows stay where they were)."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _strip_comments(src: str) -> str:
    """Blank out comments and string literals (keeping line structure).  One regular expression
    (the whole MSL in 2 s); a text with an unterminated string or comment is done character by
    character (:func:`_strip_comments_slow`)."""
    def blank(m):
        t = m.group(0)
        if t in ('"', "/*"):
            raise ValueError
        if t[0] == '"':
            return '"' + _spaces(t[1:-1]) + '"'
        return _spaces(t)
    try:
        return _LEXEME.sub(blank, src)
    except ValueError:
        return _strip_comments_slow(src)


def _strip_comments_slow(src: str) -> str:
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + re.sub(r"[^\n]", " ", src[i + 1:j - 1]) + '"'); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def _find_identifier(files, ident: str, prefer: Optional[Path] = None):
    """First line using ``ident`` as a word outside comments/strings/declarations."""
    word = ident if "." in ident else ident.split(".")[-1]
    loc = _find_regex(files, r"(?<![\w.])" + re.escape(word) + r"(?!\w)", prefer)
    return ir.Loc(loc.file, loc.line) if loc else None


_CLASS_KW = r"(?:model|block|connector|record|type|class|package|function|operator)"
_DECL_PREFIXES = r"(?:(?:parameter|constant|discrete|input|output|flow|stream|inner|outer|final|replaceable|redeclare|each)\s+)*"


#: keywords that open a section or end a class: never the type of a declaration
_SECTION_KW = frozenset(("equation", "algorithm", "initial", "protected", "public", "end", "annotation",
                         "within", "import", "extends", "external", "constrainedby"))


def _declares(text: str, name: str) -> bool:
    return re.search(r"(?<![\w.])" + _CLASS_KW + r"\s+" + re.escape(name) + r"\b", _strip_comments(text)) is not None


def _missing_class_error(src: Sources, comp: str) -> Optional[ExportError]:
    """When rumoca reports an unresolved reference ``comp.x``, the usual cause is that the
    class of component ``comp`` was not found (a library not on MODELICAPATH, a misspelt class
    name): name that class, not the reference.  None when the type resolves or cannot be told."""
    tname = loc = None
    for f in [src.path] + [x for x in src.files if x != src.path]:
        try:
            txt = _strip_comments(f.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        mm = next((x for x in re.finditer(
            r"(?m)^\s*" + _DECL_PREFIXES + r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?:\[[^\]]*\]\s*)?"
            + re.escape(comp) + r"\s*[\[(\"=;]", txt)
            if x.group(1) not in _SECTION_KW), None)   # 'equation\n  y = ...' declares nothing
        if mm:
            tname, loc = mm.group(1), ir.Loc(str(f), txt[:mm.start(1)].count("\n") + 1)
            break
    if tname is None or tname in ("Real", "Integer", "Boolean", "String"):
        return None
    parts = tname.split(".")
    top = parts[0]
    if any(_declares(f.read_text(encoding="utf-8", errors="replace"), top) for f in src.files if f.is_file()):
        return None                      # a class of the compiled sources themselves
    libs = {}
    for folder in modelica_path():
        for name, p in _top_packages(folder).items():
            libs.setdefault(name, p)
    if src.in_package:
        libs.setdefault(src.root.name, src.root)
    if top not in libs:
        where = os.pathsep.join(str(p) for p in modelica_path()) or "empty"
        return _err(f"unknown class {tname} (type of component '{comp}'): no library {top} in the "
                    f"MODELICAPATH folders ({where}); add the folder that holds {top}/ to MODELICAPATH "
                    f"or pass it with --library", loc, "name")
    cur = libs[top]
    for seg in parts[1:]:
        if not cur.is_dir():
            return None                  # a class inside a file: not told apart here
        if (cur / seg / "package.mo").is_file():
            cur = cur / seg
        elif (cur / f"{seg}.mo").is_file():
            cur = cur / f"{seg}.mo"
        elif (cur / "package.mo").is_file() and _declares((cur / "package.mo").read_text(encoding="utf-8", errors="replace"), seg):
            return None
        else:
            err = unknown_class_error(tname, package_classes(libs[top]), f"{top} ({libs[top]})", loc)
            return _err(f"{err.message} (type of component '{comp}')", loc, "name")
    return None


def _translate_rumoca_error(exc, src: Sources, model: str, text: str) -> ExportError:
    path, files = src.path, src.files
    text_ = str(exc).replace(str(_DETACHED / path.name), str(path))
    text_ = text_.split("\nRelated failures")[0]
    first = text_.splitlines()[0] if text_ else repr(exc)
    # a file rumoca could not read
    m = re.search(r"Failed to read (.+?): stream did not contain valid UTF-8", text_)
    if m:
        err = _utf8_error(Path(m.group(1)))
        if err is not None:
            return err
    m = re.search(r"reference to non-constant variable '([^']+)' from a lexically nested class", text_)
    if m:
        err = _nested_extends_error(src, model, m.group(1), re.sub(r"\s+", " ", m.group(0)))
        if err is not None:
            return err
    # parse errors: diagnostics carry "[file:line:col]".  Only rumoca's errors count: its linter's
    # warnings (a lower-case package name such as MSL's Blocks.Continuous.base, MLS 2.3.1 allows
    # it) are no reason for a failure.  A model that reached a phase after parsing failed there:
    # its sources parsed, and the message says what went wrong (the validation of every file of
    # a library as large as the MSL would take half a minute)
    try:
        rumoca = _rumoca()
        later = re.match(r"(?:instantiate|typecheck|flatten|todae) failed: ", text_)
        for f in ([] if later else [path] + [x for x in files if x != path]):
            for d in rumoca.validate(str(f)):
                if getattr(d, "level", "error") != "error":
                    continue
                s = str(d)
                m = re.search(r"\[([^\]\s]+\.mo):(\d+):(\d+)\]", s)
                msg = getattr(d, "message", "") or s
                msg = re.sub(r"\s+", " ", msg).strip()
                mm = re.search(r"×\s*([^\n]+)", s)
                if mm:
                    msg = mm.group(1).strip()
                if m:
                    return _err(msg, ir.Loc(m.group(1), int(m.group(2))), "syntax")
                if d.file and d.line:
                    return _err(msg, ir.Loc(d.file, d.line), "syntax")
    except Exception:  # pragma: no cover - validate itself failing is not fatal
        pass
    m = re.search(r"unresolved (?:component )?reference:? '([^']+)'", text_) or \
        re.search(r"unresolved (?:type|class|function)[^']*'([^']+)'", text_)
    if m:
        missing = _missing_class_error(src, m.group(1).split(".")[0].split("[")[0])
        if missing is not None:
            return missing
        loc = _find_identifier(files, m.group(1), prefer=path)
        hint = ""
        top = m.group(1).split(".")[0]
        if not src.in_package and (path.parent / f"{top}.mo").exists() and path.parent / f"{top}.mo" != path:
            hint = (f"; {top}.mo beside the file is not loaded: a file outside a package is compiled "
                    f"alone (put {top} into this file, or both files into a package)")
        return _err(f"unknown name '{m.group(1)}' ({first}){hint}", loc, "name")
    if re.search(r"unbalanced model: (\d+) equations, (\d+) unknowns", text_):
        return _diagnose_unbalanced(src, model, text, text_)
    m = re.search(r"function output '([^']+)' is not definitely assigned in function '([^']+)'", text_)
    if m:
        out, fn = m.group(1), m.group(2)
        return _err(f"output '{out}' of function '{fn}' is not assigned on every path through its "
                    f"algorithm", _find_declaration(files, fn, out, prefer=path) or _class_loc(src, model), "structure")
    # typecheck and other phases: "<phase> failed: M failed in <Phase>: <message> [file:line:col]"
    m = re.search(r"\[([^\]\s]+\.mo):(\d+):(\d+)\]", text_)
    if m:
        msg = text_[:m.start()].strip()
        msg = re.sub(r"^\w+ failed: \S+ failed in \w+: ", "", msg)
        msg = re.sub(r"\s+", " ", msg).replace("`", "")
        kind = "type" if ("mismatch" in msg or "type" in msg) else "compile"
        loc = ir.Loc(m.group(1), int(m.group(2)), int(m.group(3)))
        if msg.startswith("invalid unit for "):
            kind = "unit"        # rumoca's own check of a declaration's unit (see _check_units)
            lit = _string_at(loc)
            if lit is not None:
                msg = f"invalid unit '{lit}'" + msg[len("invalid unit"):]
        return _err(msg, loc, kind)
    m = re.search(r"cyclic dependency in parameter binding for '([^']+)'", text_)
    if m:
        loc = _find_regex(files, r"(?<![\w.])" + re.escape(m.group(1).split(".")[-1]) + r"\s*(?:\([^;]*\))?\s*=",
                          prefer=path)
        return _err(f"parameter '{m.group(1)}' is defined in terms of itself (cyclic bindings)",
                    loc or _class_loc(src, model), "structure")
    m = re.search(r"reinit\(\) can only be applied to state variables: (\S+) is not a state", text_)
    if m:
        loc = _find_regex(files, r"reinit\s*\(\s*" + re.escape(m.group(1).split(".")[-1]) + r"(?!\w)", prefer=path)
        return _err(f"reinit({m.group(1)}, ...): '{m.group(1)}' is not a state (reinit() applies to "
                    f"variables under der())", loc or _class_loc(src, model), "structure")
    if "der(...) must have exactly one resolved variable-reference operand" in text_:
        loc = _find_regex(files, r"(?<![\w.])der\s*\((?!\s*[A-Za-z_][\w.]*\s*(?:\[[^\]]*\])?\s*\))", prefer=path)
        return _err("der() of an expression is not supported by the front end (rumoca): write der() of "
                    "single variables", loc or _class_loc(src, model), "unsupported")
    if "resolve/parse failed" in text_ or "does not exist" in text_ or "not found" in text_:
        names = class_names(path, text)
        if model not in names:
            return unknown_class_error(model, names, path.name, _class_loc(src, model))
    m = re.search(r"invalid call of function `([^`]+)`: (.+?)(?:\n|$)", text_)
    if m:
        fn = m.group(1).split(".")[-1]
        calls = [loc for loc in [_find_regex(files, r"(?<![\w.])" + re.escape(fn) + r"\s*\(", prefer=path)] if loc]
        return _err(f"call of function '{m.group(1)}': {m.group(2).strip()}",
                    calls[0] if calls else _class_loc(src, model), "type")
    m = re.search(r"unsupported runtime operator `(\w+)`: (.+?)(?:\n|$)", text_)
    if m:   # a refusal of an operator's arguments (sample(0), sample(0, -1)): at its call
        loc = _find_regex(files, r"(?<![\w.])" + re.escape(m.group(1)) + r"\s*\(", prefer=path)
        return _err(f"{m.group(1)}(): {m.group(2).strip()}", loc or _class_loc(src, model), "unsupported")
    todae = _translate_todae(text_, src, model)
    if todae is not None:
        return todae
    # other refusals of ToDae have no place either (expression shape mismatch, ...)
    m = re.search(r"failed in ToDae: (.+)", text_)
    if m and not re.search(r"\[[^\]\s]+\.mo:\d+", text_):
        key = m.group(1).splitlines()[0].strip()
        return _diagnose_spanless(src, model, text, _SHAPE if _SHAPE in key else key)
    if "type mismatch" in text_:
        return _err(first, _class_loc(src, model), "type")
    m = re.search(r"(?:line|Line) (\d+)", text_)
    loc = ir.Loc(str(path), int(m.group(1))) if m else _class_loc(src, model)
    kind = "unsupported" if "unsupported" in text_ else "compile"
    return _err(re.sub(r"\s+", " ", text_).strip(), loc, kind)


def _translate_panic(exc, src: Sources, model: str) -> ExportError:
    """rumoca panics (instead of reporting) on ``der()`` of something that is not a
    continuous-time variable; the panic message carries the byte span of the ``der(...)``."""
    msg = str(exc)
    m = re.search(r"der\(\.\.\.\) must name a coordinate classified as a continuous state.*?"
                  r"start: BytePos\((\d+)\), end: BytePos\((\d+)\)", msg, re.S)
    if m:
        start, end = int(m.group(1)), int(m.group(2))
        for f in [src.path] + [x for x in src.map_files if x != src.path]:
            try:
                data = Path(f).read_bytes()
            except OSError:
                continue
            mm = re.match(rb"der\s*\(\s*([A-Za-z_][\w.]*)", data[start:end])
            if not mm:
                continue
            name = mm.group(1).decode()
            line = data.count(b"\n", 0, start) + 1
            col = len(data[data.rfind(b"\n", 0, start) + 1:start].decode(errors="replace")) + 1
            what = _declared_as(f, name)
            why = {"parameter": "a parameter", "constant": "a constant",
                   "discrete": "a discrete-time variable"}.get(what, "not a continuous-time Real variable")
            fix = (f"; to make it a state declare it as a variable, e.g. Real {name}(start = ..., fixed = true)"
                   if what in ("parameter", "constant") else "")
            return _err(f"der({name}): '{name}' is {why}, der() needs a continuous-time Real variable{fix}",
                        ir.Loc(str(f), line, col), "structure")
    first = msg.splitlines()[0] if msg else repr(exc)
    return _err(f"rumoca failed on this model (internal error: {first})", _class_loc(src, model), "compile")


def _declared_as(f: Path, name: str) -> str:
    """'parameter' / 'constant' / 'discrete' / '' from the declaration of ``name`` in ``f``."""
    try:
        src = _strip_comments(Path(f).read_text(errors="ignore"))
    except OSError:
        return ""
    last = re.escape(name.split(".")[-1])
    for stmt in src.split(";"):
        if re.search(r"(?<![\w.])" + last + r"\s*(?:\[[^\]]*\])?\s*(?:\(|=|\"|$)", stmt.strip()) or \
                re.search(r"\s" + last + r"\s*(?:\(|=|\"|$)", stmt):
            for w in ("parameter", "constant", "discrete"):
                if re.search(r"(?<![\w.])" + w + r"(?!\w)", stmt):
                    return w
    return ""


def _find_regex(files, pattern: str, prefer: Optional[Path] = None):
    """First match of ``pattern`` outside comments and strings: ``file:line:col``."""
    pat = re.compile(pattern)
    order = ([prefer] if prefer else []) + [f for f in files if f != prefer]
    for f in order:
        try:
            src = _strip_comments(Path(f).read_text(errors="ignore"))
        except OSError:
            continue
        for k, line in enumerate(src.splitlines(), 1):
            m = pat.search(line)
            if m:
                return ir.Loc(str(f), k, m.start() + 1)
    return None


def _find_in_class(files, cls: str, pattern: str, prefer: Optional[Path] = None):
    """``file:line:col`` of the first match of ``pattern`` inside class ``cls`` (its head line
    if nothing inside matches; None if the class is not found)."""
    order = ([prefer] if prefer else []) + [f for f in files if f != prefer]
    short = cls.split(".")[-1]
    head = re.compile(r"(?<![\w.])" + _CLASS_KW + r"\s+" + re.escape(short) + r"\b")
    pat = re.compile(pattern)
    for f in order:
        try:
            lines = _strip_comments(Path(f).read_text(errors="ignore")).splitlines()
        except OSError:
            continue
        start = None
        for k, line in enumerate(lines, 1):
            if start is None:
                if head.search(line):
                    start = k
                else:
                    continue
            m = pat.search(line)
            if m:
                return ir.Loc(str(f), k, m.start() + 1)
            if re.search(r"\bend\s+" + re.escape(short) + r"\s*;", line):
                break
        if start is not None:
            return ir.Loc(str(f), start)
    return None


def _class_loc(src: Sources, model: str, prefer: Optional[Path] = None) -> ir.Loc:
    """Where class ``model`` is declared: the last resort of an error rumoca gives no place for
    (an error always names a line)."""
    prefer = prefer or (model_file_for(src.root, model) if src.in_package else None) or src.path
    files = [prefer] + [f for f in src.files if f != prefer]
    loc = _find_in_class(files, model, r"(?!x)x", prefer=prefer)
    return loc or ir.Loc(str(src.path), 1)


# ----------------------------------------------------------------------------- classes of the sources
# rumoca 0.10.2's ToDae stage refuses some constructs of function bodies and parameter bindings,
# mostly without naming a place (and in a library as large as the MSL, where each compilation
# takes half a minute, the place cannot be searched for by compiling variants): the construct is
# found in the text of the classes the model uses instead.

_CLASS_TOKEN = re.compile(
    r"(?<![\w.])(?:(?:encapsulated|partial|final|expandable|pure|impure|replaceable|redeclare|inner|outer)\s+)*"
    r"(?:operator\s+)?(model|block|class|connector|record|package|function|type|operator)\s+(?:extends\s+)?"
    r"(?!(?:model|block|class|connector|record|package|function|type|operator)\b)([A-Za-z_]\w*)|(?<![\w.])end\s+([A-Za-z_]\w*)\s*;")
_NOT_CLASS_END = {"if", "for", "while", "when"}


@dataclass(repr=False)
class _ClassSpan:
    """A class definition of a source file: ``code[start:end]`` (comments and strings blanked)."""
    name: str               # qualified (the file's ``within`` prefix and the enclosing classes)
    kind: str
    file: Path
    start: int
    end: int
    code: str               # the whole file's blanked text

    @property
    def short(self) -> str:
        return self.name.split(".")[-1]

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name} {self.loc(self.start)}>"

    def loc(self, pos: int) -> ir.Loc:
        line = self.code.count("\n", 0, pos) + 1
        return ir.Loc(str(self.file), line, pos - (self.code.rfind("\n", 0, pos) + 1) + 1)


def _class_spans(f: Path, code: Optional[str] = None) -> list:
    """The (long) class definitions of file ``f``, outermost first; short class definitions
    (``type T = Real(...)``) have no body and are left out."""
    if code is None:
        code = _strip_comments(_read(f))
    m = re.match(r"\s*within\s+([\w.]*)\s*;", code)
    prefix = [m.group(1)] if m and m.group(1) else []
    out, stack = [], []
    for m in _CLASS_TOKEN.finditer(code):
        if m.group(3):
            name = m.group(3)
            if name in _NOT_CLASS_END:
                continue
            names = [s.short for s in stack]
            if name in names:
                while stack:
                    s = stack.pop()
                    s.end = m.end()
                    if s.short == name:
                        break
            continue
        if re.match(r"\s*(?:\"[^\"]*\"\s*)?=", code[m.end():m.end() + 400]):
            continue                    # a short class definition
        span = _ClassSpan(".".join(prefix + [s.short for s in stack] + [m.group(2)]), m.group(1), Path(f),
                          m.start(), len(code), code)
        out.append(span)
        stack.append(span)
    return out


_STMT_TOKEN = re.compile(
    r"(?<![\w.])(end\s+(?:if|for|while|when)|elseif|else|if|for|while|when|then|loop|return|break|"
    r"algorithm|annotation|protected|public|external|equation)(?!\w)|[;()\[\]{}]")


def _function_statements(span: _ClassSpan) -> list:
    """The control-flow statements of a function's algorithm: (keyword, position, the keywords of
    the blocks around it, innermost last) for every ``if``/``for``/``while``/``when`` head and every
    ``return`` and ``break``.  Expressions (an if-expression, a reduction's ``for``) are skipped."""
    code = span.code
    m = re.compile(r"(?<![\w.])algorithm(?!\w)").search(code, span.start, span.end)
    if not m:
        return []
    out, stack = [], []
    boundary, depth, in_expr, in_head = m.end(), 0, False, False
    for t in _STMT_TOKEN.finditer(code, m.end(), span.end):
        tok = t.group(0)
        if tok in "([{":
            if depth == 0 and not in_head:
                in_expr = True          # a statement that starts with a name: an assignment or a call
            depth += 1
            continue
        if tok in ")]}":
            depth = max(depth - 1, 0)
            continue
        if depth:
            continue
        if tok == ";":
            in_expr, in_head, boundary = False, False, t.end()
            continue
        if in_expr:
            continue                    # an expression's if, then, else, for are no statements
        kw = re.sub(r"\s+", " ", tok)
        if in_head:                     # the condition or range of an if, elseif, for, while
            if kw in ("then", "loop"):
                in_head, boundary = False, t.end()
            continue
        if code[boundary:t.start()].strip():
            in_expr = True
            continue
        if kw in ("else", "algorithm", "then", "loop"):
            boundary = t.end()
        elif kw == "elseif":
            in_head = True
        elif kw in ("if", "for", "while", "when"):
            out.append((kw, t.start(), tuple(k for k, _ in stack)))
            stack.append((kw, t.start()))
            in_head = True
        elif kw.startswith("end "):
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == kw[4:]:
                    del stack[k:]
                    break
        elif kw in ("return", "break"):
            out.append((kw, t.start(), tuple(k for k, _ in stack)))
        else:                           # annotation, protected, external, ...: the algorithm ended
            break
    return out


class _ClassIndex:
    """The long class definitions of a build's source files, found by short name (read once)."""

    def __init__(self, files) -> None:
        self.files = [Path(f) for f in files]
        self._spans: dict = {}
        self._by_short = None
        self._reached: dict = {}

    def spans(self, f: Path) -> list:
        if f not in self._spans:
            self._spans[f] = _class_spans(f)
        return self._spans[f]

    def by_short(self) -> dict:
        if self._by_short is None:
            self._by_short = {}
            for f in self.files:
                for s in self.spans(f):
                    self._by_short.setdefault(s.short, []).append(s)
        return self._by_short

    def own_text(self, s: _ClassSpan) -> str:
        """The text of class ``s`` without the classes defined inside it (defining a class is
        no use of it)."""
        parts, pos = [], s.start
        for t in self.spans(s.file):
            if s.start < t.start and t.end <= s.end and t.start >= pos:
                parts.append(s.code[pos:t.start])
                pos = t.end
        parts.append(s.code[pos:s.end])
        return " ".join(parts)

    def find(self, name: str) -> list:
        """The classes named ``name`` (qualified, or its last parts)."""
        return [s for s in self.by_short().get(name.split(".")[-1], [])
                if s.name == name or s.name.endswith("." + name)]

    def reached(self, model: str, limit: int = 20000) -> dict:
        """The classes ``model`` may use: qualified name -> the order in which a breadth-first walk
        over the names written in the classes' texts reaches them (the model 0).  Names are matched
        by their last part, so this is a superset; a package is not walked into (naming it is no
        use of its classes)."""
        if model in self._reached:
            return self._reached[model]
        order = self._reached[model] = {}
        queue = list(self.find(model))[:1]
        for s in queue:
            order[s.name] = 0
        k = 0
        by_short = self.by_short()
        while k < len(queue) and len(order) < limit:
            s = queue[k]
            k += 1
            if s.kind == "package" and k > 1:
                continue
            for ident in sorted(set(re.findall(r"(?<![\w])[A-Za-z_]\w*", self.own_text(s)))):
                for t in by_short.get(ident, ()):
                    if t.name not in order:
                        order[t.name] = len(order)
                        queue.append(t)
        return order


def _reached_first(index: _ClassIndex, model: str, found: list) -> Optional[tuple]:
    """Of ``found`` (tuples whose first element is a _ClassSpan), the one whose class the model
    reaches first (:meth:`_ClassIndex.reached`); the only one if the walk reaches none of them."""
    if not found:
        return None
    order = index.reached(model)
    reached = [x for x in found if x[0].name in order]
    if reached:
        return min(reached, key=lambda x: order[x[0].name])
    return found[0] if len(found) == 1 else None


def _functions_with(index: _ClassIndex, keyword: str, test, kinds=("function",)) -> list:
    """(function span, statement) of every function (class of ``kinds``) of the sources with a
    control-flow statement ``(keyword, position, enclosing blocks)`` of its algorithm for which
    ``test`` holds (files without the keyword are not read further)."""
    out = []
    for f in index.files:
        try:
            if keyword not in f.read_text(encoding="utf-8", errors="replace"):
                continue
        except OSError:
            continue
        for s in index.spans(f):
            if s.kind not in kinds:
                continue
            for st in _function_statements(s):
                if st[0] == keyword and test(st):
                    out.append((s, st))
                    break
    return out


#: rumoca's refusals of a function's statements: (its message, the keyword to find inside the
#: function, the message when found there, the message otherwise)
_FUNCTION_REFUSALS = (
    (r"`function statement`: `([^`]+)` contains a statement", "while",
     "while-loop in function '{fn}': the Modelica front end (rumoca {v}) does not support while-loops other "
     "than one counting a variable up by one to a bound (while i < n and ... loop ... i := i + 1; end while); "
     "write a for-loop over a range",
     "function '{fn}' has a statement the Modelica front end (rumoca {v}) does not support"),
    (r"`function loop reduction`: `([^`]+)` does not have a proved", "break",
     "break in a for-loop of function '{fn}': the Modelica front end (rumoca {v}) needs for-loops that run "
     "over their whole range; use an if-statement inside the loop instead",
     "a for-loop of function '{fn}' is not supported by the Modelica front end (rumoca {v}): it needs a "
     "loop over a range run to its end"),
)


def _rumoca_words(text_: str) -> str:
    """rumoca's own words after "failed in ToDae:", on one line."""
    m = re.search(r"failed in ToDae: (.+)", text_)
    return re.sub(r"\s+", " ", (m.group(1) if m else text_).splitlines()[0]).replace("`", "").strip()


_BLOCK_NAMES = {"if": "an if-statement", "for": "a for-loop", "while": "a while-loop", "when": "a when-statement"}


def _translate_todae_functions(text_: str, src: Sources, model: str, index: _ClassIndex) -> Optional[ExportError]:
    """rumoca 0.10.2's ToDae refusals of constructs in functions and parameter bindings that its
    message does not place (or places by a name only): the construct is looked for in the classes
    the model uses (:class:`_ClassIndex`), without compiling anything again (a compilation of an
    MSL model takes half a minute)."""
    v = RUMOCA_VERSION
    said = _rumoca_words(text_)
    if "`function return`" in text_ and "nested return" in text_:
        hit = _reached_first(index, model, _functions_with(
            index, "return", lambda st: any(k in ("for", "while") for k in st[2])))
        if hit:
            span, st = hit
            loop = next(k for k in reversed(st[2]) if k in ("for", "while"))
            return _err(f"return inside {_BLOCK_NAMES[loop]} of function '{span.name}': the Modelica front end "
                        f"(rumoca {v}) does not support a return statement inside a loop (rumoca: {said})",
                        span.loc(st[1]), "unsupported")
    if "missing function value definition" in text_:
        hit = _reached_first(index, model, _functions_with(index, "while", lambda st: bool(st[2])))
        if hit:
            span, st = hit
            return _err(f"while-loop inside {_BLOCK_NAMES[st[2][-1]]} of function '{span.name}': the Modelica "
                        f"front end (rumoca {v}) refuses this function of the model (rumoca: {said})",
                        span.loc(st[1]), "unsupported")
    if "event tensor loop must cover every target axis" in text_:
        hit = _reached_first(index, model, _functions_with(index, "for", lambda st: "when" in st[2],
                                                           kinds=("model", "block", "class")))
        if hit:
            span, st = hit
            return _err(f"for-loop inside a when-statement of the algorithm of {span.name}: the Modelica front end "
                        f"(rumoca {v}) refuses it (rumoca: {said})", span.loc(st[1]), "unsupported")
    m = re.search(r"`parameter binding`: `([^`]+)` cannot be evaluated: (.+)", text_)
    if m:
        name, why = m.group(1), re.sub(r"\s+", " ", m.group(2).splitlines()[0]).strip()
        err = _binding_error(index, model, name, why, said)
        if err is not None:
            return err
    m = re.search(r"`function shape proof`: `([^`]+)`: (.+)", text_)
    if m:
        arg, why = m.group(1), re.sub(r"\s+", " ", m.group(2).splitlines()[0]).strip()
        order = index.reached(model)
        decl = re.compile(r"(?<![\w.])input\s[^;]*?(?<![\w.])" + re.escape(arg) + r"(?!\w)")
        owners = sorted((s for same in index.by_short().values() for s in same
                         if s.kind == "function" and s.name in order and decl.search(s.code, s.start, s.end)),
                        key=lambda s: order[s.name])
        if owners:
            fn = owners[0]
            twins = sorted((s for s in index.by_short().get(fn.short, ()) if s.kind == "function"
                            and s.name != fn.name and s.name in order), key=lambda s: order[s.name])
            if twins:
                where = ", ".join(f"{s.name} ({s.loc(s.start)})" for s in [fn] + twins[:2])
                return _err(f"functions of one name '{fn.short}' in different classes ({where}): the Modelica "
                            f"front end (rumoca {v}) takes one for the other (rumoca: {said})",
                            fn.loc(fn.start), "unsupported")
            return _err(f"a call of function '{fn.name}' does not give input '{arg}' its declared size: {why} "
                        f"(rumoca {v}: {said})", fn.loc(fn.start), "type")
    return None


def _declaration_in_reached(index: _ClassIndex, model: str, name: str) -> Optional[tuple]:
    """Where the parameter or constant ``name`` (``gear.tau_bf_a_0``) is declared with a binding:
    (class span, position of its name, its binding's text) in the first class the model reaches
    that declares its last part so."""
    last = name.split(".")[-1].split("[")[0]
    pat = re.compile(r"(?<![\w.])" + re.escape(last) + r"\s*(?:\[[^\]]*\])?\s*(?:\([^;]*?\))?\s*=(?!=)")
    order = index.reached(model)
    spans = sorted((s for same in index.by_short().values() for s in same if s.name in order),
                   key=lambda s: order[s.name])
    for s in spans:
        for m in pat.finditer(s.code, s.start, s.end):
            head = s.code[max(s.code.rfind(";", s.start, m.start()) + 1, s.start):m.start()]
            if re.search(r"(?<![\w.])(?:parameter|constant)(?!\w)", head):
                end = _depth0(s.code, m.end(), s.end, lambda c, i: c[i] in ';"' or c.startswith("annotation", i))
                return s, m.start(), s.code[m.end():end if end >= 0 else s.end]
    return None


def _outputs(span: _ClassSpan) -> int:
    """The number of outputs a function declares."""
    n = 0
    for m in re.finditer(r"(?<![\w.])output\s", span.code[span.start:span.end]):
        decl = span.code[span.start + m.end():span.code.find(";", span.start + m.end())]
        n += 1 + len(re.findall(r",", re.sub(r"\([^()]*\)|\[[^\]]*\]|\{[^}]*\}", "", decl)))
    return n


def _binding_error(index: _ClassIndex, model: str, name: str, why: str, said: str) -> Optional[ExportError]:
    """rumoca cannot evaluate the binding of parameter ``name``: the usual cause (measured) is a
    parameter it uses, bound to a call of a function with several outputs (MSL's LossyGear:
    eta_mf1_0 = Modelica.Math.Vectors.interpolate(...), which also returns the index iNew); rumoca
    0.10.2 evaluates that call as an array instead of its first output."""
    v = RUMOCA_VERSION
    found = _declaration_in_reached(index, model, name)
    if found is None:
        return None
    span, pos, binding = found
    for ident in dict.fromkeys([name.split(".")[-1]] + re.findall(r"(?<![\w.])[A-Za-z_]\w*(?![\w.(])", binding)):
        used = _declaration_in_reached(index, model, ident) if ident != name.split(".")[-1] else found
        if used is None:
            continue
        call = re.match(r"\s*(?:abs\s*\(\s*)?([A-Za-z_][\w.]*)\s*\(", used[2])
        if not call:
            continue
        fns = [f for f in index.find(call.group(1)) if f.kind == "function"]
        fn = _reached_first(index, model, [(f,) for f in fns])
        if fn and _outputs(fn[0]) > 1:
            return _err(f"parameter '{ident}' is bound to a call of '{fn[0].name}', a function with {_outputs(fn[0])} "
                        f"outputs: the Modelica front end (rumoca {v}) takes the call for an array, not its first "
                        f"output, and cannot evaluate the binding of '{name}' (rumoca: {said})",
                        used[0].loc(used[1]), "unsupported")
    return _err(f"the binding of parameter '{name}' cannot be evaluated by the Modelica front end (rumoca {v}): "
                f"{why}", span.loc(pos), "unsupported")


def _nested_extends_error(src: Sources, model: str, name: str, said: str) -> Optional[ExportError]:
    """rumoca 0.10.2 refuses a class that extends a class defined inside itself (MLS 7.1 allows
    it; MSL's Translational.Components.MassWithStopAndFriction extends its own
    PartialFrictionWithStop): the inherited variables, used in the nested class's equations, are
    taken for references from a nested class to the enclosing one's (MLS 5.3.1)."""
    index = _ClassIndex(src.map_files or [src.path] + list(src.files))
    order = index.reached(model)
    for s in sorted((s for same in index.by_short().values() for s in same if s.name in order),
                    key=lambda s: order[s.name]):
        inner = {t.short: t for t in index.spans(s.file) if s.start < t.start and t.end <= s.end}
        own = index.own_text(s)
        for m in re.finditer(r"(?<![\w.])extends\s+([A-Za-z_]\w*)\s*[;(]", s.code[s.start:s.end]):
            t = inner.get(m.group(1))
            if t is None or not re.search(r"(?<![\w.])extends\s+" + re.escape(m.group(1)) + r"\b", own) or \
                    not re.search(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", t.code[t.start:t.end]):
                continue
            return _err(f"{s.name} extends {t.short}, a class defined inside it (MLS 7.1): the Modelica front end "
                        f"(rumoca {RUMOCA_VERSION}) takes the variables {t.short} declares or inherits ('{name}', "
                        f"...) for references from a nested class to {s.short}'s and refuses them (rumoca: {said})",
                        s.loc(s.start + m.start()), "unsupported")
    return None


def _refused_statement(span: _ClassSpan, keyword: str) -> tuple:
    """The statement ``keyword`` of function ``span`` that rumoca refuses: of while-loops, the
    first that does not count a variable up by one (rumoca 0.10.2 accepts those, measured: MSL's
    Vectors.interpolate has one of each, and its count-down search is the one refused)."""
    sts = [st for st in _function_statements(span) if st[0] == keyword]
    if keyword == "while":
        for st in sts:
            end = re.compile(r"(?<![\w.])end\s+while\b").search(span.code, st[1], span.end)
            body = span.code[st[1]:end.start() if end else span.end]
            if not re.search(r"(?<![\w.])([A-Za-z_]\w*)\s*:=\s*\1\s*\+\s*1\s*;", body):
                return st
    return sts[0]


def _translate_todae(text_: str, src: Sources, model: str) -> Optional[ExportError]:
    """rumoca 0.10.2's ToDae stage refuses some valid Modelica without a location; the ones met
    are named here in the user's terms, at the construct's line."""
    files = [src.path] + [f for f in src.files if f != src.path]
    index = _ClassIndex(src.map_files or files)
    named = _translate_todae_functions(text_, src, model, index)
    if named is not None:
        return named
    for pattern, keyword, found, other in _FUNCTION_REFUSALS:
        m = re.search(pattern, text_)
        if m:
            fn = m.group(1)
            # the function the model uses (MSL has several of one name: Vectors.interpolate, ...)
            hit = _reached_first(index, model, [(s, _refused_statement(s, keyword)) for s in index.find(fn)
                                                if any(st[0] == keyword for st in _function_statements(s))])
            loc = hit[0].loc(hit[1][1]) if hit else \
                _find_in_class(files, fn, r"(?<![\w.])" + keyword + r"\b", prefer=src.path)
            if loc is not None and loc.col:
                return _err(found.format(fn=fn, v=RUMOCA_VERSION), loc, "unsupported")
            return _err(other.format(fn=fn, v=RUMOCA_VERSION), loc or _class_loc(src, model), "unsupported")
    m = re.search(r"`when assignment`: `([^`]+)` is not a discrete coordinate", text_)
    if m:
        name = m.group(1)
        base = name.split("[")[0].split(".")[-1]
        loc = (_find_regex(files, r"(?<![\w.])" + re.escape(base) + r"\s*\[[^\]]*\]\s*=(?!=)", prefer=src.path)
               or _find_regex(files, r"(?<![\w.])when\b", prefer=src.path) or _class_loc(src, model))
        what = "an array element" if "[" in name else "a variable the front end does not take as discrete"
        return _err(f"when-equation assigning {what} ('{name}'): the Modelica front end (rumoca "
                    f"{RUMOCA_VERSION}) supports when-equations on scalar discrete variables only; "
                    f"declare a scalar per element", loc, "unsupported")
    if "`array comprehension domain`" in text_:
        loops = set()            # the indices of for-equations/statements (a line's first word)
        for f in files[:1]:
            try:
                loops = set(re.findall(r"(?m)^\s*for\s+(\w+)\s+in\b", _strip_comments(f.read_text(errors="ignore"))))
            except OSError:
                pass
        alt = "|".join(re.escape(n) for n in sorted(loops)) or r"(?!x)x"
        loc = (_find_regex(files, r"[({][^;]*?(?<![\w.])for\s+\w+\s+in\s+[^;]*?(?<![\w.])(?:" + alt + r")(?!\w)",
                           prefer=src.path)
               or _find_regex(files, r"[({][^;]*?(?<![\w.])for\s+\w+\s+in\b", prefer=src.path)
               or _class_loc(src, model))
        return _err(f"an array comprehension or reduction whose range is not a constant Integer at "
                    f"translation time (e.g. sum(x[j] for j in 1:i) inside a for-equation): the "
                    f"Modelica front end (rumoca {RUMOCA_VERSION}) does not support it; write the range "
                    f"with literals or parameters", loc, "unsupported")
    if "domain binder" in text_ and "escaped its structured owner" in text_:
        # a for-equation whose body indexes with an operator rumoca cannot follow (mod, rem)
        loc = _find_regex(files, r"\[[^\]]*(?<![\w.])(?:mod|rem)\s*\(", prefer=src.path)
        what = "mod() or rem()" if loc else "an expression of the loop index"
        return _err(f"a subscript computed with {what} inside a for-equation is not supported by "
                    f"the Modelica front end (rumoca {RUMOCA_VERSION}); write the wrap-around "
                    f"element as an equation of its own, or use an if-expression of the index",
                    loc or _find_regex(files, r"(?<![\w.])for\b", prefer=src.path)
                    or _class_loc(src, model), "unsupported")
    return None


# ----------------------------------------------------------------------------- rewrites for rumoca
# rumoca 0.10.2's DAE stage (ToDae) refuses some valid function bodies and parameter bindings of the
# MSL, and its Python API has no earlier stage to take the model from.  A model it refuses so is
# compiled once more, from a view of the sources in which the functions and bindings it uses are
# written in equivalent forms rumoca accepts (:func:`_rewrites`).  The rewritten files live in a
# temporary folder only (never in the repository or the library); every other file of the view is a
# link to the original.  A rewritten file keeps the line count of the original and every rewritten
# statement stays on or after its own line, so that rumoca's spans, read against the rewritten text
# (:attr:`SourceMap.texts`), give the lines of the original file.

#: prefix of the names the rewrites introduce (locals, wrapper functions)
_RW = "wearcosim_"


class _NoRewrite(Exception):
    """A construct the rewrites do not handle: the function is left as it is."""


_RW_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class _Node:
    """A statement of an algorithm section (offsets into the function's file)."""
    kind: str               # simple, if, for, while, when, return, break
    start: int
    end: int                # after the ';'
    heads: list = dataclasses.field(default_factory=list)     # (start, end) of conditions / the for-head
    bodies: list = dataclasses.field(default_factory=list)    # lists of _Node; an if's else last
    has_else: bool = False
    kws: list = dataclasses.field(default_factory=list)       # offsets of the keywords: if/elseif.../else/end


def _kw0(code: str, pos: int, end: int, kw: str) -> int:
    """Offset of keyword ``kw`` outside brackets in ``code[pos:end]`` (-1: none)."""
    n = len(kw)
    return _depth0(code, pos, end, lambda c, i: c.startswith(kw, i) and not (c[i - 1].isalnum() or c[i - 1] in "_.")
                   and not (i + n < len(c) and (c[i + n].isalnum() or c[i + n] == "_")))


def _end_kw(code: str, pos: int):
    m = re.compile(r"end\s+(if|for|while|when)(?!\w)\s*;").match(code, pos)
    return m


def _parse_block(code: str, pos: int, end: int, nested: bool):
    """The statements of ``code[pos:end]`` up to a block's end: (nodes, position, what ended it:
    'elseif', 'else', 'end', the end keyword of the algorithm section, or None at ``end``)."""
    nodes = []
    ws = re.compile(r"\s*")
    while True:
        pos = ws.match(code, pos).end()
        if pos >= end:
            if nested:
                raise _NoRewrite("block not closed")
            return nodes, pos, None
        m = _RW_WORD.match(code, pos)
        word = m.group(0) if m else ""
        if word in ("elseif", "else") or (word == "end" and _end_kw(code, pos)):
            if not nested:
                raise _NoRewrite(f"unexpected {word}")
            return nodes, pos, word
        if word in ("end", "annotation", "protected", "public", "external", "equation", "algorithm", "initial"):
            if nested:
                raise _NoRewrite(f"{word} inside a block")
            return nodes, pos, word
        if word in ("return", "break"):
            semi = ws.match(code, m.end()).end()
            if code[semi:semi + 1] != ";":
                raise _NoRewrite(word)
            nodes.append(_Node(word, pos, semi + 1))
            pos = semi + 1
            continue
        if word in ("if", "when"):
            node = _Node(word, pos, pos, kws=[pos])
            p = m.end()
            while True:
                t = _kw0(code, p, end, "then")
                if t < 0:
                    raise _NoRewrite("no then")
                node.heads.append((p, t))
                body, p, stop = _parse_block(code, t + 4, end, True)
                node.bodies.append(body)
                if stop == "elseif":
                    node.kws.append(p)
                    p += len("elseif")
                    continue
                if stop == "else" and word == "if":
                    node.kws.append(p)
                    body, p, stop = _parse_block(code, p + 4, end, True)
                    node.bodies.append(body)
                    node.has_else = True
                if stop != "end":
                    raise _NoRewrite("if not ended")
                e = _end_kw(code, p)
                if not e or e.group(1) != word:
                    raise _NoRewrite("if not ended")
                node.kws.append(p)
                node.end = e.end()
                break
            nodes.append(node)
            pos = node.end
            continue
        if word in ("for", "while"):
            node = _Node(word, pos, pos, kws=[pos])
            t = _kw0(code, m.end(), end, "loop")
            if t < 0:
                raise _NoRewrite("no loop")
            node.heads.append((m.end(), t))
            body, p, stop = _parse_block(code, t + 4, end, True)
            e = _end_kw(code, p)
            if stop != "end" or not e or e.group(1) != word:
                raise _NoRewrite("loop not ended")
            node.bodies.append(body)
            node.kws.append(p)
            node.end = e.end()
            nodes.append(node)
            pos = node.end
            continue
        semi = _depth0(code, pos, end, lambda c, i: c[i] == ";")
        if semi < 0:
            raise _NoRewrite("statement without ;")
        nodes.append(_Node("simple", pos, semi + 1))
        pos = semi + 1


def _contains(nodes, kinds, into_loops=True) -> bool:
    for n in nodes:
        if n.kind in kinds:
            return True
        if n.kind in ("for", "while") and not into_loops:
            continue
        if any(_contains(b, kinds, into_loops) for b in n.bodies):
            return True
    return False


class _Renderer:
    """Writes statements back (``text``: the file with comments blanked, strings kept), with
    ``return`` and ``break`` inside loops replaced by flags (:meth:`block`).  Every statement and
    keyword is preceded by as many line breaks as before it in the original (one space if none):
    an unchanged statement keeps its line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.flags: list = []       # Boolean locals introduced
        self.counter = 0

    def src(self, a: int, b: int) -> str:
        return self.text[a:b].strip()

    def sep(self, a: int, b: int) -> str:
        return "\n" * self.text.count("\n", a, b) or " "

    def flag(self, what: str) -> str:
        self.counter += 1
        name = f"{_RW}{what}{self.counter}"
        self.flags.append(name)
        return name

    @staticmethod
    def unless(guard, text: str) -> str:
        return f"if not ({' or '.join(sorted(guard))}) then {text} end if;" if guard else text

    def block(self, nodes, ret: Optional[str], brk: Optional[str], prev: int, guard=frozenset()):
        """(text, flags the statements may set); ``prev``: the end of what precedes the block;
        ``guard``: flags of which none may be set for the statements to run.  Once a statement may
        have set a flag (a return, or a break of the innermost loop, happened), the statements
        after it run only while the flag is not set: the ones a return or break skips are skipped."""
        out, sets = [], set()
        for n in nodes:
            t, s = self.stmt(n, ret, brk, frozenset(guard | sets))
            out.append(self.sep(prev, n.start) + t)
            prev = n.end
            sets |= s
        return "".join(out), sets

    def stmt(self, n: _Node, ret, brk, guard):
        """A statement, run only while no flag of ``guard`` is set: a simple statement or an
        if-statement inside ``if not (flags) then ... end if``; a for-loop runs its range and the
        guard is put on its body's statements (rumoca refuses a for-loop inside an if-statement
        inside a for-loop: 'requires assignments or nested conditionals in every checked branch')."""
        if n.kind == "simple":
            return self.unless(guard, self.src(n.start, n.end)), set()
        if n.kind == "return":
            if ret is None:
                return self.unless(guard, "return;"), set()
            return self.unless(guard, f"{ret} := true;"), {ret}
        if n.kind == "break":
            if brk is None:
                return self.unless(guard, "break;"), set()
            return self.unless(guard, f"{brk} := true;"), {brk}
        if n.kind in ("if", "when"):
            loops = any(_contains(b, ("for", "while")) for b in n.bodies)
            inner = guard if loops else frozenset()     # a loop inside: the guard goes inside
            parts, sets, last = [], set(), n.start
            kw = n.kind
            for k, (a, b) in enumerate(n.heads):
                body, s = self.block(n.bodies[k], ret, brk, b + 4, inner)
                sets |= s
                parts.append(("" if k == 0 else self.sep(last, n.kws[k]) + "else") +    # elseif, elsewhen
                             f"{kw} {self.src(a, b)} then{body}")
                last = n.bodies[k][-1].end if n.bodies[k] else b + 4
            if n.has_else:
                body, s = self.block(n.bodies[-1], ret, brk, n.kws[-2] + 4, inner)
                sets |= s
                parts.append(self.sep(last, n.kws[-2]) + f"else{body}")
                last = n.bodies[-1][-1].end if n.bodies[-1] else n.kws[-2] + 4
            text = "".join(parts) + self.sep(last, n.kws[-1]) + f"end {kw};"
            return (text if loops else self.unless(guard, text)), sets
        head = self.src(*n.heads[0])
        loop_kw = n.heads[0][1] + 4
        last = n.bodies[0][-1].end if n.bodies[0] else loop_kw
        tail = self.sep(last, n.kws[-1]) + f"end {n.kind};"
        if n.kind == "for":
            # a loop whose body may return or break: its later iterations run without effect (the
            # range of a for-loop is evaluated once, before the first iteration: MLS 11.2.2)
            inner_brk = self.flag("break") if _contains(n.bodies[0], ("break",), into_loops=False) else None
            sets = ({ret} if ret and _contains(n.bodies[0], ("return",)) else set()) | ({inner_brk} - {None})
            body, _ = self.block(n.bodies[0], ret, inner_brk, loop_kw, frozenset(guard | sets))
            pre = f"{inner_brk} := false; " if inner_brk else ""
            return f"{pre}for {head} loop{body}{tail}", sets - {inner_brk}
        if n.kind == "while":
            if _contains(n.bodies[0], ("return", "break")) or guard:
                raise _NoRewrite("return or break inside a while-loop, or a while-loop after one")
            body, _ = self.block(n.bodies[0], ret, None, loop_kw)
            return f"while {head} loop{body}{tail}", set()
        raise _NoRewrite(n.kind)


def _strip_comments_only(src: str) -> str:
    """``src`` with its comments blanked and its string literals kept."""
    def blank(m):
        t = m.group(0)
        if t in ('"', "/*"):
            raise ValueError
        return t if t[0] == '"' else re.sub(r"[^\n]", " ", t)
    try:
        return _LEXEME.sub(blank, src)
    except ValueError:
        return src


_SCALAR_DEFAULTS = {"Real": "0", "Integer": "0", "Boolean": "false"}


def _declarations(code: str, start: int, end: int) -> list:
    """The element declarations of a function's text ``code[start:end]`` (its header left out):
    (text without the section keywords, start offset)."""
    out, pos = [], start
    head = re.compile(r"\s*(?:(?:pure|impure|encapsulated|partial|replaceable|redeclare|final)\s+)*function\s+"
                      r"[A-Za-z_]\w*\s*(?:\"[^\"]*\"(?:\s*\+\s*\"[^\"]*\")*\s*)?").match(code, start)
    if head:
        pos = head.end()
    while pos < end:
        semi = _depth0(code, pos, end, lambda c, i: c[i] == ";")
        if semi < 0:
            break
        m = re.compile(r"\s*(?:(?:protected|public)(?!\w)\s*)*").match(code, pos)
        out.append((code[m.end():semi], m.end()))
        pos = semi + 1
    return out


def _split0(text: str, sep: str = ",") -> list:
    parts, p = [], 0
    while True:
        c = _depth0(text, p, len(text), lambda s, i: s[i] == sep)
        parts.append(text[p:c if c >= 0 else len(text)])
        if c < 0:
            return parts
        p = c + 1


def _unbound_scalars(code: str, start: int, alg: int) -> list:
    """(name, value) of the outputs and protected variables of a function (its text
    ``code[start:alg]``, up to its algorithm keyword) that are scalars of a built-in type or of an
    SI unit type (Real) without a binding; the value is 0 or false."""
    out = []
    for decl, _ in _declarations(code, start, alg):
        mm = re.match(r"(output\s+)?(?:(?:discrete|final)\s+)*([A-Za-z_][\w.]*)\s+(.*)$", decl.strip(), re.S)
        if not mm:
            continue
        typ = mm.group(2)
        base = typ if typ in _SCALAR_DEFAULTS else \
            "Real" if re.fullmatch(r"(?:Modelica\.Units\.)?SI\.\w+|Modelica\.SIunits\.\w+", typ) else None
        if base is None:
            continue
        for part in _split0(mm.group(3)):
            pm = re.match(r"\s*([A-Za-z_]\w*)\s*(\[)?", part)
            if not pm or pm.group(2):
                continue
            tail = re.sub(r"^\s*\((?:[^()]|\([^()]*\))*\)", "", part[pm.end():])    # a modification
            if _depth0(tail, 0, len(tail), lambda s, i: s[i] == "=") >= 0:
                continue
            out.append((pm.group(1), _SCALAR_DEFAULTS[base]))
    return out


def _rewrite_function(span: "_ClassSpan", text: str):
    """The rewritten text of function ``span`` (``text``: its file, comments blanked, strings kept)
    as (start, end, replacement) of the file, or None when nothing needs rewriting or a construct
    is not handled.

    1. ``return`` inside a loop (MSL's BooleanVectors.firstTrueIndex; rumoca: 'nested return') and
       ``break`` inside a for-loop (rumoca: 'does not have a proved finite arithmetic-series
       form'): the return sets a Boolean flag ``wearcosim_return1`` (false at the start of the
       algorithm), a break a flag of its loop; every statement a return or break would skip --
       the rest of its block, of each enclosing block and the remaining iterations of the
       enclosing for-loops -- is guarded by ``if not flag then ... end if`` (MLS 11.2.4 and
       11.2.5: ``return`` ends the function, ``break`` the innermost loop; a for-loop's range is
       evaluated once, so running the later iterations without effect is the same).
    2. A function with a while-loop inside an if-statement (MSL's Vectors.interpolate; rumoca:
       'missing function value definition', or 'reads i, which only some branches of the
       conditional define'): every
       scalar output and protected variable without a binding is given a value (0, false) at the
       start of the algorithm.  Such a variable's value before its first assignment is undefined
       (MLS 12.4.4), so no valid function reads it there: the assignment changes no result.
    """
    code = span.code
    m = re.compile(r"(?<![\w.])algorithm(?!\w)").search(code, span.start, span.end)
    if not m:
        return None
    nodes, stop_pos, stop = _parse_block(code, m.end(), span.end, False)
    r = _Renderer(text)
    exits = any(n.kind in ("for", "while") and any(_contains(b, ("return", "break")) for b in n.bodies)
                for n in _walk(nodes))
    has_while = any(n.kind in ("if", "when") and any(_contains(b, ("while",)) for b in n.bodies)
                    for n in _walk(nodes))
    if not exits and not has_while:
        return None
    ret = r.flag("return") if exits and _contains(nodes, ("return",)) else None
    body, _ = r.block(nodes, ret, None, m.end())
    pre = [f"{ret} := false;"] if ret else []
    pre += [f"{name} := {val};" for name, val in _unbound_scalars(code, span.start, m.start())]
    decl = "".join(f"protected Boolean {f}; " for f in r.flags)
    last = nodes[-1].end if nodes else m.end()
    new = decl + "algorithm " + " ".join(pre) + body + r.sep(last, stop_pos)
    return m.start(), stop_pos, new


def _walk(nodes):
    for n in nodes:
        yield n
        for b in n.bodies:
            yield from _walk(b)


def _first_output_wrapper(fn: "_ClassSpan", text: str) -> Optional[tuple]:
    """(name, definition) of a function of one output, the first of function ``fn`` (several
    outputs), placed beside ``fn`` so that the names of its input declarations resolve as in ``fn``.
    rumoca 0.10.2 evaluates a call of a function of several outputs in a parameter's binding as an
    array (MSL's LossyGear: eta_mf1_0 = Vectors.interpolate(...), 'expected Boolean, got Array');
    MLS 12.4.3: the value of such a call in an expression is its first output, which is what
    ``(y, ) := f(u)`` assigns (MLS 11.2.1.1)."""
    code = fn.code
    alg = re.compile(r"(?<![\w.])(?:algorithm|external)(?!\w)").search(code, fn.start, fn.end)
    if not alg:
        return None
    inputs, names, first, n_out = [], [], None, 0
    for decl, pos in _declarations(code, fn.start, alg.start()):
        d = decl.strip()
        kind = re.match(r"(input|output)\s+(?:(?:discrete|final)\s+)*([\w.]+)", d)
        if not kind:
            continue
        if kind.group(2) not in ("Real", "Integer", "Boolean", "String") and \
                not re.fullmatch(r"(?:Modelica\.Units\.)?SI\.\w+|Modelica\.SIunits\.\w+", kind.group(2)):
            return None         # only inputs and outputs of the built-in types (no records, functions)
        parts = _split0(re.sub(r"^\S+\s+\S+", "", d))      # the names after the type
        if kind.group(1) == "input":
            inputs.append(text[pos:pos + len(decl)].strip())
            for part in parts:
                pm = re.match(r"\s*([A-Za-z_]\w*)", part)
                if not pm:
                    return None
                names.append(pm.group(1))
        else:
            if first is None:
                if len(parts) != 1:
                    return None
                first = (text[pos:pos + len(decl)].strip(), re.match(r"\s*([A-Za-z_]\w*)", parts[0]).group(1))
            n_out += len(parts)
    if first is None or n_out < 2:
        return None
    name = f"{fn.short}_{_RW}first"
    decl_out = re.sub(r"=[^\"]*?(?=\"|$)", "", first[0]) if "=" in first[0] else first[0]
    body = (f" function {name} " + " ".join(f"{d};" for d in inputs) + f" {decl_out}; algorithm "
            f"({first[1]}{',' * (n_out - 1)}) := {fn.short}({', '.join(names)}); end {name};")
    return name, body


def _binding_calls(index: "_ClassIndex", model: str) -> list:
    """(file, position after the function's name, function span) of every call of a function of
    several outputs in the binding of a parameter or constant declared by a class the model uses."""
    out, order = [], index.reached(model)
    call = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")
    for same in index.by_short().values():
        for s in same:
            if s.name not in order or s.kind == "function":
                continue
            nested = [(t.start, t.end) for t in index.spans(s.file) if s.start < t.start and t.end <= s.end]
            code = s.code
            for m in call.finditer(code, s.start, s.end):
                if any(a <= m.start() < b for a, b in nested):
                    continue
                name = m.group(1)
                if "." in name:         # a qualified name, as the MSL writes its calls
                    fns = [f for f in index.by_short().get(name.split(".")[-1], ())
                           if f.kind == "function" and (f.name == name or f.name.endswith("." + name))]
                else:                   # a function of an enclosing class (never a built-in: min, max)
                    scopes = {s.name.rsplit(".", k)[0] + "." + name for k in range(1, s.name.count(".") + 1)}
                    scopes.add(s.name + "." + name)
                    fns = [f for f in index.by_short().get(name, ()) if f.kind == "function" and f.name in scopes]
                if not fns:
                    continue
                head = code[max(code.rfind(";", s.start, m.start()), s.start) + 1:m.start()]
                if not re.search(r"(?<![\w.])(?:parameter|constant)(?!\w)", head) or \
                        _depth0(head, 0, len(head), lambda c, i: c[i] == "=" and c[i + 1:i + 2] != "=") < 0:
                    continue
                fn = _reached_first(index, model, [(f,) for f in fns])
                if fn and _outputs(fn[0]) > 1:
                    out.append((s.file, m.start(1) + len(m.group(1)), fn[0]))
    return out


def _fit_lines(new: str, old: str) -> str:
    """``new`` written on as many lines as ``old`` has (the lines after it keep their numbers)."""
    n = old.count("\n")
    lines = new.split("\n")
    if len(lines) - 1 > n:
        lines = lines[:n] + [" ".join(lines[n:])]
    return "\n".join(lines) + "\n" * (n - (len(lines) - 1))


def _rewrites(index: "_ClassIndex", model: str) -> dict:
    """The rewritten texts (file -> text) of the files whose functions or bindings the model uses
    and rumoca 0.10.2's DAE stage refuses (:func:`_rewrite_function`, :func:`_first_output_wrapper`)."""
    order = index.reached(model)
    texts: dict = {}
    edits: dict = {}

    def text_of(f):
        if f not in texts:
            texts[f] = _strip_comments_only(_read(f))
        return texts[f]

    for same in index.by_short().values():
        for s in same:
            if s.kind != "function" or s.name not in order or \
                    not re.search(r"(?<![\w.])(?:while|return|break)(?!\w)", s.code[s.start:s.end]):
                continue
            try:
                r = _rewrite_function(s, text_of(s.file))
            except _NoRewrite:
                continue
            if r:
                edits.setdefault(s.file, []).append(r)
    # 4. class-local functions of one name in different classes (MSL's protected 'position' of
    #    Rotational.Sources.Move, Translational.Sources.Move, AngleToTorqueAdaptor.Move_w):
    #    rumoca 0.10.2 keys them by their short name and calls one for the other ('function shape
    #    proof: q_qd: axis 1 requires extent 2 but the call site proves 3').  All but the first
    #    the model reaches are renamed <name>_wearcosim<k>, with every use of the name in the
    #    class that defines them (MLS 5.3.1: a name used in that class is looked up there first,
    #    so the uses of the function there are the uses of that name not qualified by a dot).
    for short, same in index.by_short().items():
        local = []
        for fn in same:
            if fn.kind != "function" or fn.name not in order:
                continue
            owner = [t for t in index.spans(fn.file) if t.start < fn.start and fn.end <= t.end]
            if owner and owner[-1].kind not in ("package",):
                local.append((order[fn.name], fn, owner[-1]))
        if len(local) < 2:
            continue
        for k, (_, fn, owner) in enumerate(sorted(local, key=lambda x: x[0])[1:], 2):
            # the name's uses in the owner and its nested classes (the derivative annotation of a
            # sibling function), except inside another definition of that name (its own scope)
            inner = [(t.start, t.end) for t in index.spans(owner.file)
                     if owner.start < t.start and t.end <= owner.end and t is not fn and t.short == short]
            for m in re.finditer(r"(?<![\w.])" + re.escape(short) + r"(?!\w)", owner.code[owner.start:owner.end]):
                pos = owner.start + m.end()
                if any(a <= pos < b for a, b in inner):
                    continue        # a nested class other than the function: its own scope
                edits.setdefault(owner.file, []).append((pos, pos, f"_{_RW}{k}"))
    # 5. a class extending an encapsulated class defined inside it (MSL's
    #    Translational.Components.MassWithStopAndFriction extends its PartialFrictionWithStop:
    #    Translational Friction, HeatLosses; rumoca: 'reference to non-constant variable ... from a
    #    lexically nested class'): the nested class is moved beside its owner as
    #    <Owner>_<Class>_wearcosim and extended by that name.  Lookup inside an encapsulated class
    #    does not go past it (MLS 5.3.2), so the class means the same wherever it is defined.
    for same in index.by_short().values():
        for owner in same:
            if owner.name not in order or owner.kind == "package":
                continue
            nested = {t.short: t for t in index.spans(owner.file) if owner.start < t.start and t.end <= owner.end}
            own = index.own_text(owner)
            for m in re.finditer(r"(?<![\w.])extends\s+([A-Za-z_]\w*)\s*(?=[;(])", owner.code[owner.start:owner.end]):
                t = nested.get(m.group(1))
                if t is None or not re.search(r"(?<![\w.])extends\s+" + re.escape(t.short) + r"\b", own) or \
                        not re.match(r"\s*encapsulated\b", owner.code[t.start:t.end]):
                    continue
                new = f"{owner.short}_{t.short}_{_RW[:-1]}"
                body = _read(owner.file)[t.start:t.end]
                body = re.sub(r"^(\s*encapsulated\s+(?:partial\s+)?\w+\s+)" + re.escape(t.short) + r"\b",
                              lambda x: x.group(1) + new, body)
                body = re.sub(r"(end\s+)" + re.escape(t.short) + r"(\s*;)$", lambda x: x.group(1) + new + x.group(2), body)
                body = " ".join(_strip_comments_only(body).split())       # one line
                pkg_name, pkg_file = owner.name.rsplit(".", 1)[0] if "." in owner.name else "", None
                outer = [u for u in index.spans(owner.file) if u.start < owner.start and owner.end <= u.end]
                if outer:                                   # beside the owner in its file
                    edits.setdefault(owner.file, []).append((owner.end, owner.end, " " + body))
                elif pkg_name and (owner.file.parent / "package.mo").is_file():   # in its package's file
                    pkg_file = owner.file.parent / "package.mo"
                    pcode = _strip_comments(_read(pkg_file))
                    # first in the package (after its name and description; its annotation is last)
                    e = re.compile(r"(?<![\w.])package\s+" + re.escape(pkg_name.split(".")[-1]) +
                                   r"\s*(?:\"[^\"]*\"(?:\s*\+\s*\"[^\"]*\")*)?").search(pcode)
                    if not e:
                        continue
                    edits.setdefault(pkg_file, []).append((e.end(), e.end(), " " + body))
                elif not pkg_name:                          # a top-level class: a top-level class beside it
                    edits.setdefault(owner.file, []).append((owner.end, owner.end, " " + body))
                else:
                    continue
                a = owner.start + m.start(1)
                edits.setdefault(owner.file, []).append((a, a + len(t.short), (pkg_name + "." if pkg_name else "") + new))
                edits[owner.file].append((t.start, t.end, ""))   # the nested definition goes
    wrapped = {}
    for f, pos, fn in _binding_calls(index, model):
        if fn.name not in wrapped:
            w = _first_output_wrapper(fn, text_of(fn.file))
            wrapped[fn.name] = w
            if w:
                edits.setdefault(fn.file, []).append((fn.end, fn.end, w[1]))
        if wrapped[fn.name]:
            edits.setdefault(f, []).append((pos, pos, f"_{_RW}first"))
    out = {}
    rumoca = _rumoca()
    for f, es in edits.items():
        t = _read(f)
        for a, b, new in sorted(es, key=lambda e: (e[0], e[1]), reverse=True):
            t = t[:a] + _fit_lines(new, t[a:b]) + t[b:]
        # a rewritten file rumoca's parser refuses (a construct the rewrites misread) stays as it is
        try:
            if any(getattr(d, "level", "error") == "error" for d in rumoca.validate_source(t)):
                continue
        except Exception:
            continue
        out[f] = t
    return out


def _find_declaration(files, cls: str, name: str, prefer: Optional[Path] = None):
    """Line declaring ``name`` inside class ``cls`` (e.g. a function's output)."""
    order = ([prefer] if prefer else []) + [f for f in files if f != prefer]
    head = re.compile(r"(?<![\w.])(?:function|model|block|class|record)\s+" + re.escape(cls.split(".")[-1]) + r"\b")
    decl = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?!\w)")
    for f in order:
        try:
            lines = _strip_comments(Path(f).read_text(errors="ignore")).splitlines()
        except OSError:
            continue
        inside = False
        for k, line in enumerate(lines, 1):
            if not inside and head.search(line):
                inside = True
            if inside:
                if re.search(r"\bend\s+" + re.escape(cls.split(".")[-1]) + r"\s*;", line):
                    break
                if decl.search(line) and re.search(r"\b(output|input|Real|Integer|Boolean)\b", line):
                    return ir.Loc(str(f), k)
    return None


def _diagnose_unbalanced(src: Sources, model: str, text: str, rumoca_msg: str) -> ExportError:
    """rumoca only counts; flatten the model as a partial class (not balance-checked) and let
    our matching name the variables and equations left over, with their lines."""
    fallback = _err(re.sub(r"\s+", " ", rumoca_msg).strip(), _class_loc(src, model), "balance")
    rumoca = _rumoca()
    try:
        flat = _rumoca_flat(src, model, text, partial=True)
    except rumoca.RumocaError as exc:
        # the partial class meets another refusal first: that one, where it is located
        err = _translate_rumoca_error(exc, src, model, text)
        return fallback if err.loc == _class_loc(src, model) else err
    except BaseException as exc:
        if _is_panic(exc):
            return _translate_panic(exc, src, model)
        raise
    from . import causalize as _causalize, dae as _dae
    try:
        _causalize.causalize(_dae.build(_to_ir(flat, src, model)))
    except ExportError as exc:
        return exc
    return fallback


# ----------------------------------------------------------------------------- spanless refusals
#: rumoca 0.10.2's ToDae refusal without a place (measured): the two sides of an equation or a
#: declaration's binding/start/nominal differ in array size, arrays of different sizes are
#: combined, or an Integer variable is given a Real expression
_SHAPE = "expression shape mismatch"

_CLASS_HEAD = re.compile(
    r"\s*(?:(?:partial|encapsulated|final|replaceable|redeclare|inner|outer|expandable|pure|impure|operator)\s+)*"
    r"(?:model|block|class|connector|record|package|function|type)\s+([A-Za-z_]\w*)\b")
_DECL_HEAD = re.compile(
    r"(?:(?:parameter|constant|discrete|input|output|flow|stream|final|inner|outer|replaceable|redeclare)\s+)*"
    r"([A-Za-z_][\w.]*)\s*(\[[^\]]*\])?\s+([A-Za-z_]\w*)\s*(\[[^\]]*\])?")


@dataclass
class _Stmt:
    """A statement of a class's text: ``code[start:end]`` (without its ';' and without the
    section keywords or ``when ... then`` heads before it)."""
    start: int
    end: int
    decl: bool              # in an element section: a declaration, else an equation or statement


def _depth0(code: str, start: int, end: int, want) -> int:
    """Offset of the first character in ``code[start:end]`` outside brackets for which
    ``want(code, i)`` holds, or -1."""
    depth = 0
    for i in range(start, end):
        if depth == 0 and want(code, i):
            return i
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
    return -1


def _statements(text: str) -> list:
    """The declarations and equations (statements) of a Modelica text, in order."""
    code = _strip_comments(text)
    out = []
    pos, n, decl = 0, len(code), True
    while pos < n:
        semi = _depth0(code, pos, n, lambda s, i: s[i] == ";")
        if semi < 0:
            break
        k = pos
        while True:                                   # the heads before the statement
            rest = code[k:semi]
            m = re.match(r"\s*(?:initial\s+)?(?:equation|algorithm)\b", rest)
            if m:
                k, decl = k + m.end(), False
                continue
            m = re.match(r"\s*(?:public|protected)\b", rest)
            if m:
                k, decl = k + m.end(), True
                continue
            m = _CLASS_HEAD.match(rest)
            if m:
                if re.match(r"\s*=", rest[m.end():]):  # a short class definition: not a statement
                    k = semi
                    break
                k, decl = k + m.end(), True
                d = re.match(r'\s*"[^"]*"', code[k:semi])
                k += d.end() if d else 0
                continue
            m = re.match(r"\s*(?:when|elsewhen|elseif|if|while|for)\b", rest)
            if m:
                head = _depth0(code, k + m.end(), semi,
                               lambda s, i: re.match(r"(?<![\w.])(?:then|loop)\b", s[i:i + 5]) is not None
                               and (i == 0 or not (s[i - 1].isalnum() or s[i - 1] in "_.")))
                if head < 0:
                    k = semi
                    break
                k = head + (4 if code.startswith("then", head) else 4)
                continue
            m = re.match(r"\s*else\b", rest)
            if m:
                k += m.end()
                continue
            m = re.match(r"\s*(?:end\b|annotation\b|import\b|extends\b|external\b)", rest)
            if m:
                if re.match(r"\s*end\s+(?!(?:when|for|if|while)\b)\w", rest):
                    decl = True                       # the end of a class: its enclosing class's elements
                k = semi
            break
        s = code[k:semi]
        if s.strip():
            lead = len(s) - len(s.lstrip())
            out.append(_Stmt(k + lead, semi, decl))
        pos = semi + 1
    return out


def _blank(text: str, start: int, end: int) -> str:
    """``text`` with ``text[start:end]`` replaced by spaces (its lines kept)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _decl_parts(code: str, st: _Stmt) -> list:
    """The parts of a declaration that may be blanked: (start, end, what) of each argument of its
    modification (with a comma beside it) and of its binding ``= ...``; the whole tail first."""
    m = _DECL_HEAD.match(code, st.start, st.end)
    if not m:
        return []
    i = m.end()
    parts = [(i, st.end, "")]
    j = i + len(code[i:st.end]) - len(code[i:st.end].lstrip())
    if j < st.end and code[j] == "(":
        close = _depth0(code, j + 1, st.end, lambda s, k: s[k] == ")")
        if close < 0:
            return parts
        args, a = [], j + 1
        while a < close:
            comma = _depth0(code, a, close, lambda s, k: s[k] == ",")
            b = close if comma < 0 else comma
            args.append((a, b))
            a = b + 1
        for x, (a, b) in enumerate(args):
            what = code[a:b].strip()
            if not what:
                continue
            lo, hi = (a, b + 1) if x + 1 < len(args) else ((args[x - 1][1], b) if x else (a, b))
            parts.append((lo, hi, what))
        j = close + 1
    eq = _depth0(code, j, st.end, lambda s, k: s[k] == "=" and s[k + 1:k + 2] != "=")
    if eq >= 0:                         # up to its description string or annotation
        end = _depth0(code, eq, st.end, lambda s, k: s[k] == '"' or re.match(r"annotation\b", s[k:k + 11]) is not None
                      and not (s[k - 1].isalnum() or s[k - 1] == "_"))
        end = st.end if end < 0 else end
        parts.append((eq, end, code[eq:end].strip()))
    return parts


def _shape_probe(src: Sources, model: str):
    """A context giving ``probe(path, code) -> rumoca's error text, '' when the partial class
    of ``model`` compiles with ``path`` holding ``code````; a file of a package is changed in a
    temporary copy of the package made of links (the sources themselves are never touched)."""
    rumoca = _rumoca()

    @contextmanager
    def ctx():
        mirror = None
        try:
            if src.in_package:
                mirror = Path(tempfile.mkdtemp(prefix="wearcosim-probe-"))
                top = mirror / src.root.name
                for f in src.root.rglob("*"):
                    dst = top / f.relative_to(src.root)
                    if f.is_dir():
                        dst.mkdir(parents=True, exist_ok=True)
                    else:
                        dst.parent.mkdir(parents=True, exist_ok=True)
                        dst.symlink_to(f.resolve())
                rel = lambda p: top / Path(p).resolve().relative_to(src.root.resolve())
                msrc = Sources(rel(src.path), True, top, [rel(f) for f in src.files], src.roots, [])
            def probe(path: Path, code: str) -> str:
                s = src
                if mirror is not None:
                    dst = rel(path)
                    dst.unlink()
                    dst.write_text(code, encoding="utf-8")
                    s = msrc
                try:
                    _rumoca_flat(s, model, code, partial=True)
                    return ""
                except rumoca.RumocaError as exc:
                    return str(exc) or "error"
                except BaseException as exc:
                    if _is_panic(exc):
                        return "panic"
                    raise
                finally:
                    if mirror is not None:
                        dst.unlink()
                        dst.symlink_to(Path(path).resolve())
            yield probe
        finally:
            if mirror is not None:
                import shutil
                shutil.rmtree(mirror, ignore_errors=True)
    return ctx()


def _cleared(err: str, key: str = _SHAPE) -> bool:
    """A variant's answer that shows rumoca's refusal ``key`` gone: it compiles, or fails later
    in the same stage (an error of an earlier stage -- a name left unresolved -- proves nothing)."""
    return not err or (err.startswith("todae failed") and key not in err)


#: the longest a search for the place of a span-less error may take (seconds)
_LOCATE_BUDGET = 60.0
#: the largest package searched so (the MSL has 2500 files and a compilation of one of its
#: models takes half a minute: a search would find nothing within the budget)
_LOCATE_MAX_FILES = 300


def _diagnose_spanless(src: Sources, model: str, text: str, key: str = _SHAPE) -> ExportError:
    """rumoca 0.10.2 refuses some models in its ToDae stage without a place (``key``: its
    message, e.g. ``expression shape mismatch``): the statement it is about is found by
    compiling the model (as a partial class: no balance check) with one declaration's
    modifications or one equation blanked out, in the order of the model's file (then of the
    files of its package it refers to); the one whose removal makes the refusal go away is
    reported, in the user's terms (see :func:`_spanless_error`)."""
    import time
    mfile = (model_file_for(src.root, model) or src.path) if src.in_package else src.path
    what = (f"{_SHAPE}: the sizes of two arrays in an equation or declaration do not agree, or an Integer "
            f"variable is given a Real expression" if key == _SHAPE else key)
    fallback = _err(f"{what} (the front end, rumoca {RUMOCA_VERSION}, names no place, and none was found in "
                    f"{Path(mfile).name} or the classes it uses)", _class_loc(src, model),
                    "type" if "mismatch" in key else "unsupported" if "unsupported" in key else "compile")
    if len(src.files) > _LOCATE_MAX_FILES:
        # each probe compiles the whole library again (half a minute for the MSL): not searched
        return _err(f"{what} (the front end, rumoca {RUMOCA_VERSION}, names no place; not searched for in a "
                    f"library of {len(src.files)} files)", _class_loc(src, model),
                    "type" if "mismatch" in key else "unsupported" if "unsupported" in key else "compile")
    t0 = time.monotonic()
    try:
        with _shape_probe(src, model) as probe:
            if key not in probe(mfile, text if Path(mfile) == src.path else _read(Path(mfile))):
                return fallback
            for f in _referenced_files(src, Path(mfile)):
                try:
                    ftext = text if f == src.path else _read_source(f)
                except (OSError, ExportError):
                    continue
                found = _spanless_culprit(f, ftext, probe, key, lambda: time.monotonic() - t0 > _LOCATE_BUDGET)
                if found is not None:
                    return _spanless_error(found, ftext, f, probe, key)
                if time.monotonic() - t0 > _LOCATE_BUDGET:
                    break
    except OSError:                     # no room for the package's temporary copy: rumoca's words
        pass
    return fallback


def _referenced_files(src: Sources, mfile: Path) -> list:
    """``mfile``, then the files of its package named after a class it refers to, and so on."""
    if not src.in_package:
        return [mfile]
    by_stem: dict = {}
    for f in src.files:
        if f.name != "package.mo":
            by_stem.setdefault(f.stem, []).append(Path(f))
    order, k = [mfile], 0
    while k < len(order):
        try:
            names = set(_IDENT.findall(_strip_comments(_read(order[k]))))
        except OSError:
            names = set()
        k += 1
        for n in sorted(names):
            order += [g for g in by_stem.get(n, []) if g not in order]
    return order


def _spanless_culprit(f: Path, ftext: str, probe, key: str, late) -> Optional[_Stmt]:
    """The statement of file ``f`` (text ``ftext``) without which rumoca's refusal ``key`` goes
    away: the first whose removal (or, for an equation whose removal is an error of its own --
    a when-branch left without its variable --, whose right-hand side replaced by ``pre()`` of
    its left-hand side or by the left-hand side itself) lets the model compile; else, for
    several such statements at once, the one whose removal after the earlier ones does.  Only a
    model that compiles counts: another refusal may be caused by the removal itself (der(v)
    removed, a reinit(v, ...) of v is refused)."""
    code = _strip_comments(ftext)
    same = []                           # statements whose removal leaves the refusal: (st, lo, hi)
    for st in _statements(ftext):
        if late():
            return None
        # an equation goes with its ';' (an empty statement is a syntax error), a declaration
        # keeps its name (a variable left undeclared would be an error of an earlier stage)
        lo, hi = (st.start, st.end + 1) if not st.decl else (
            (_decl_parts(code, st) or [(st.end, st.end, "")])[0][0], st.end)
        if lo >= hi:
            continue
        err = probe(f, _blank(ftext, lo, hi))
        if not err:                     # the model compiles without it
            return st
        if key in err:
            same.append((st, lo, hi))
            continue
        m = None if st.decl else re.match(r"\s*(.*?)\s*(?<![:<>=!])=(?!=)", code[st.start:st.end], re.S)
        if m and m.group(1):
            lhs = m.group(1)
            alts = ([f"{lhs} = pre({lhs})"] if re.fullmatch(r"[A-Za-z_][\w.]*(?:\[[^\]]*\])?", lhs) else []) \
                + [f"{lhs} = {lhs}"]
            for alt in alts:
                if not probe(f, ftext[:st.start] + alt + ftext[st.end:]):
                    return st
    acc = ftext                         # several at once: blank them one after the other
    for st, lo, hi in same:
        if late():
            return None
        acc = _blank(acc, lo, hi)
        if not probe(f, acc):
            return st
    return None


def _spanless_error(st: _Stmt, ftext: str, mfile: Path, probe, key: str) -> ExportError:
    """The error of the statement ``st`` found by :func:`_diagnose_spanless`, in the user's
    terms: for a shape mismatch, the modifier or binding of a declaration, or an Integer given a
    Real, when blanking it or wrapping the right-hand side in integer() clears it."""
    code = _strip_comments(ftext)
    line = code.count("\n", 0, st.start) + 1
    col = st.start - (code.rfind("\n", 0, st.start) + 1) + 1
    loc = ir.Loc(str(mfile), line, col)
    said = re.sub(r"\s+", " ", ftext[st.start:st.end]).strip()
    if key != _SHAPE:
        kind = "declaration" if st.decl else "equation"
        return _err(f"the front end (rumoca {RUMOCA_VERSION}) refuses this {kind}: {said} ({key})", loc,
                    "type" if "mismatch" in key else "unsupported" if "unsupported" in key else "compile")
    tail = f" (rumoca: {_SHAPE})"
    if st.decl:
        m = _DECL_HEAD.match(code, st.start, st.end)
        name = m.group(3)
        dims = m.group(4) or m.group(2)
        shape = f"{name}{m.group(4)}" if m.group(4) else (f"{m.group(1)}{dims} {name}" if dims else f"{name}, a scalar")
        parts = _decl_parts(code, st)[1:]
        answers = [probe(mfile, _blank(ftext, lo, hi)) for lo, hi, _ in parts]
        # the part whose removal lets the model compile, else one that leaves another refusal
        for lo, hi, what in [p for p, a in zip(parts, answers) if not a] or \
                [p for p, a in zip(parts, answers) if _cleared(a)]:
            what = re.sub(r"\s+", " ", ftext[lo:hi]).strip().strip(",").strip()
            if what.startswith("="):
                return _err(f"the binding '{what[1:].strip()}' of '{name}' does not have the shape of "
                            f"{shape}{tail}", loc, "type")
            return _err(f"the modifier '{what}' of '{name}' does not have the shape of {shape}{tail}", loc, "type")
        return _err(f"the declaration of '{name}' does not agree with its shape ({shape}): {said}{tail}", loc, "type")
    m = re.match(r"\s*([A-Za-z_]\w*)\s*(:?=)(?!=)", code[st.start:st.end])
    if m:
        decl = _declared_type(code, m.group(1))
        if decl == "Integer":
            rhs = st.start + m.end()
            wrapped = ftext[:rhs] + " integer(" + ftext[rhs:st.end] + ")" + ftext[st.end:]
            if _cleared(probe(mfile, wrapped)):
                return _err(f"'{m.group(1)}' is an Integer but '{ftext[rhs:st.end].strip()}' is a Real "
                            f"expression: an Integer needs an Integer value (e.g. integer(...) of it){tail}",
                            loc, "type")
    return _err(f"the array sizes in this equation do not agree: {said}{tail}", loc, "type")


def _declared_type(code: str, name: str) -> str:
    """The type name of the (first) declaration of ``name`` in ``code``, or ''."""
    for st in _statements(code):
        if st.decl:
            m = _DECL_HEAD.match(code, st.start, st.end)
            if m and m.group(3) == name:
                return m.group(1)
    return ""


def _long_function_definitions(files, name: str) -> list:
    """(file, line) of every long definition ``function <name> ... end <name>;`` in ``files``
    (short definitions ``function name = other`` are not)."""
    raw = re.compile(r"(?<![\w.])function\s+" + re.escape(name) + r"\b")
    out = []
    for f in files:
        text = _read(Path(f))
        if not raw.search(text):
            continue
        code = _strip_comments(text)
        for m in raw.finditer(code):
            if not re.match(r"\s*(?:\"[^\"]*\"\s*)?=", code[m.end():m.end() + 400]):
                out.append((Path(f), code.count("\n", 0, m.start()) + 1))
    return out


# ----------------------------------------------------------------------------- conversion
class _Conv:
    def __init__(self, flat: dict, smap: SourceMap, model_file: Path, where=None):
        self.flat = flat
        self.smap = smap
        self.model_file = model_file
        self._where = where         # () -> the class's Loc, for a node without a span
        self._where_loc = None
        self.eff = {int(k): v for k, v in flat.get("effective_types", {}).items()}
        # enumerations (MLS 4.9.5): their values are the literals' ordinals 1..n, Integers here
        self.enum_types = set(flat.get("enumeration_type_roots") or [])
        self.enum_lits = flat.get("enum_literal_ordinals") or {}
        # records (MLS 12.6): rumoca flattens record variables of the model into their fields
        # ('R.T', 'R.w') and record inputs of functions ('R_T', 'R_w'); record outputs and locals
        # of functions, record equations and a field of a function's record result
        # ('FieldAccess') are flattened here: a function's record output becomes its fields'
        # outputs, and the field 'T' of a call f(x) the call of 'f.T', the same function with
        # that field as its output (see record_field_functions)
        self.record_fields: dict = {}       # record type name -> [(field, type, dims)]
        for name, fn in (flat.get("functions") or {}).items():
            if fn.get("is_constructor"):
                self.record_fields[name] = [(a["name"], _TYPE_NAMES.get(a.get("effective_type", {}).get(
                    "canonical_type", 0), "Real"), tuple(int(d) for d in a.get("effective_type", {}).get(
                        "dimensions", []))) for a in fn.get("inputs", [])]
        for rt in (flat.get("record_types") or {}).values():
            self.record_fields.setdefault(rt.get("name"), [(fd["name"], "Real", tuple(int(d) for d in fd.get("dims") or ()))
                                                           for fd in rt.get("fields", [])])
        self.record_instances = {n: r.get("type_name") for n, r in (flat.get("record_instances") or {}).items()
                                 if not r.get("dims")}
        self.functions = flat.get("functions") or {}
        #: {function name: its long definitions in the sources} (each name's files read once)
        self._long_defs: dict = {}
        self.field_calls: dict = {}         # 'f.T' -> (f, 'T'): the record-field functions called
        self.record_outputs: dict = {}      # function -> (its record output, record type)
        self._fn_records: dict = {}         # the record outputs and locals of the function being read
        # external objects (MLS 12.9.7: a class extending ExternalObject, e.g. MSL's
        # ExternalCombiTimeTable): the variable's value is its constructor's call, which a
        # reference stands for (outside functions); only those whose constructor the exporter
        # evaluates itself (_taken_over) are accepted
        self.objects: dict = {}             # variable -> its constructor call (rumoca's JSON)
        self._in_function = False
        types = flat.get("variable_type_names") or {}
        for name, r in (flat.get("variables") or {}).items():
            ext = (self.functions.get(types.get(name)) or {}).get("external")
            value = r.get("binding") or r.get("start")
            if ext and ext.get("language") != "builtin" and value:
                self.objects[name] = value

    @property
    def where(self) -> ir.Loc:
        if self._where_loc is None:
            self._where_loc = (self._where() if self._where else None) or ir.Loc(str(self.model_file), 1)
        return self._where_loc

    # -- locations
    def first_span(self, node):
        stack = [node]
        while stack:
            o = stack.pop()
            if isinstance(o, dict):
                if "span" in o and isinstance(o["span"], dict) and "source" in o["span"]:
                    return o["span"]
                if "location" in o and isinstance(o["location"], dict) and "source" in o["location"]:
                    return o["location"]
                stack.extend(reversed(list(o.values())))
            elif isinstance(o, list):
                stack.extend(reversed(o))
        return None

    def loc(self, node) -> ir.Loc:
        loc = self.smap.loc(self.first_span(node))
        return loc if loc.line else self.where

    # -- expressions
    def expr(self, e) -> ir.Expr:
        if e is None:
            return None
        (tag, body), = e.items()
        if tag == "Literal":
            (vt, val), = body["value"].items()
            if vt == "Real":
                return ir.Lit(float(val))
            if vt == "Integer":
                return ir.Lit(int(val))
            if vt == "Boolean":
                return ir.Lit(bool(val))
            if vt == "String":
                return ir.Lit(str(val))
            raise _err(f"unsupported literal {vt}", self.loc(e), "unsupported")
        if tag == "VarRef":
            name = body["name"]["name"]
            subs = tuple(self.sub(s) for s in body.get("subscripts", []))
            if name == "time":
                return ir.Ref("time")
            if not subs and name in self.enum_lits:
                return ir.Lit(int(self.enum_lits[name]))
            if not subs and name in self.objects and not self._in_function:
                return self.expr(self.objects[name])
            return ir.Ref(name, subs)
        if tag == "Binary":
            op = _BINOPS.get(body["op"])
            if op is None:
                raise _err(f"unsupported operator {body['op']}", self.loc(e), "unsupported")
            return ir.Bin(op, self.expr(body["lhs"]), self.expr(body["rhs"]))
        if tag == "Unary":
            op = _UNOPS.get(body["op"])
            if op is None:
                raise _err(f"unsupported unary operator {body['op']}", self.loc(e), "unsupported")
            a = self.expr(body["rhs"])
            return a if op == "+" else ir.Un(op, a)
        if tag == "If":
            br = tuple((self.expr(c), self.expr(v)) for c, v in body["branches"])
            return ir.If(br, self.expr(body["else_branch"]))
        if tag == "BuiltinCall":
            fn = body["function"]
            name = _BUILTINS.get(fn)
            if name is None:
                name = fn[:1].lower() + fn[1:]
            return ir.Call(name, tuple(self.expr(a) for a in body["args"]), True)
        if tag == "FunctionCall":
            nm = body["name"]["name"] if isinstance(body["name"], dict) else body["name"]
            if body.get("is_constructor"):
                raise _err(f"record constructor {nm}() is not supported", self.loc(e), "unsupported")
            self.check_same_function(nm, body, e)
            return ir.Call(nm, tuple(self.expr(a) for a in body["args"]), False)
        if tag == "Array":
            kind = {"Array": "array", "Horizontal": "row", "Vertical": "col"}.get(body.get("kind", "Array"), "array")
            return ir.Arr(tuple(self.expr(a) for a in body["elements"]), kind)
        if tag == "Range":
            return ir.Range(self.expr(body["start"]), self.expr(body.get("step")), self.expr(body["end"]))
        if tag == "Index":
            base = self.expr(body["base"])
            subs = tuple(self.sub(x) for x in body.get("subscripts", []))
            if isinstance(base, ir.Ref):
                return ir.Ref(base.name, base.subs + subs)
            return ir.Call("$index", (base,) + subs, True)
        if tag == "ArrayComprehension":
            if body.get("filter"):
                raise _err("array comprehension with a filter is not supported", self.loc(e), "unsupported")
            return ir.Compr(self.expr(body["expr"]),
                            tuple((ix["name"], self.expr(ix["range"])) for ix in body["indices"]))
        if tag == "Tuple":
            return ir.Arr(tuple(self.expr(a) for a in body["elements"]), "tuple")
        if tag == "FieldAccess":
            return self.field_of(body["base"], body["field"], e)
        if tag == "StringConversion":
            # String(x, minimumLength=, leftJustified=, significantDigits=) or String(x, format=)
            # (MLS 3.7.5): the built-in "String" on a value known when the FMU is built
            fmt = body.get("format") or {}
            if "Format" in fmt:
                return ir.Call("String", (self.expr(body["value"]), self.expr(fmt["Format"])), True)
            o = fmt.get("Options") or {}
            opt = [self.expr(o.get(k)) if o.get(k) is not None else ir.Lit(d) for k, d in
                   (("minimum_length", 0), ("left_justified", True), ("significant_digits", 6))]
            return ir.Call("String", (self.expr(body["value"]), *opt), True)
        raise _err(f"unsupported expression '{tag}'", self.loc(e), "unsupported")

    def check_same_function(self, nm: str, call: dict, node) -> None:
        """rumoca 0.10.2 keys the functions local to a class by their short name: two classes'
        functions of one name ('position' of Rotational's and of Translational's Move) are
        one function of the flat model, the one kept being called for both -- silently, when
        their inputs have the same sizes (measured).  A call whose definition (rumoca's def_id)
        is not the function kept under its short name is refused."""
        if "." in nm or nm not in self.functions:
            return
        parts = ((call.get("name") or {}).get("component_ref") or {}).get("parts") or []
        want = parts[-1].get("def_id") if parts else None
        have = self.functions[nm].get("def_id")
        if want is None or have is None or want == have:
            return
        # a replaceable function (MultiBody's 'replaceable function colorMap = ...ColorMaps.jet')
        # is called through its short class definition: another def_id, the same function.  Only
        # two long definitions of the name, in different classes, are two functions
        if nm not in self._long_defs:
            self._long_defs[nm] = _long_function_definitions(self.smap.files, nm)
        if len(self._long_defs[nm]) < 2:
            return
        kept = self.loc(self.functions[nm])
        raise _err(f"a call of function '{nm}', one of two functions of that name in different classes: the "
                   f"Modelica front end (rumoca {RUMOCA_VERSION}) keeps only one of them (the one at {kept}) and "
                   f"would call it here; give the functions different names", self.loc(node), "unsupported")

    # -- records
    def record_type(self, e) -> Optional[str]:
        """The record type of the value of JSON expression ``e``, if it is a whole record: a
        record variable of the model or of the function being read, a call of a function whose
        (first) output is a record, a record constructor, an if-expression of records."""
        if not isinstance(e, dict) or len(e) != 1:
            return None
        (tag, b), = e.items()
        if tag == "VarRef" and not b.get("subscripts"):
            name = b["name"]["name"] if isinstance(b.get("name"), dict) else b.get("name")
            return self._fn_records.get(name) or self.record_instances.get(name)
        if tag == "FunctionCall":
            nm = b["name"]["name"] if isinstance(b.get("name"), dict) else b.get("name")
            if b.get("is_constructor"):
                return nm if nm in self.record_fields else None
            outs = (self.functions.get(nm) or {}).get("outputs") or []
            if outs and outs[0].get("type_class") == "Record":
                return outs[0].get("type_name")
            return None
        if tag == "If":
            return self.record_type(b.get("else_branch"))
        return None

    def fields(self, rtype: str, node) -> list:
        f = self.record_fields.get(rtype)
        if f is None:
            raise _err(f"record {rtype}: its fields are not known to the front end", self.loc(node), "unsupported")
        return f

    def field_of(self, base, path: str, node) -> ir.Expr:
        """The field ``path`` ('T', or 'a.b' of a nested record) of the record value ``base``."""
        (tag, b), = base.items()
        if tag == "FieldAccess":
            return self.field_of(b["base"], b["field"] + "." + path, node)
        if tag == "VarRef":
            ref = self.expr(base)
            if isinstance(ref, ir.Ref) and not ref.subs:
                return ir.Ref(f"{ref.name}.{path}")
        if tag == "FunctionCall":
            nm = b["name"]["name"] if isinstance(b.get("name"), dict) else b.get("name")
            args = b.get("args", [])
            if b.get("is_constructor"):
                first, _, rest = path.partition(".")
                names = [f[0] for f in self.fields(nm, node)]
                if first in names and names.index(first) < len(args):
                    arg = args[names.index(first)]
                    return self.field_of(arg, rest, node) if rest else self.expr(arg)
                default = next((a.get("default") for a in (self.functions.get(nm) or {}).get("inputs", [])
                                if a.get("name") == first), None)
                if default is not None and not rest:
                    return self.expr(default)
                raise _err(f"record constructor {nm}() without a value of field '{first}'", self.loc(node),
                           "unsupported")
            fname = f"{nm}.{path}"
            self.field_calls[fname] = (nm, path)
            return ir.Call(fname, tuple(self.expr(a) for a in args), False)
        if tag == "If":
            return ir.If(tuple((self.expr(c), self.field_of(v, path, node)) for c, v in b["branches"]),
                         self.field_of(b["else_branch"], path, node))
        raise _err(f"unsupported record expression '{tag}' (field '{path}')", self.loc(node), "unsupported")

    def record_residuals(self, res) -> Optional[list]:
        """The equations of the fields of a record equation ``lhs - rhs`` (an equation
        between records is the equations between their fields, MLS 8.3.1); None if ``res`` is none."""
        if not (isinstance(res, dict) and "Binary" in res and res["Binary"].get("op") == "Sub"):
            return None
        lhs, rhs = res["Binary"]["lhs"], res["Binary"]["rhs"]
        rtype = self.record_type(lhs) or self.record_type(rhs)
        if rtype is None:
            return None
        return [ir.Bin("-", self.field_of(lhs, field, res), self.field_of(rhs, field, res))
                for field, _, _ in self.fields(rtype, res)]

    def record_field_functions(self, functions: dict) -> dict:
        """The functions 'f.T' called for the field T of f's record result: f, with the field's
        variable as its only output and its other outputs as locals."""
        out = {}
        for fname, (nm, path) in self.field_calls.items():
            f = functions.get(nm)
            rec = self.record_outputs.get(nm)
            if f is None or rec is None:
                continue
            var = f"{rec[0]}.{path}"
            mine = [v for v in f.outputs if v.name == var]
            if not mine:
                raise _err(f"function {nm} has no record field '{path}' in its output {rec[0]}", f.loc, "unsupported")
            out[fname] = ir.Function(fname, list(f.inputs), [mine[0]],
                                     list(f.locals) + [dataclasses.replace(v, causality="local")
                                                       for v in f.outputs if v.name != var], f.body, f.loc)
        return out

    def sub(self, s):
        if isinstance(s, str):
            if s == "Colon":
                return ir.Colon()
            raise _err(f"unsupported subscript {s}", None, "unsupported")
        (tag, body), = s.items()
        if tag == "Index":
            return ir.Lit(int(body["value"]))
        if tag == "Expr":
            return self.expr(body["expr"])
        if tag == "Colon":
            return ir.Colon()
        raise _err(f"unsupported subscript {tag}", self.loc(s), "unsupported")

    # -- variables
    def var(self, name, r) -> ir.Var:
        eff = self.eff.get(r.get("type_id"), {})
        ctype = eff.get("canonical_type", 0)
        tname = "Integer" if ctype in self.enum_types else _TYPE_NAMES.get(ctype, "Real")
        loc = self.loc(r.get("variability") if isinstance(r.get("variability"), dict) else r)
        var = r["variability"]
        variability = "continuous"
        if isinstance(var, dict):
            (k, _), = var.items()
            variability = {"Parameter": "parameter", "Constant": "constant", "Discrete": "discrete"}.get(k, "continuous")
        if tname == "String" and variability not in ("parameter", "constant"):
            raise _err(f"String variable '{name}' is not supported (String parameters and constants are)", loc,
                       "unsupported")
        if variability == "continuous" and (r.get("is_discrete_type") or tname != "Real"):
            variability = "discrete"
        cau = r["causality"]
        causality = "local"
        if isinstance(cau, dict):
            (k, _), = cau.items()
            causality = {"Input": "input", "Output": "output"}.get(k, "local")
        fixed = r.get("fixed")
        if isinstance(fixed, list):
            fixed = bool(fixed[0]) if fixed else None
        finals = self.flat.get("variable_final_flags", {})
        return ir.Var(
            name=name, type=tname, dims=tuple(int(d) for d in r.get("dims", [])),
            variability=variability, causality=causality,
            start=self.expr(r.get("start")), binding=self.expr(r.get("binding")),
            fixed=fixed, min=self.expr(r.get("min")), max=self.expr(r.get("max")),
            nominal=self.expr(r.get("nominal")), unit=r.get("unit") or "",
            quantity=r.get("quantity") or "", display_unit=r.get("display_unit") or "",
            description=r.get("description") or "", final=bool(finals.get(name, False)),
            protected=bool(r.get("is_protected")), evaluate=bool(r.get("evaluate")),
            keep=bool(r.get("evaluate_refused")), state_select=_state_select(r.get("state_select")), loc=loc)

    # -- statements (function bodies, algorithms)
    def comp_ref(self, comp) -> ir.Ref:
        parts = comp["parts"]
        name = ".".join(p["ident"] for p in parts)
        subs = tuple(self.sub(s) for s in parts[-1].get("subs", []))
        return ir.Ref(name, subs)

    def stmts(self, body):
        out = []
        for s in body or []:
            st = self.stmt(s)
            out.extend(st if isinstance(st, list) else [st])
        return tuple(out)

    def record_assign(self, name: str, rtype: str, value, loc, node):
        """``R := value`` for a record R: the call of a function returning a record of that type
        as its only output assigns all fields at once, ``(R.T, R.w) := f(x)``; any other value
        (a record constructor, a record variable) field by field."""
        fields = self.fields(rtype, node)
        if "FunctionCall" in value and not value["FunctionCall"].get("is_constructor"):
            b = value["FunctionCall"]
            nm = b["name"]["name"] if isinstance(b.get("name"), dict) else b.get("name")
            outs = (self.functions.get(nm) or {}).get("outputs") or []
            if len(outs) == 1 and outs[0].get("type_name") == rtype:
                call = ir.Call(nm, tuple(self.expr(a) for a in b.get("args", [])), False)
                return ir.Assign(ir.Ref("_"), call, loc, tuple(ir.Ref(f"{name}.{f}") for f, _, _ in fields))
        return [ir.Assign(ir.Ref(f"{name}.{f}"), self.field_of(value, f, node), loc) for f, _, _ in fields]

    def stmt(self, s) -> ir.Stmt:
        (tag, b), = s.items()
        loc = self.loc(s)
        if tag == "Assignment":
            target = self.comp_ref(b["comp"])
            rtype = None if target.subs else (self._fn_records.get(target.name) or self.record_instances.get(target.name))
            if rtype is not None:
                return self.record_assign(target.name, rtype, b["value"], loc, s)
            return ir.Assign(target, self.expr(b["value"]), loc)
        if tag == "For":
            idx = b["indices"]
            body = self.stmts(b.get("equations") or b.get("stmts") or b.get("body"))
            for ix in reversed(idx[1:]):
                body = (ir.ForStmt(ix["ident"], self.expr(ix["range"]), body, loc),)
            return ir.ForStmt(idx[0]["ident"], self.expr(idx[0]["range"]), body, loc)
        if tag == "If":
            blocks = tuple((self.expr(cb["cond"]), self.stmts(cb.get("stmts"))) for cb in b["cond_blocks"])
            return ir.IfStmt(blocks, self.stmts(b.get("else_block")), loc)
        if tag == "While":
            # rumoca 0.10.2: {"block": {"cond", "stmts"}} (no while-loop reached the exporter before
            # the rewrites of the library view: rumoca's DAE stage refused them all)
            w = b.get("block") or b
            return ir.WhileStmt(self.expr(w.get("cond")), self.stmts(w.get("stmts") or w.get("body")), loc)
        if tag == "Break":
            return ir.Break(loc)
        if tag == "Return":
            return ir.Return(loc)
        if tag == "FunctionCall":
            # a call statement (MLS 11.2.1.1): ``f(x);`` or ``(a, , c) := f(x);``.  rumoca names the
            # function as in a call expression (``comp.name``, the key of its ``functions``) and
            # gives the outputs as component references, None for one left out
            comp = b.get("comp")
            if isinstance(comp, dict) and comp.get("name"):
                fname = comp["name"]
            elif isinstance(comp, dict):
                ref = comp.get("component_ref") or comp
                fname = ".".join(p["ident"] for p in ref.get("parts", [])) or str(b.get("name"))
            else:
                fname = str(comp or b.get("name"))
            call = ir.Call(fname, tuple(self.expr(a) for a in b.get("args", [])), False)
            targets = tuple(None if not o else self.comp_ref(o) if "parts" in o else self.expr(o)
                            for o in b.get("outputs") or [])
            # a call without outputs is one whose only output, if any, is left out
            return ir.Assign(ir.Ref("_"), call, loc, targets or (None,))
        if tag == "Assert":
            return ir.AssertStmt(self.expr(b["condition"]), _string(b.get("message")), "error", loc)
        if tag == "When" and not self._in_function:
            return ir.WhenStmt(tuple((self.expr(blk["cond"]), self.stmts(blk.get("stmts")))
                                     for blk in b.get("blocks") or []), loc)
        raise _err(f"unsupported statement '{tag}' in an algorithm", loc, "unsupported")

    def function(self, name, f) -> ir.Function:
        loc = self.loc(f)
        ext = f.get("external")
        if ext and ext.get("language") != "builtin" and not _taken_over(ext):
            # refused where it is called: rumoca lists functions a model names without calling
            # them too (MSL's derivative annotations: getDerTimeTableValueNoDer)
            outs = [a["name"] for a in f.get("outputs") or []]
            fail = ir.Call(UNSUPPORTED_EXTERNAL, (ir.Lit(name),), True)
            return ir.Function(name, [ir.Var(name=a["name"], type="Real", dims=(), variability="continuous",
                                             causality="input", loc=loc) for a in f.get("inputs") or []],
                               [ir.Var(name=o, type="Real", dims=(), variability="continuous", causality="output",
                                       loc=loc) for o in outs],
                               [], (ir.Assign(ir.Ref(outs[0] if outs else "_"), fail, loc),), loc)

        def fvar(a, role):
            eff = a.get("effective_type", {})
            dims = []
            for k, d in enumerate(eff.get("dimensions", [])):
                shp = a.get("shape_expr", [])
                dims.append(-1 if (k < len(shp) and shp[k] == {"Colon": {}}) or d == 0 else int(d))
            binding = self.expr(a.get("default"))
            shp = a.get("shape_expr") or []
            if binding is None and role != "input" and -1 in dims and len(shp) == len(dims) and \
                    all(x != {"Colon": {}} and x != "Colon" for x in shp):
                # an output or local sized by the inputs (MSL's relNodePositions: Real xsi[nNodes]):
                # an array of that size from the start (MLS 12.4.4), if its first assignment is to
                # an element (see sized_start)
                t = _TYPE_NAMES.get(eff.get("canonical_type", 0), "Real")
                zero = ir.Lit(0.0 if t == "Real" else False if t == "Boolean" else 0)
                sized[a["name"]] = ir.Call("fill", (zero,) + tuple(ir.Lit(d) if d >= 0 else self.sub(x)
                                                                    for d, x in zip(dims, shp)), True)
            return ir.Var(name=a["name"], type=_TYPE_NAMES.get(eff.get("canonical_type", 0), "Real"),
                          dims=tuple(dims), variability="continuous", causality=role,
                          binding=binding, description=a.get("description") or "",
                          loc=loc)
        def fvars(a, role):
            """The variable ``a``, or the fields of a record variable (``R.T``, ``R.w``)."""
            if a.get("type_class") != "Record":
                return [fvar(a, role)]
            if a.get("effective_type", {}).get("dimensions"):
                raise _err(f"array of records '{a['name']}' in function '{name}'", loc, "unsupported")
            self._fn_records[a["name"]] = a.get("type_name")
            return [ir.Var(name=f"{a['name']}.{fld}", type=t, dims=dims, variability="continuous", causality=role,
                           loc=loc) for fld, t, dims in self.fields(a.get("type_name"), f)]
        self._fn_records = {}
        self._in_function = True
        sized: dict = {}
        outputs = [v for a in f["outputs"] for v in fvars(a, "output")]
        if f["outputs"] and f["outputs"][0].get("type_class") == "Record":
            self.record_outputs[name] = (f["outputs"][0]["name"], f["outputs"][0].get("type_name"))
        inputs = [v for a in f["inputs"] for v in fvars(a, "input")]
        locals_ = [v for a in f.get("locals", []) for v in fvars(a, "local")]
        body = self.stmts(f.get("body"))
        self._fn_records = {}
        if sized:
            first = _first_assignments(body)
            # first assigned by element, or never (an array of size 0, MSL's den2[0, 2] of the
            # filters of even order): sized from the start
            start = {n: b for n, b in sized.items() if first.get(n) is not True}
            outputs = [dataclasses.replace(v, binding=start[v.name]) if v.name in start else v for v in outputs]
            locals_ = [dataclasses.replace(v, binding=start[v.name]) if v.name in start else v for v in locals_]
        if ext:
            # external "builtin" (MSL's Modelica.Math.sin, exp, ...; MLS 12.9): the body is the
            # call of the built-in function of that name on the external call's arguments; the
            # same for the external C functions the exporter evaluates itself (_taken_over)
            out = ext.get("output_name") or (outputs[0].name if len(outputs) == 1 else None)
            if out is None or not ext.get("function_name"):
                raise _err(f"external \"builtin\" function '{name}' without one output", loc, "unsupported")
            call = ir.Call(ext["function_name"], tuple(self.expr(a) for a in ext.get("args", [])), True)
            body = (ir.Assign(ir.Ref(out), call, loc),)
        self._in_function = False
        return ir.Function(name, inputs, outputs, locals_, body, loc)


#: the built-in that stands for the call of an external function the exporter does not evaluate
#: (:meth:`_Conv.function`); evaluating it is the error
UNSUPPORTED_EXTERNAL = "$unsupported_external"


def _taken_over(ext: dict) -> bool:
    """An external C function the exporter evaluates itself (:mod:`wearcosim.export.external`:
    MSL's time tables and String utilities, by the C function's name)."""
    from . import external
    return ext.get("language") == "C" and ext.get("function_name") in external.FUNCTIONS


def _first_assignments(body) -> dict:
    """Variable name -> whether the first statement (in the text's order) that assigns it assigns
    it whole (True) or an element of it (False)."""
    out: dict = {}

    def walk(stmts):
        for st in stmts:
            if isinstance(st, ir.Assign):
                for t in (st.targets or (st.target,)):
                    if t is not None and t.name not in out:
                        out[t.name] = not t.subs
            elif isinstance(st, (ir.IfStmt, ir.WhenStmt)):
                for _, b in st.blocks:
                    walk(b)
                walk(getattr(st, "other", ()))
            elif isinstance(st, (ir.ForStmt, ir.WhileStmt)):
                walk(st.body)
    walk(body)
    return out


def _string(e):
    if isinstance(e, dict) and "Literal" in e:
        v = e["Literal"]["value"]
        return str(next(iter(v.values())))
    return "assertion failed"


def _learn_locations(smap: SourceMap, node):
    stack = [node]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            loc = o.get("location")
            if isinstance(loc, dict) and "start_line" in loc:
                smap.learn(loc)
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)


_EXPERIMENT = re.compile(r"experiment\s*\(([^)]*)\)", re.S)


def parse_experiment(model_file: Path, cls: Optional[str] = None) -> dict:
    """The ``experiment(...)`` annotation of a model file (StartTime, StopTime, ...); with
    ``cls`` (a short class name), of that class in a file that holds several (MSL's layout)."""
    try:
        src = _strip_comments(model_file.read_text(errors="ignore"))
    except OSError:
        return {}
    if cls:
        a = re.search(r"\b(?:model|block|class)\s+" + re.escape(cls) + r"\b", src)
        b = re.search(r"\bend\s+" + re.escape(cls) + r"\s*;", src[a.end():]) if a else None
        if a and b and _EXPERIMENT.search(src[a.start():a.end() + b.end()]):
            src = src[a.start():a.end() + b.end()]
    m = _EXPERIMENT.search(src)
    out = {}
    if m:
        for k, v in re.findall(r"(\w+)\s*=\s*([-+0-9.eE]+)", m.group(1)):
            try:
                out[k] = float(v)
            except ValueError:
                pass
    return out


# ----------------------------------------------------------------------------- annotations
_ANN_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][\w]*|\S', re.S)
_STRING_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
                   '"': '"', "'": "'", "\\": "\\", "?": "?"}


def _unquote(tok: str) -> str:
    """The value of a Modelica string literal (its escapes, MLS 2.4.6, decoded)."""
    return re.sub(r"\\(.)", lambda m: _STRING_ESCAPES.get(m.group(1), m.group(1)), tok[1:-1], flags=re.S)


def _modification(toks: list, i: int):
    """Parse ``( name = value, name(...), ... )`` from ``toks[i] == "("``: (dict, index after
    the ")").  A value that is a string (or strings joined by ``+``) is kept as a str, a
    nested modification as a dict; other values (numbers, graphics) are skipped."""
    out, i = {}, i + 1
    while i < len(toks):
        t = toks[i]
        if t == ")":
            return out, i + 1
        if t in ("each", "final", "redeclare", "replaceable", ","):
            i += 1
            continue
        if re.fullmatch(r"[A-Za-z_]\w*", t):
            name = t
            i += 1
            while i + 1 < len(toks) and toks[i] == "." and re.fullmatch(r"[A-Za-z_]\w*", toks[i + 1]):
                name += "." + toks[i + 1]
                i += 2
            if i < len(toks) and toks[i] == "(":
                sub, i = _modification(toks, i)
                out[name] = sub
            if i < len(toks) and toks[i] == "=":
                i += 1
                parts, j = [], i
                while j < len(toks) and toks[j].startswith('"'):
                    parts.append(_unquote(toks[j]))
                    j += 1
                    if j < len(toks) and toks[j] == "+" and j + 1 < len(toks) and toks[j + 1].startswith('"'):
                        j += 1
                    else:
                        break
                if parts and j < len(toks) and toks[j] in (",", ")"):
                    out[name] = "".join(parts)
                    i = j
                    continue
                # some other expression: skip to the "," or ")" of this level
                depth = 0
                while i < len(toks):
                    if toks[i] in ("(", "{", "["):
                        depth += 1
                    elif toks[i] in (")", "}", "]"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif toks[i] == "," and depth == 0:
                        break
                    i += 1
            continue
        i += 1
    return out, i


def class_annotation(path: Path, name: str) -> dict:
    """The annotation of class ``name`` (its last identifier) in file ``path``, the
    ``annotation(...)`` that ends the class (MLS 18): named string values and nested
    modifications as a dict (``{"version": "0.1.0", "Documentation": {"info": "<html>..."}}``);
    ``{}`` if the file cannot be read or the class has no annotation."""
    try:
        src = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    toks = [t for t in _ANN_TOKEN.findall(src) if not t.startswith(("//", "/*"))]
    short = name.split(".")[-1]
    end = None
    for k in range(len(toks) - 2, 0, -1):
        if toks[k - 1] == "end" and toks[k] == short and toks[k + 1] == ";":
            end = k - 1
            break
    if end is None or end < 2 or toks[end - 1] != ";" or toks[end - 2] != ")":
        return {}
    depth, k = 0, end - 2
    while k >= 0:
        depth += {")": 1, "(": -1}.get(toks[k], 0)
        if depth == 0:
            break
        k -= 1
    if k < 1 or toks[k - 1] != "annotation":
        return {}
    return _modification(toks, k)[0]


#: vendor annotations of the top-level package (MLS 18.1: ``__Vendor_name``) that become the
#: FMU's fmiModelDescription attributes, with ``version`` (MLS 18.8)
LIBRARY_ANNOTATIONS = {"version": "version", "author": "__WearCosim_author",
                       "copyright": "__WearCosim_copyright", "license": "__WearCosim_license"}


def library_metadata(package_file: Optional[Path], model_file: Path, model: str) -> dict:
    """author, version, copyright, license of the FMU: the annotations of the top-level
    package (``package_file``, its ``package.mo``), each replaced by the model class's own
    annotation of the same name if it has one (:data:`LIBRARY_ANNOTATIONS`)."""
    out = {}
    for ann in ([class_annotation(package_file, package_file.parent.name)] if package_file else []) + \
            [class_annotation(model_file, model)]:
        for key, name in LIBRARY_ANNOTATIONS.items():
            if isinstance(ann.get(name), str) and ann[name].strip():
                out[key] = ann[name].strip()
    return out


def model_documentation(model_file: Path, model: str) -> dict:
    """``Documentation(info=..., revisions=...)`` of the model class (HTML strings)."""
    doc = class_annotation(model_file, model).get("Documentation")
    return {k: v for k, v in doc.items() if isinstance(v, str)} if isinstance(doc, dict) else {}


def model_file_for(root: Path, model: str) -> Optional[Path]:
    """Where class ``model`` (dotted name) is defined: its own file (one class per file), or
    else the file of the innermost enclosing class stored in a file of its own that declares
    it (MSL's layout: ``Modelica.Blocks.Continuous.PID`` is in ``Blocks/Continuous.mo``).
    ``root``: the package folder (its name may carry a version, ``Modelica 4.0.0``)."""
    parts = model.split(".")
    if (root / "package.mo").exists():
        if parts[0] != package_name(root):
            return None
        base, rest = root, parts[1:]
    else:
        base, rest = root, parts
    p = base.joinpath(*rest).with_suffix(".mo") if rest else base / "package.mo"
    if p.exists():
        return p
    for k in range(len(rest) - 1, 0, -1):
        for q in (base.joinpath(*rest[:k]).with_suffix(".mo"), base.joinpath(*rest[:k]) / "package.mo"):
            if q.is_file() and re.search(r"\b(?:model|block|class|package|connector|record|function|type)\s+"
                                         + re.escape(rest[k]) + r"\b", _strip_comments(_read(q))):
                return q
    return None


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def package_classes(package_dir: Path) -> list:
    """Dotted names of the classes of a one-class-per-file package folder."""
    package_dir = Path(package_dir)
    base = package_dir.parent if (package_dir / "package.mo").exists() else package_dir
    out = []
    for f in sorted(package_dir.rglob("*.mo")):
        rel = f.relative_to(base).with_suffix("")
        parts = rel.parts[:-1] if f.name == "package.mo" else rel.parts
        if parts:
            out.append(".".join(parts))
    return out


def flatten(path: str | Path, model: str) -> dict[str, Any]:
    """rumoca's flat IR (dict) of ``model`` loaded from ``path`` (raises ExportError)."""
    return _flatten(sources(Path(path)), model)


def _flatten(src: Sources, model: str) -> dict:
    rumoca = _rumoca()
    path = src.path
    if not path.exists():
        raise _err(f"no such file: {path}", None, "io")
    text = _read_source(path)
    try:
        return _rumoca_flat(src, model, text)
    except rumoca.RumocaError as exc:
        flat = _flatten_rewritten(src, model, text, exc)
        if flat is not None:
            return flat
        raise _translate_rumoca_error(exc, src, model, text) from None
    except BaseException as exc:
        if not _is_panic(exc):
            raise
        raise _translate_panic(exc, src, model) from None


#: key under which :func:`_flatten_rewritten` adds the rewritten texts (file -> text) to the flat IR
_REWRITTEN = "wearcosim_rewritten_files"


#: rumoca 0.10.2's refusals the rewrites of :func:`_rewrites` address (others are not compiled again)
_REWRITE_KEYS = ("`function return`", "missing function value definition", "`function statement`",
                 "`function loop reduction`", "`function conditional`", "`parameter binding`",
                 "`function shape proof`", "from a lexically nested class")


def _flatten_rewritten(src: Sources, model: str, text: str, exc) -> Optional[dict]:
    """A model rumoca's DAE stage refused (``exc``), compiled from a view of its sources with the
    functions and bindings it uses rewritten (:func:`_rewrites`); None when nothing is rewritten.
    If rumoca refuses the rewritten model too, the refusal reported is the first one (it names the
    construct in the files as they are), unless the second is a different ToDae refusal named in
    the user's terms."""
    rumoca = _rumoca()
    said = str(exc)
    if not any(key in said for key in _REWRITE_KEYS):
        return None
    index = _ClassIndex(src.map_files or [src.path] + list(src.files))
    rewritten = _rewrites(index, model)
    if not rewritten:
        return None
    try:
        flat = _rumoca_flat(src, model, text, rewritten=rewritten)
    except rumoca.RumocaError as exc2:
        again = str(exc2)
        if "failed in ToDae" in again and _rumoca_words(again) != _rumoca_words(said):
            err = _translate_todae(again.split("\nRelated failures")[0], src, model)
            if err is not None:
                raise err from None
            # a refusal of another construct, without a place: in rumoca's words (the first one
            # is taken over by the rewrites; naming it would send the user to the wrong place)
            first = _translate_rumoca_error(exc, src, model, text)
            raise _err(f"the Modelica front end (rumoca {RUMOCA_VERSION}) refuses {model}: "
                       f"{_rumoca_words(again)} (rumoca's first refusal, {first.loc}: {first.message.split(':')[0]}, "
                       f"is taken over by the exporter)", _class_loc(src, model), "unsupported") from None
        return None
    except BaseException as exc2:
        if _is_panic(exc2):
            return None
        raise
    flat[_REWRITTEN] = {str(f): t for f, t in rewritten.items()}
    return flat


# Size guard.  Every array element becomes a scalar CasADi symbol, equation and slot of the
# FMU's value array; scalarisation, causalisation, code generation and gcc then take time and
# memory roughly linear in that count (about 10-20 kB of builder memory per scalar unknown),
# so a model above this limit is refused before any of that starts, instead of exhausting
# the machine.  Override (at your own risk) with the environment variable
# WEARCOSIM_MAX_SCALARS.
MAX_SCALARS = 200_000


def max_scalars() -> int:
    import os
    try:
        return int(os.environ.get("WEARCOSIM_MAX_SCALARS", MAX_SCALARS))
    except ValueError:
        return MAX_SCALARS


def _check_size(model: str, variables: dict) -> None:
    """Refuse models with more than max_scalars() scalar unknowns (or parameters)."""
    limit = max_scalars()
    counts = {"unknowns": 0, "parameters": 0}
    largest = {"unknowns": (0, None), "parameters": (0, None)}
    for name, v in variables.items():
        size = 1
        for d in v.dims:
            size *= max(int(d), 0)
        kind = "parameters" if v.variability in ("parameter", "constant") else "unknowns"
        counts[kind] += size
        if size > largest[kind][0]:
            largest[kind] = (size, v)
    for kind in ("unknowns", "parameters"):
        if counts[kind] > limit:
            size, v = largest[kind]
            dims = ",".join(str(d) for d in v.dims)
            raise _err(f"{model} has {counts[kind]} scalar {kind} (largest: {v.name}[{dims}] = {size} elements); "
                       f"the limit is {limit} scalar {kind} per model, because the exporter scalarises every "
                       f"array element and its build time and memory grow with their number (set "
                       f"WEARCOSIM_MAX_SCALARS to raise it)", v.loc, "size")


def load(path: str | Path, model: str) -> ir.Model:
    """Load ``model`` (dotted name) from ``path`` (its file or package) into our IR."""
    src = sources(Path(path))
    return _to_ir(_flatten(src, model), src, model, probe=False)


def _state_select(v: Any) -> str:
    """rumoca's ``state_select`` ("Never", "Avoid", "Default", "Prefer", "Always") in lower case."""
    v = str(v or "default").lower()
    return v if v in ("never", "avoid", "default", "prefer", "always") else "default"


def _to_ir(flat: dict, src: Sources, model: str, probe: bool = True) -> ir.Model:
    """Our IR from rumoca's flat IR (``probe``: of the partial wrapper of an unbalanced model)."""
    path = src.path
    mfile = (model_file_for(src.root, model) or path) if src.in_package else path
    if flat.get("is_partial") and not probe:
        raise _err(f"{model} is a partial class and cannot be exported", ir.Loc(str(mfile), 1), "structure")
    smap = SourceMap(src.map_files)
    for f, t in (flat.get(_REWRITTEN) or {}).items():
        smap.use_text(Path(f), t.encode())     # rumoca's spans of a rewritten file are into its text
    smap.ids.update(flat.get(_SOURCE_FILES) or {})
    _learn_locations(smap, flat.get("variables", {}))
    for name, r in flat.get("variables", {}).items():
        smap.learn_span(r.get("source_span"), name.split(".")[-1].split("[")[0], prefer=mfile)
    conv = _Conv(flat, smap, mfile, lambda: _class_loc(src, model, prefer=mfile))
    out = ir.Model(name=model, description=flat.get("model_description") or "",
                   loc=ir.Loc(str(mfile), 1))
    top_inputs = set(flat.get("top_level_input_components") or [])
    for name, r in flat["variables"].items():
        if name in conv.objects:
            continue                  # an external object: its references are its constructor's call
        v = conv.var(name, r)
        if v.type == "String":
            # String parameters and constants (MultiBody's World.label1, ...) are kept out of the
            # numerics: a reference to one in an equation is an unknown variable
            out.strings[name] = v
            continue
        # only top-level inputs/outputs are the model's interface; those of sub-components
        # are ordinary variables (bound by equations of the enclosing model)
        if v.causality == "input" and name not in top_inputs and name.split("[")[0] not in top_inputs:
            v.causality = "local"
        if v.causality == "output" and "." in name.split("[")[0]:
            v.causality = "local"
        out.variables[name] = v
    _check_size(model, out.variables)
    if not probe:
        _check_units(out.variables, src, mfile)
    for res, eq in _scalar_equations(flat.get("equations", []), flat.get("structured_equations", [])):
        fields = conv.record_residuals(res)
        for r in (fields if fields is not None else [conv.expr(res)]):
            out.equations.append(ir.Equation(r, conv.loc(eq)))
    # declaration equations of non-parameter variables (``Real y = expr``) are equations;
    # rumoca keeps them as bindings
    for name, v in out.variables.items():
        if v.binding is not None and v.variability not in ("parameter", "constant") and v.causality != "input":
            out.equations.append(ir.Equation(ir.Bin("-", ir.Ref(name), v.binding), v.loc))
    for res, eq in _scalar_equations(flat.get("initial_equations", []),
                                     flat.get("initial_structured_equations", [])):
        fields = conv.record_residuals(res)
        for r in (fields if fields is not None else [conv.expr(res)]):
            out.initial_equations.append(ir.Equation(r, conv.loc(eq)))
    for a in flat.get("assert_equations", []) + flat.get("initial_assert_equations", []):
        lvl = a.get("level")
        lvl = "warning" if (isinstance(lvl, dict) and "warning" in str(lvl).lower()) else "error"
        out.asserts.append(ir.AssertEq(conv.expr(a["condition"]), _string(a.get("message")), lvl, conv.loc(a)))
    for alg in flat.get("algorithms", []):
        body = alg.get("statements", alg.get("body", alg)) if isinstance(alg, dict) else alg
        stmts = conv.stmts(body)
        if any(isinstance(st, ir.WhenStmt) for st in stmts):
            stmts = _algorithm_whens(stmts, out)
        if stmts:
            out.algorithms.append(stmts)
    for alg in flat.get("initial_algorithms", []):
        body = alg.get("statements", alg.get("body", alg)) if isinstance(alg, dict) else alg
        out.initial_algorithms.append(conv.stmts(body))
    for ch in flat.get("when_chains", []):
        branches = []
        for br in [ch["first"]] + list(ch.get("else_when", [])):
            eqs = []
            for w in br["equations"]:
                (tag, b), = w.items()
                wl = conv.loc(w)
                if tag == "Assign":
                    eqs.append(ir.WhenEq("assign", _target(b["target"]), conv.expr(b["value"]), loc=wl))
                elif tag == "Reinit":
                    eqs.append(ir.WhenEq("reinit", _target(b["state"]), conv.expr(b["value"]), loc=wl))
                elif tag == "Terminate":
                    eqs.append(ir.WhenEq("terminate", message=_string(b.get("message")), loc=wl))
                elif tag == "Assert":
                    eqs.append(ir.WhenEq("assert", value=conv.expr(b.get("condition")),
                                         message=_string(b.get("message")), loc=wl))
                else:
                    raise _err(f"unsupported equation '{tag}' in a when-clause", wl, "unsupported")
            branches.append((conv.expr(br["condition"]), eqs))
        out.whens.append(ir.WhenClause(branches, conv.loc(ch)))
    for fname, f in flat.get("functions", {}).items():
        out.functions[fname] = conv.function(fname, f)
    out.functions.update(conv.record_field_functions(out.functions))
    _drop_unconnected_expandable(out, flat, smap.files)
    out.experiment = parse_experiment(mfile, model.split(".")[-1])
    top = Path(src.root) / "package.mo" if src.in_package else None
    out.metadata = library_metadata(top if top and top.is_file() else None, mfile, model)
    out.documentation = model_documentation(mfile, model)
    return out


# ----------------------------------------------------------------------------- when-statements
def _targets(st) -> list:
    """The variables an algorithm statement assigns (a call statement's '_' left out)."""
    return [n for n in _first_assignments((st,)) if n != "_"]


def _pre_of_unassigned(e, assigned: set, before: set):
    """``e`` with each read of a variable in ``assigned`` that the when-statement has not assigned
    yet (not in ``before``) replaced by its pre() -- its value where the algorithm starts."""
    if isinstance(e, ir.Ref):
        if e.name in assigned and e.name not in before:
            return ir.Call("pre", (e,), True)
        return dataclasses.replace(e, subs=tuple(_pre_of_unassigned(x, assigned, before) for x in e.subs)) \
            if e.subs else e
    if isinstance(e, ir.Call) and e.builtin and e.name in ("pre", "edge", "change"):
        return e
    if dataclasses.is_dataclass(e) and isinstance(e, ir.Expr):
        changes = {}
        for fld in dataclasses.fields(e):
            v = getattr(e, fld.name)
            if isinstance(v, ir.Expr):
                changes[fld.name] = _pre_of_unassigned(v, assigned, before)
            elif isinstance(v, tuple) and v and all(isinstance(x, (ir.Expr, tuple)) for x in v):
                changes[fld.name] = tuple(
                    tuple(_pre_of_unassigned(y, assigned, before) for y in x) if isinstance(x, tuple)
                    else _pre_of_unassigned(x, assigned, before) for x in v)
        return dataclasses.replace(e, **changes) if changes else e
    return e


def _algorithm_whens(stmts: tuple, out: ir.Model) -> tuple:
    """The when-statements of a model's algorithm (MLS 11.2.7) as when-clauses; what is left of
    the algorithm is returned.  Supported, as MSL's Blocks.Sources.TimeTable and
    RadioButtonSource write them: plain assignments first, then when-statements whose branches
    are assignments (one output, or several from a function call), asserts anywhere (checked
    as the model's asserts).  A when-statement's assignment reads a variable of the algorithm
    that it has not assigned yet at its value where the algorithm starts, pre(); several
    when-statements assigning the same variables become one when-clause whose branches are
    taken from the last statement first (in an algorithm the last assignment wins).  Anything
    else is refused at the statement."""
    plain, whens = [], []
    for st in stmts:
        if isinstance(st, ir.AssertStmt):
            out.asserts.append(ir.AssertEq(st.cond, st.message, st.level, st.loc))
        elif isinstance(st, ir.IfStmt) and not st.other and len(st.blocks) == 1 and \
                all(isinstance(x, ir.AssertStmt) for x in st.blocks[0][1]):
            c = st.blocks[0][0]
            for a in st.blocks[0][1]:
                out.asserts.append(ir.AssertEq(ir.Bin("or", ir.Un("not", c), a.cond), a.message, a.level, a.loc))
        elif isinstance(st, ir.WhenStmt):
            whens.append(st)
        elif whens:
            raise _err("an algorithm statement after a when-statement is not supported (move it before the "
                       "when-statements, or write the algorithm as when-equations)", st.loc, "unsupported")
        else:
            plain.append(st)
    assigned: set = set()
    for st in plain + whens:
        assigned.update(_targets(st))
    plain_assigned = {n for st in plain for n in _targets(st)}
    when_assigned = {n for w in whens for n in _targets(w)}
    used: set = set()
    _ir_names(plain, used)
    if used & when_assigned:
        raise _err(f"'{sorted(used & when_assigned)[0]}' is assigned in a when-statement and used by an "
                   f"assignment before it in the algorithm: not supported", plain[0].loc, "unsupported")
    groups: dict = {}
    done = set(plain_assigned)      # assigned by the statements before (their new values are read)
    for w in whens:
        branches = []
        for cond, body in w.blocks:
            eqs, before = [], set(done)
            for st in body:
                if isinstance(st, ir.AssertStmt):
                    eqs.append(ir.WhenEq("assert", value=st.cond, message=st.message, loc=st.loc))
                    continue
                if not isinstance(st, ir.Assign) or any(t is not None and t.subs for t in (st.targets or (st.target,))):
                    raise _err("only assignments to whole variables are supported in a when-statement of an "
                               "algorithm", st.loc, "unsupported")
                value = _pre_of_unassigned(st.value, assigned, before)
                if st.targets:
                    for k, t in enumerate(st.targets):
                        if t is not None:
                            eqs.append(ir.WhenEq("assign", t, ir.Call("$output", (ir.Lit(k), value), True), loc=st.loc))
                else:
                    eqs.append(ir.WhenEq("assign", st.target, value, loc=st.loc))
                for t in _targets(st):
                    if t in before - done:
                        raise _err(f"'{t}' is assigned twice in a when-statement of an algorithm: not supported",
                                   st.loc, "unsupported")
                    before.add(t)
            branches.append((_pre_of_unassigned(cond, when_assigned, done), eqs))
        done |= set(_targets(w))
        key = frozenset(_targets(w))
        sets = {frozenset(t for eq in eqs if eq.kind == "assign" for t in [eq.target.name]) for _, eqs in branches}
        if len(sets) > 1:
            raise _err("the branches of a when-statement in an algorithm assign different variables: not supported",
                       w.loc, "unsupported")
        groups.setdefault(key, []).append((w, branches))
    for key, ws in groups.items():
        if any(key & other for other in groups if other != key):
            raise _err("when-statements of an algorithm that assign overlapping sets of variables: not supported",
                       ws[0][0].loc, "unsupported")
        branches = [b for _, bs in reversed(ws) for b in bs]
        out.whens.append(ir.WhenClause(branches, ws[0][0].loc))
    return tuple(plain)


# ----------------------------------------------------------------------------- expandable connectors
def _expandable_lines(files) -> dict:
    """{file: [(first line, last line) of each ``expandable connector`` class in it]}."""
    out: dict = {}
    for f in files:
        try:
            text = Path(f).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "expandable" not in text:        # (nor then in the text without its comments)
            continue
        text = _strip_comments(text)
        for m in re.finditer(r"\bexpandable\s+connector\s+(\w+)", text):
            end = re.compile(r"\bend\s+" + re.escape(m.group(1)) + r"\s*;").search(text, m.end())
            if end:
                out.setdefault(str(f), []).append((text.count("\n", 0, m.start()) + 1,
                                                   text.count("\n", 0, end.end()) + 1))
    return out


def _ir_names(node, into: set) -> None:
    """The names of every variable ``node`` (IR, or tuples/lists of it) refers to."""
    if isinstance(node, ir.Ref):
        into.add(node.name)
    if isinstance(node, (list, tuple)):
        for x in node:
            _ir_names(x, into)
    elif dataclasses.is_dataclass(node) and not isinstance(node, ir.Loc):
        for fld in dataclasses.fields(node):
            _ir_names(getattr(node, fld.name), into)


def _drop_unconnected_expandable(out: ir.Model, flat: dict, files) -> None:
    """A component declared in an expandable connector that no connection uses is not part of
    the model (MLS 9.1.3: only the connected members of an expandable connector exist; MSL's
    BusUsage declares ``realSignal2`` in its bus and connects nothing to it)."""
    spans = None
    candidates = []
    for name, r in (flat.get("variables") or {}).items():
        v = out.variables.get(name)
        if v is None or r.get("connected") is not False or "." not in name or \
                v.variability in ("parameter", "constant") or not v.loc.line:
            continue
        if spans is None:
            spans = _expandable_lines(files)
        if any(lo <= v.loc.line <= hi for lo, hi in spans.get(str(v.loc.file), [])):
            candidates.append(name)
    if not candidates:
        return
    used: set = set()
    _ir_names((out.equations, out.initial_equations, out.whens, out.algorithms, out.initial_algorithms,
               out.asserts, [v.binding for v in out.variables.values()]), used)
    for name in candidates:
        if name not in used:
            del out.variables[name]


# ----------------------------------------------------------------------------- for-equations
# rumoca 0.10.2 keeps a for-equation as a *structured equation*: a template (the body, with the
# loop indices as names) over a domain of index values, and lists one scalar equation per point
# in ``equations``.  Where it reports ``interiors_materialized: false`` (every for-equation of
# more than two points, measured), only the first two points of those scalar equations are the
# body instantiated; the others are placeholders whose right-hand side is the literal 0 -- a
# plausible, wrong equation.  The scalar equations of such a loop are therefore instantiated
# here from the template, point by point, in rumoca's order (first index outermost).
def _binder_values(b: dict) -> range:
    lo, hi, step = int(b["lower"]), int(b["upper"]), int(b.get("step") or 1)
    return range(lo, hi + (1 if step > 0 else -1), step)


def _substitute(node, values: dict):
    """A copy of the JSON expression ``node`` with the loop indices in ``values`` replaced by
    their Integer values (a loop index shadows any other name: MLS 8.3.2.1)."""
    if isinstance(node, dict):
        ref = node.get("VarRef")
        if isinstance(ref, dict) and not ref.get("subscripts"):
            name = ref.get("name", {})
            name = name.get("name") if isinstance(name, dict) else name
            if name in values:
                lit = {"value": {"Integer": values[name]}}
                if "span" in ref:
                    lit["span"] = ref["span"]
                return {"Literal": lit}
        return {k: _substitute(v, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_substitute(v, values) for v in node]
    return node


def _scalar_equations(equations: list, structured: list):
    """(residual, equation record) of every scalar equation: rumoca's own, except the points of
    for-equations it did not instantiate, which come from their templates."""
    import itertools
    replaced: dict = {}
    for s in structured or []:
        if s.get("interiors_materialized", True) or "template" not in s:
            continue
        binders = s.get("domain", {}).get("binders", [])
        names = [b["display_name"] for b in binders]
        body = s["template"].get("body", [])
        per = int(s.get("equations_per_point") or len(body))
        first = int(s["first_equation_index"])
        k = first
        for point in itertools.product(*(_binder_values(b) for b in binders)):
            values = dict(zip(names, point))
            for j in range(per):
                if k >= len(equations) or j >= len(body):
                    raise RuntimeError("a for-equation's points do not match rumoca's equation list")
                replaced[k] = _substitute(body[j], values)
                k += 1
    for i, eq in enumerate(equations):
        if i in replaced:       # located at the equation in the loop's body, not at 'for'
            yield replaced[i], {"residual": replaced[i]}
        else:
            yield eq["residual"], eq


def _string_at(loc: ir.Loc) -> Optional[str]:
    """The string literal that starts at ``loc`` (1-based line and column), if one does."""
    try:
        lines = Path(loc.file).read_text(errors="ignore").splitlines()
        m = re.match(r'"((?:[^"\\]|\\.)*)"', lines[loc.line - 1][loc.col - 1:])
    except (OSError, IndexError):
        return None
    return m.group(1) if m else None


def _check_units(variables: dict, src: Sources, model_file: Path) -> None:
    """Refuse a ``unit`` or ``displayUnit`` that is not a valid unit string the exporter can
    define in SI base units (:mod:`wearcosim.export.units`), naming the line that writes it
    (the declaration or the type that gives it) and the variable."""
    from . import units
    bad_seen = {}
    for name, v in variables.items():
        if v.type != "Real":
            continue
        for attr, text in (("unit", v.unit), ("displayUnit", v.display_unit)):
            if not text:
                continue
            try:
                units.check(text)
                if attr == "displayUnit" and v.unit:
                    units.display_conversion(v.unit, text)
            except units.UnitError as exc:
                key = (attr, text)
                if key not in bad_seen:
                    bad_seen[key] = _find_unit_string(src.map_files, attr, text,
                                                      Path(v.loc.file) if v.loc.line else model_file)
                loc = bad_seen[key] or v.loc
                raise _err(f"{attr} of {name}: {exc}", loc, "unit") from None


def _find_unit_string(files, attr: str, text: str, prefer: Optional[Path] = None):
    """``file:line:col`` of ``attr = "text"`` (outside comments), the variable's file first."""
    pat = re.compile(r"(?<![\w])" + attr + r'\s*=\s*"')
    order = ([prefer] if prefer and prefer in files else []) + [f for f in files if f != prefer]
    for f in order:
        try:
            raw = Path(f).read_text(errors="ignore")
        except OSError:
            continue
        for m in pat.finditer(_strip_comments(raw)):
            q = m.end()
            if raw[q:q + len(text) + 1] == text + '"':
                line = raw.count("\n", 0, m.start()) + 1
                return ir.Loc(str(f), line, m.start() - (raw.rfind("\n", 0, m.start()) + 1) + 1)
    return None


def _target(t) -> ir.Ref:
    if isinstance(t, str):
        m = re.match(r"^(.*?)\[([\d,\s]+)\]$", t)
        if m:
            return ir.Ref(m.group(1), tuple(ir.Lit(int(x)) for x in m.group(2).split(",")))
        return ir.Ref(t)
    if isinstance(t, dict) and "VarRef" in t:
        return _Conv({}, SourceMap([]), Path("?")).expr(t)
    return ir.Ref(str(t))


def list_models(package_dir: str | Path, prefix: str = "WearCosim.Examples") -> list[str]:
    """Dotted names of every model class below ``prefix`` (one class per file)."""
    package_dir = Path(package_dir)
    top = package_dir.name
    parts = prefix.split(".")
    if parts[0] != top:
        raise _err(f"package {prefix} is not in {package_dir}", None, "io")
    base = package_dir.joinpath(*parts[1:])
    out = []
    for f in sorted(base.rglob("*.mo")):
        if f.name == "package.mo":
            continue
        src = _strip_comments(f.read_text(errors="ignore"))
        m = re.search(r"^\s*(?:(?:encapsulated|partial|final)\s+)*(model|block|class|function|record|connector|type|package)\s+(\w+)", src, re.M)
        if m and m.group(1) in ("model", "block", "class") and not re.search(r"^\s*partial\s", src, re.M):
            rel = f.relative_to(package_dir).with_suffix("")
            out.append(".".join([top] + list(rel.parts)))
    return out
