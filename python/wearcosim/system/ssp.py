"""Reading and writing SSP system descriptions: ``.ssd`` files and ``.ssp`` archives.

The subset (SSP 1.0, and SSP 2.0 files read where they differ only in names):

* one flat ``ssd:System``: ``ssd:Elements`` of ``ssd:Component`` (type
  ``application/x-fmu-sharedlibrary``, ``source``, ``implementation``), the system's and the
  components' ``ssd:Connectors`` (``ssc:Real`` with ``unit``, ``ssc:Integer``,
  ``ssc:Boolean``, ``ssc:String``, ``ssc:Enumeration``; SSP 2.0's ``Float64``/``Float32`` read
  as Real and ``Int8``...``UInt64`` as Integer), ``ssd:Connections``;
* ``ssd:ParameterBindings`` of components and of the system (names ``component.variable``,
  ``prefix`` honoured), each an inline ``ssv:ParameterSet`` or a ``source`` ``.ssv`` file;
  later bindings win, the system's win over a component's (SSP 5.2.3);
* ``ssd:DefaultExperiment`` (start and stop time), ``ssd:Units``, ``ssd:Enumerations``;
  ``ssc:Annotation`` elements of the root, the system, the default experiment and the
  components are not interpreted but kept as XML text and written back.

Refused with a one-line :class:`SSPError` naming the file (and the component): nested
systems, signal dictionaries, components that are not FMUs, parameter mappings, parameter
sources relative to the component, connection transformations, Binary and Clock connectors.
Geometry and graphical elements are dropped.

Files and archives
------------------
:func:`read_ssd` reads an ``.ssd``; component ``source`` URIs are resolved against the
SSD's folder.  :func:`open_system` (a context manager) reads an ``.ssd`` or an ``.ssp``: an
archive is extracted with the limits of :mod:`wearcosim.fmi.archive` (no absolute paths, no
``..``, no symbolic links, bounded size, count and compression ratio) into a temporary
folder removed when the block ends, on every path; ``SystemStructure.ssd`` at its root is
read and the sources resolve against that root.  Only relative URIs without ``..`` that stay
inside that folder (symbolic links resolved) are accepted as ``source``: SSP (5.5) requires
no more, and anything else could make a system read files it does not own.

:func:`write_ssd` and :func:`write_ssp` write atomically (:mod:`wearcosim.atomic`: a
temporary file renamed over the destination, mode from the umask, nothing half-written);
:func:`write_ssp` bundles each component's FMU as ``resources/<name>.fmu`` and rewrites the
sources.  What is written is SSP 1.0 that libcosim reads (its loader, used by libcosimpy's
``CosimExecution.from_ssp_file``, matches the literal prefixes ``ssd:``/``ssc:``/``ssv:``,
needs a type element on every connector, reads a connection's start as the output, applies
the first parameter set of each component and ignores system-level bindings, and stops at a
connection without ``startElement`` or ``endElement``): the prefixes are those, a
connector's type is always written when known, a connection is written source first,
parameters are written inline per component, one set each.

Two more forms for other tools (docs/systems.md, "SSP in other tools"):
``write_ssp(..., interface=True)`` declares the system's interface as system connectors
(:func:`with_interface`: the free component inputs, e.g. the wear profile, as system inputs
bound to their start values, every component output as a system output, named
``<component>.<variable>``), the form fmu-manipulation-toolbox builds a container with inputs
and outputs from, which libcosim cannot load; ``write_ssp(..., container=True)`` packs the
strongly coupled container FMU as the one component (:func:`container_system`), which libcosim
runs.  On reading, a system-level binding that names a system connector binds that connector
(SSP 5.3.3; the name may pun a component's variable, ``joint.wearDepth[1]``).

Schema validation
-----------------
When the SSP XML schemas are available, the SSD (and every ``.ssv`` read) is validated
against them (lxml, XSD 1.0: ``SystemStructureDescription.xsd`` with the ParameterValues
schema for inline parameter sets; SSP 2.0 files against the 2.0 schemas) and the findings,
one line each with the line number, are kept in ``System.schema_problems`` (reported by
:func:`wearcosim.system.validate.problems`).  The schemas are the Modelica Association's
(2-clause BSD); this repository does not carry a copy: they are taken from the folder named
by ``WEARCOSIM_SSP_SCHEMAS``, else from the copy shipped inside the ``pyssp-standard`` wheel
(installed with the ``test`` extra; found without importing it).  Without them the reader's
own structural checks are all there is (:func:`schema_dir` returns None).

Why lxml and not pyssp-standard
-------------------------------
``pyssp-standard`` (PyPI, MIT, 0.9.1, "Development Status :: 3 - Alpha", essentially one
author; ~2 900 lines, a 130 KB wheel; depends on lxml, xmlschema and pint) covers far more of
SSP than this subset (SSD/SSV/SSM/SSB/SRMD, SSP 2.0, FMI 3 model descriptions, units) and
ships the official XSDs, which its ``__check_compliance__`` validates with xmlschema.  It
reads what this module writes and its compliance check accepts it (tested).  As the
implementation here it would save little and cost more:

* reading: malformed input ends in bare exceptions, not in a message naming the file and the
  component (tried: a connection to an unknown connector raises ``KeyError: ('spring',
  'zz')`` from ``check_connections``; a DefaultExperiment without the optional startTime
  raises ``TypeError`` from ``float(None)``); a typo on a path that is taken
  (``calcualtedParameter`` in its table of allowed connections);
* archives: ``SSP`` unpacks with ``ZipFile.extractall`` (no size, count or ratio limit, no
  check of symbolic links) into a ``mkdtemp`` folder and saves with ``shutil.make_archive``
  and a copy (not atomic); neither meets the project's archive rules (:mod:`.fmi.archive`,
  :mod:`.atomic`), so the archive handling would be ours anyway;
* writing: sources, units and parameter sets are the caller's to assemble either way, and
  the libcosim constraints above (prefixes, orientation, types) would still be checked here;
* weight: importing its SSD module takes ~0.5 s (pint), and pint and xmlschema would join
  the runtime dependencies of a package that already has lxml.

The subset is ~750 lines here on lxml, schema-validated in the tests.  ``pyssp-standard`` is
a test dependency only: the source of the XSDs (found without importing it) and a second
reader of what we write.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import importlib.util
import math
import os
import posixpath
import re
import shutil
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import unquote, urlsplit

from lxml import etree

from ..atomic import atomic_path
from ..names import safe_stem
from ..fmi.archive import Limits, directory_problems, one_line, remove_temp_dir, safe_extract
from .model import KINDS, KINDS_SSP2, Component, Connection, Connector, SSPError, System

NS = {
    "ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
    "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
    "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
    "ssm": "http://ssp-standard.org/SSP1/SystemStructureParameterMapping",
    "ssb": "http://ssp-standard.org/SSP1/SystemStructureSignalDictionary",
}
SSD_FILE = "SystemStructure.ssd"
FMU_TYPE = "application/x-fmu-sharedlibrary"
PARAMETER_SET_TYPE = "application/x-ssp-parameter-set"
VERSIONS = ("1.0", "2.0")
IMPLEMENTATIONS = ("any", "ModelExchange", "CoSimulation")
#: largest .ssd / .ssv read (an XML description, not data)
MAX_XML_SIZE = 64 << 20

_REAL_TAGS = ("Real", "Float64", "Float32")
_INTEGER_TAGS = ("Integer", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64")
_TYPE_TAGS = _REAL_TAGS + _INTEGER_TAGS + ("Boolean", "String", "Enumeration", "Binary", "Clock")


def _q(prefix: str, name: str) -> str:
    return f"{{{NS[prefix]}}}{name}"


def _short(tag) -> str:
    """``{ns}Name`` as ``ssd:Name`` (or the plain tag)."""
    if not isinstance(tag, str):
        return str(tag)
    m = re.match(r"\{([^}]*)\}(.*)", tag)
    if not m:
        return tag
    for p, uri in NS.items():
        if uri == m.group(1):
            return f"{p}:{m.group(2)}"
    return f"{{{m.group(1)}}}{m.group(2)}"


def _children(el, prefix=None, name=None):
    """Element children (comments and processing instructions skipped), optionally only
    those with the tag ``prefix:name``."""
    tag = _q(prefix, name) if prefix else None
    return [c for c in el if isinstance(c.tag, str) and (tag is None or c.tag == tag)]


def _child(el, prefix, name):
    found = _children(el, prefix, name)
    return found[0] if found else None


# ---------------------------------------------------------------------------------- reading

def _parser():
    # no entity expansion, no network, no DTD loading: an SSD is data, not a program
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise SSPError(f"{path}: no such file") from None
    except OSError as exc:
        raise SSPError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if not path.is_file():
        raise SSPError(f"{path}: not a file")
    if size > MAX_XML_SIZE:
        raise SSPError(f"{path}: {what} of {size} bytes, above the limit of {MAX_XML_SIZE} bytes")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SSPError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None


def _parse(data: bytes, where: str):
    try:
        return etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        msg = exc.msg if getattr(exc, "msg", None) else str(exc)
        line = f" (line {exc.lineno})" if getattr(exc, "lineno", None) and f"line {exc.lineno}" not in msg else ""
        raise SSPError(f"{where}: not well-formed XML: {one_line(msg)}{line}") from None
    except ValueError as exc:            # e.g. a str with an encoding declaration
        raise SSPError(f"{where}: cannot parse the XML: {exc}") from None


class _Ctx:
    """What the reader needs to name things in messages and to resolve URIs."""

    def __init__(self, file: str | Path, base: Path, inside: str, schema: bool = True,
                 archive: str | Path | None = None) -> None:
        self.archive = archive             # the open .ssp when nothing is extracted (base None)
        self.file = str(file)
        self.base = Path(base) if base is not None else None
        self.inside = inside               # "the folder of the SSD" / "the archive"
        self.schema = schema
        self.schema_problems = []

    def error(self, msg: str, el: Any = None) -> SSPError:
        line = f":{el.sourceline}" if el is not None and getattr(el, "sourceline", None) else ""
        return SSPError(f"{self.file}{line}: {msg}")

    def attr(self, el: Any, name: str, what: str) -> str:
        v = el.get(name)
        if v is None:
            raise self.error(f"{what}: missing attribute {name!r}", el)
        return v


def _resolve(ctx: _Ctx, source: str, what: str, el=None):
    """``source`` (a URI reference) as a path below ``ctx.base``; when the base is not a
    folder on disk (an archive read without extracting it), the normalised relative path as
    a ``str``, after the lexical checks only.  Refuses what could leave that folder."""
    where = ctx.inside
    bad = None
    u = urlsplit(source)
    if not source.strip():
        bad = "is empty"
    elif u.scheme or u.netloc:
        bad = "is not a relative URI (only sources inside " + where + " are supported)"
    elif u.query or u.fragment:
        bad = "has a query or fragment (not supported)"
    else:
        path = unquote(u.path)
        if path.startswith("/") or re.match(r"[A-Za-z]:[/\\]", path) or path.startswith("\\"):
            bad = "is an absolute path"
        elif "\x00" in path:
            bad = "contains a NUL character"
        elif ".." in re.split(r"[/\\]", path):
            bad = f"points outside {where} ('..')"
    if bad:
        raise ctx.error(f"{what}: source {source!r} {bad}", el)
    rel = posixpath.normpath(unquote(u.path))
    if ctx.base is None:
        return rel
    target = ctx.base / rel
    base = ctx.base.resolve()
    real = target.resolve()
    if real != base and base not in real.parents:
        raise ctx.error(f"{what}: source {source!r} points outside {where} (through a symbolic link)", el)
    return target


def _annotations(el) -> list:
    """The ssc:Annotation children of el's ssd:Annotations, as XML text."""
    ann = _child(el, "ssd", "Annotations")
    if ann is None:
        return []
    out = []
    for a in _children(ann):
        a = copy.deepcopy(a)
        a.tail = None
        out.append(etree.tostring(a, encoding="unicode"))
    return out


def _connector(ctx: _Ctx, el, owner: str, version: str) -> Connector:
    name = ctx.attr(el, "name", f"{owner}: connector")
    what = f"{owner}: connector {name!r}"
    kind = ctx.attr(el, "kind", what)
    if kind not in KINDS + (KINDS_SSP2 if version != "1.0" else ()):
        raise ctx.error(f"{what}: unknown kind {kind!r} (one of {', '.join(KINDS)})", el)
    c = Connector(name=name, kind=kind, type="", description=el.get("description", ""))
    types = [t for t in _children(el) if t.tag in {_q("ssc", n) for n in _TYPE_TAGS}]
    if len(types) > 1:
        raise ctx.error(f"{what}: more than one type element", el)
    if types:
        t = etree.QName(types[0]).localname
        if t in _REAL_TAGS:
            c.type, c.unit = "Real", types[0].get("unit", "")
        elif t in _INTEGER_TAGS:
            c.type = "Integer"
        elif t in ("Boolean", "String"):
            c.type = t
        elif t == "Enumeration":
            c.type, c.enumeration = "Enumeration", types[0].get("name", "")
        else:
            raise ctx.error(f"{what}: {t} connectors are not supported (FMI 2.0 has no such type)", el)
    return c


def _value(ctx: _Ctx, el, what: str):
    """(name, python value) of an ssv:Parameter."""
    name = ctx.attr(el, "name", f"{what}: parameter")
    vals = [t for t in _children(el) if etree.QName(t).namespace == NS["ssv"]]
    if len(vals) != 1:
        raise ctx.error(f"{what}: parameter {name!r}: expected exactly one value element", el)
    v = vals[0]
    t = etree.QName(v).localname
    raw = v.get("value")
    if raw is None:
        raise ctx.error(f"{what}: parameter {name!r}: missing attribute 'value'", v)
    try:
        if t in _REAL_TAGS:
            return name, float(raw)
        if t in _INTEGER_TAGS:
            return name, int(raw.strip())
        if t == "Boolean":
            s = raw.strip()
            if s not in ("true", "false", "1", "0"):
                raise ValueError(raw)
            return name, s in ("true", "1")
        if t in ("String", "Enumeration"):
            return name, raw
    except ValueError:
        raise ctx.error(f"{what}: parameter {name!r}: {raw!r} is not a valid {t} value", v) from None
    raise ctx.error(f"{what}: parameter {name!r}: {t} values are not supported", v)


def _parameter_set(ctx: _Ctx, pset, what: str) -> dict:
    if pset is None or pset.tag != _q("ssv", "ParameterSet"):
        raise ctx.error(f"{what}: expected an ssv:ParameterSet", pset)
    params = _child(pset, "ssv", "Parameters")
    out = {}
    for p in _children(params, "ssv", "Parameter") if params is not None else []:
        name, value = _value(ctx, p, what)
        out[name] = value
    return out


def _bindings(ctx: _Ctx, el, what: str) -> dict:
    """The parameter values of el's ssd:ParameterBindings, later bindings winning."""
    pbs = _child(el, "ssd", "ParameterBindings")
    out = {}
    if pbs is None:
        return out
    for b in _children(pbs, "ssd", "ParameterBinding"):
        typ = b.get("type", PARAMETER_SET_TYPE)
        if typ != PARAMETER_SET_TYPE:
            raise ctx.error(f"{what}: parameter binding of type {typ!r} is not supported", b)
        if _child(b, "ssd", "ParameterMapping") is not None:
            raise ctx.error(f"{what}: parameter mappings are not supported", b)
        source = b.get("source")
        if source:
            if b.get("sourceBase", "SSD") != "SSD":
                raise ctx.error(f"{what}: parameter source relative to the component is not supported", b)
            path = _resolve(ctx, source, f"{what}: parameter binding", b)
            if isinstance(path, str):                    # inside an archive not extracted
                where = f"{ctx.file.partition('!')[0]}!{path}"
                data = _read_member(ctx.archive, path, where, "parameter set")
            elif not path.is_file():
                raise ctx.error(f"{what}: parameter source {source!r}: no such file", b)
            else:
                where = str(path)
                data = _read_bytes(path, "parameter set")
            sub = _Ctx(where, ctx.base, ctx.inside)
            root = _parse(data, where)
            if ctx.schema:
                ctx.schema_problems += schema_problems(root, where, kind="ssv", version=root.get("version", "1.0")) or []
            values = _parameter_set(sub, root, f"parameter source {source!r}")
        else:
            pv = _child(b, "ssd", "ParameterValues")
            if pv is None:
                raise ctx.error(f"{what}: parameter binding without source nor ParameterValues", b)
            values = _parameter_set(ctx, _child(pv, "ssv", "ParameterSet"), what)
        prefix = b.get("prefix", "")
        out.update({prefix + k: v for k, v in values.items()})
    return out


def _component(ctx: _Ctx, el, version: str) -> Component:
    name = ctx.attr(el, "name", "component")
    what = f"component {name!r}"
    typ = el.get("type", FMU_TYPE)
    if typ != FMU_TYPE:
        raise ctx.error(f"{what}: type {typ!r} is not supported (only FMUs, {FMU_TYPE})", el)
    source = el.get("source")
    if not source:
        raise ctx.error(f"{what}: no source (an FMU is needed)", el)
    path = _resolve(ctx, source, what, el)
    path = None if isinstance(path, str) else path        # in an archive not extracted
    comp = Component(name=name, source=source, path=path,
                     implementation=el.get("implementation", "any"),
                     description=el.get("description", ""))
    conns = _child(el, "ssd", "Connectors")
    for c in _children(conns, "ssd", "Connector") if conns is not None else []:
        comp.connectors.append(_connector(ctx, c, what, version))
    comp.parameters = _bindings(ctx, el, what)
    comp.annotations = _annotations(el)
    return comp


def _float_attr(ctx, el, name):
    v = el.get(name)
    if v is None:
        return None
    try:
        return float(v)
    except ValueError:
        raise ctx.error(f"ssd:DefaultExperiment: {name}={v!r} is not a number", el) from None


def _read_root(ctx: _Ctx, root) -> System:
    if not isinstance(root.tag, str) or root.tag != _q("ssd", "SystemStructureDescription"):
        tag = _short(root.tag)
        raise ctx.error(f"not an SSP system structure description: the root element is <{tag}>, "
                        f"not ssd:SystemStructureDescription ({NS['ssd']})")
    version = root.get("version")
    if version not in VERSIONS:
        raise ctx.error(f"SSP version {version!r} is not supported (1.0 or 2.0)" if version is not None
                        else "missing attribute 'version' of ssd:SystemStructureDescription", root)
    if ctx.schema:
        ctx.schema_problems += schema_problems(root, ctx.file, kind="ssd", version=version) or []
    systems = _children(root, "ssd", "System")
    if len(systems) != 1:
        raise ctx.error("expected exactly one ssd:System in ssd:SystemStructureDescription", root)
    sel = systems[0]
    sysname = ctx.attr(sel, "name", "ssd:System")
    system = System(name=sysname, description=sel.get("description", ""), version=version,
                    ssd_name=root.get("name", ""), base=ctx.base)
    conns = _child(sel, "ssd", "Connectors")
    for c in _children(conns, "ssd", "Connector") if conns is not None else []:
        system.connectors.append(_connector(ctx, c, f"system {sysname!r}", version))
    sd = _child(sel, "ssd", "SignalDictionaries")
    if sd is not None and _children(sd):
        raise ctx.error("signal dictionaries are not supported", sd)
    elements = _child(sel, "ssd", "Elements")
    for e in _children(elements) if elements is not None else []:
        local = etree.QName(e).localname
        if e.tag == _q("ssd", "Component"):
            system.components.append(_component(ctx, e, version))
        elif e.tag == _q("ssd", "System"):
            raise ctx.error(f"nested system {e.get('name', '')!r}: only flat systems are supported", e)
        elif e.tag == _q("ssd", "SignalDictionaryReference"):
            raise ctx.error("signal dictionary references are not supported", e)
        else:
            raise ctx.error(f"unexpected element <{_short(e.tag) if local else e.tag}> in ssd:Elements", e)
    connections = _child(sel, "ssd", "Connections")
    for c in _children(connections, "ssd", "Connection") if connections is not None else []:
        what = "connection"
        for t in _children(c):
            if etree.QName(t).localname.endswith("Transformation"):
                raise ctx.error(f"connection {c.get('startElement', '')}.{c.get('startConnector', '')} -> "
                                f"{c.get('endElement', '')}.{c.get('endConnector', '')}: "
                                f"{etree.QName(t).localname} is not supported", t)
        system.connections.append(Connection(
            start_element=c.get("startElement") or None, start_connector=ctx.attr(c, "startConnector", what),
            end_element=c.get("endElement") or None, end_connector=ctx.attr(c, "endConnector", what)))
    # system-level bindings: a system connector's name (the value of a system input, SSP 5.3.3;
    # it may pun a component's variable, "joint.wearDepth[1]": the connector is the one bound,
    # and it drives that variable), else "component.variable" (longest component name first),
    # else kept
    values = _bindings(ctx, sel, f"system {sysname!r}")
    names = sorted((c.name for c in system.components), key=len, reverse=True)
    sysconns = {c.name for c in system.connectors}
    for k, v in values.items():
        if k in sysconns:
            system.parameters[k] = v
            continue
        for n in names:
            if k.startswith(n + "."):
                for comp in system.components:
                    if comp.name == n:
                        comp.parameters[k[len(n) + 1:]] = v
                break
        else:
            system.parameters[k] = v
    system.annotations = _annotations(sel)
    units = _child(root, "ssd", "Units")
    for u in _children(units, "ssc", "Unit") if units is not None else []:
        bu = _child(u, "ssc", "BaseUnit")
        system.units[ctx.attr(u, "name", "ssc:Unit")] = dict(bu.attrib) if bu is not None else {}
    enums = _child(root, "ssd", "Enumerations")
    for e in _children(enums, "ssc", "Enumeration") if enums is not None else []:
        e = copy.deepcopy(e)
        e.tail = None
        system.enumerations.append(etree.tostring(e, encoding="unicode"))
    de = _child(root, "ssd", "DefaultExperiment")
    if de is not None:
        system.start_time = _float_attr(ctx, de, "startTime")
        system.stop_time = _float_attr(ctx, de, "stopTime")
        system.experiment_annotations = _annotations(de)
    system.ssd_annotations = _annotations(root)
    system.schema_problems = list(ctx.schema_problems)
    return system


def read_ssd(path: str | Path, *, schema: bool = True) -> System:
    """The system of an ``.ssd`` file (sources resolved against its folder).  Raises
    :class:`SSPError` with a one-line message naming the file."""
    path = Path(path)
    ctx = _Ctx(path, path.parent, f"the folder of {path.name}", schema=schema)
    system = _read_root(ctx, _parse(_read_bytes(path, "system structure description"), str(path)))
    system.file = path
    return system


def _open_zip(path: Path, limits: Limits) -> zipfile.ZipFile:
    if not path.exists():
        raise SSPError(f"{path}: no such file")
    try:
        z = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise SSPError(f"{path}: not a zip archive, or a truncated one ({exc})") from None
    except OSError as exc:
        raise SSPError(f"{path}: cannot read the archive: {exc.strerror or exc}") from None
    problems = directory_problems(z, limits)
    if problems:
        z.close()
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise SSPError(f"{path}: {problems[0]}{more}")
    if SSD_FILE not in z.namelist():
        z.close()
        raise SSPError(f"{path}: no {SSD_FILE} at the root of the archive")
    return z


def _read_member(z: zipfile.ZipFile, name: str, where: str, what: str) -> bytes:
    try:
        info = z.getinfo(name)
    except KeyError:
        raise SSPError(f"{where}: no such member in the archive") from None
    if info.file_size > MAX_XML_SIZE:
        raise SSPError(f"{where}: {what} of {info.file_size} bytes, above the limit of {MAX_XML_SIZE} bytes")
    try:
        return z.read(info)                  # reads at most the declared size, checks the CRC
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError) as exc:
        raise SSPError(f"{where}: cannot read {what}: {exc}") from None


def is_archive(path: str | Path) -> bool:
    """An ``.ssp`` (by its extension; an ``.ssd`` otherwise)."""
    return Path(path).suffix.lower() == ".ssp"


@contextmanager
def open_system(path: str | Path, *, extract: bool = True, limits: Limits | None = None,
                schema: bool = True) -> Iterator[System]:
    """``with open_system(path) as system:`` the system of an ``.ssd`` or ``.ssp``.

    An ``.ssp`` is checked (zip directory: unsafe names, links, sizes) and, with
    ``extract=True``, extracted into a temporary folder (``component.path`` points there)
    that is removed when the block ends, whatever happens; with ``extract=False`` only its
    ``SystemStructure.ssd`` is read (``component.path`` is None; enough to show it)."""
    path = Path(path)
    limits = Limits.from_env() if limits is None else limits
    if not is_archive(path):
        yield read_ssd(path, schema=schema)
        return
    if not extract:
        with _open_zip(path, limits) as z:
            ctx = _Ctx(f"{path}!{SSD_FILE}", None, "the archive", schema=schema, archive=z)
            system = _read_root(ctx, _parse(_read_member(z, SSD_FILE, ctx.file, "system structure description"), ctx.file))
        system.file = path
        yield system
        return
    with _open_zip(path, limits):
        pass                                  # clear messages for the common problems first
    tmp = safe_extract(path, limits=limits)   # checks again, and while writing; removes on failure
    try:
        ctx = _Ctx(f"{path}!{SSD_FILE}", tmp, "the archive", schema=schema)
        system = _read_root(ctx, _parse(_read_bytes(tmp / SSD_FILE, "system structure description"), ctx.file))
        system.file = path
        yield system
    finally:
        remove_temp_dir(tmp)


# ---------------------------------------------------------------------------------- units

def base_unit(unit: str) -> dict[str, str] | None:
    """The ssc:BaseUnit attributes of a unit string in Modelica syntax (``"N.m/rad"``,
    ``"m/s2"``, ``"1/s"``, ``"kg.m2"``, ``"mm"``), as ``{attr: text}``; None when the unit is
    not understood or needs a non-integer exponent (``"N/m1.5"``).  The unit algebra is the
    exporter's (:func:`wearcosim.export.units.dim`)."""
    from ..export import units
    if not unit.strip():
        return None
    try:
        d = units.dim(unit.strip())
    except units.UnitError:
        return None
    out = {k: str(v) for k, v in zip(units.BASE, d.exps) if v}
    if d.factor != 1.0:
        out["factor"] = repr(d.factor)
    if d.offset != 0.0:
        out["offset"] = repr(d.offset)
    return out


# ---------------------------------------------------------------------------------- writing

def _fmt_real(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "INF" if x > 0 else "-INF"
    return repr(float(x))


def _parameter_set_el(name: str, values: dict):
    ps = etree.Element(_q("ssv", "ParameterSet"), nsmap={"ssv": NS["ssv"]})
    ps.set("version", "1.0")
    ps.set("name", name)
    params = etree.SubElement(ps, _q("ssv", "Parameters"))
    for k, v in values.items():
        p = etree.SubElement(params, _q("ssv", "Parameter"))
        p.set("name", k)
        if isinstance(v, bool):
            etree.SubElement(p, _q("ssv", "Boolean")).set("value", "true" if v else "false")
        elif isinstance(v, int):
            etree.SubElement(p, _q("ssv", "Integer")).set("value", str(v))
        elif isinstance(v, float):
            etree.SubElement(p, _q("ssv", "Real")).set("value", _fmt_real(v))
        elif isinstance(v, str):
            etree.SubElement(p, _q("ssv", "String")).set("value", v)
        else:
            try:
                f = float(v)                  # numpy scalars and the like
            except (TypeError, ValueError):
                raise SSPError(f"parameter {k!r}: cannot write a value of type {type(v).__name__}") from None
            etree.SubElement(p, _q("ssv", "Real")).set("value", _fmt_real(f))
    return ps


def _bindings_el(parent, name: str, values: dict):
    if not values:
        return
    pbs = etree.SubElement(parent, _q("ssd", "ParameterBindings"))
    pb = etree.SubElement(pbs, _q("ssd", "ParameterBinding"))
    pv = etree.SubElement(pb, _q("ssd", "ParameterValues"))
    pv.append(_parameter_set_el(name, values))


def _connectors_el(parent, connectors):
    if not connectors:
        return
    cs = etree.SubElement(parent, _q("ssd", "Connectors"))
    for c in connectors:
        el = etree.SubElement(cs, _q("ssd", "Connector"))
        el.set("name", c.name)
        if c.description:
            el.set("description", c.description)
        el.set("kind", c.kind)
        if c.type:
            t = etree.SubElement(el, _q("ssc", c.type))
            if c.type == "Real" and c.unit:
                t.set("unit", c.unit)
            if c.type == "Enumeration":
                t.set("name", c.enumeration)


def _annotations_el(parent, annotations, pending: list):
    """An empty ssd:Annotations now; its ssc:Annotation elements are added after the tree is
    indented (:func:`_fill_annotations`), so that their content is written as it was read."""
    if not annotations:
        return
    pending.append((etree.SubElement(parent, _q("ssd", "Annotations")), annotations))


def _fill_annotations(pending: list):
    for anns, texts in pending:
        depth = sum(1 for _ in anns.iterancestors())
        inner, outer = "\n" + "  " * (depth + 1), "\n" + "  " * depth
        anns.text = inner
        for i, text in enumerate(texts):
            el = etree.fromstring(text, _parser())
            el.tail = inner if i < len(texts) - 1 else outer
            anns.append(el)


def _oriented(system: System, c: Connection) -> Connection:
    """The connection with its source first (when the kinds say which end is which)."""
    from .validate import flow
    f = flow(system, c)
    if f is not None and f[0] == (c.end_element, c.end_connector):
        return Connection(c.end_element, c.end_connector, c.start_element, c.start_connector)
    return c


def to_xml(system: System) -> bytes:
    """The SSD (SSP 1.0) of ``system`` as UTF-8 bytes."""
    root = etree.Element(_q("ssd", "SystemStructureDescription"),
                         nsmap={"ssd": NS["ssd"], "ssc": NS["ssc"], "ssv": NS["ssv"]})
    root.set("version", "1.0")
    root.set("name", system.ssd_name or system.name)
    pending = []
    sel = etree.SubElement(root, _q("ssd", "System"))
    sel.set("name", system.name)
    if system.description:
        sel.set("description", system.description)
    _connectors_el(sel, system.connectors)
    _bindings_el(sel, system.name, system.parameters)
    if system.components:
        els = etree.SubElement(sel, _q("ssd", "Elements"))
        for comp in system.components:
            ce = etree.SubElement(els, _q("ssd", "Component"))
            ce.set("name", comp.name)
            if comp.description:
                ce.set("description", comp.description)
            ce.set("type", FMU_TYPE)
            ce.set("source", comp.source)
            if comp.implementation and comp.implementation != "any":
                ce.set("implementation", comp.implementation)
            _connectors_el(ce, comp.connectors)
            _bindings_el(ce, comp.name, comp.parameters)
            _annotations_el(ce, comp.annotations, pending)
    if system.connections:
        cons = etree.SubElement(sel, _q("ssd", "Connections"))
        for c in system.connections:
            c = _oriented(system, c)
            ce = etree.SubElement(cons, _q("ssd", "Connection"))
            if c.start_element is not None:
                ce.set("startElement", c.start_element)
            ce.set("startConnector", c.start_connector)
            if c.end_element is not None:
                ce.set("endElement", c.end_element)
            ce.set("endConnector", c.end_connector)
    _annotations_el(sel, system.annotations, pending)
    if system.enumerations:
        enums = etree.SubElement(root, _q("ssd", "Enumerations"))
        for text in system.enumerations:
            enums.append(etree.fromstring(text, _parser()))
    units = {}
    for conn in list(system.connectors) + [c for comp in system.components for c in comp.connectors]:
        if conn.type == "Real" and conn.unit and conn.unit not in units:
            bu = system.units.get(conn.unit)
            if bu is None:
                bu = base_unit(conn.unit)
            if bu is not None:               # not understood: no definition rather than a wrong one
                units[conn.unit] = bu
    for name, bu in system.units.items():
        units.setdefault(name, bu)
    if units:
        ue = etree.SubElement(root, _q("ssd", "Units"))
        for name, bu in units.items():
            u = etree.SubElement(ue, _q("ssc", "Unit"))
            u.set("name", name)
            b = etree.SubElement(u, _q("ssc", "BaseUnit"))
            for k, v in bu.items():
                b.set(k, str(v))
    if system.start_time is not None or system.stop_time is not None or system.experiment_annotations:
        de = etree.SubElement(root, _q("ssd", "DefaultExperiment"))
        if system.start_time is not None:
            de.set("startTime", _fmt_real(system.start_time))
        if system.stop_time is not None:
            de.set("stopTime", _fmt_real(system.stop_time))
        _annotations_el(de, system.experiment_annotations, pending)
    _annotations_el(root, system.ssd_annotations, pending)
    etree.indent(root, space="  ")
    _fill_annotations(pending)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="UTF-8", pretty_print=True)


def write_ssd(system: System, dest: str | Path) -> Path:
    """Write the SSD of ``system`` to ``dest`` atomically; the components' ``source`` are
    written as they are (relative to ``dest``'s folder: the caller's to keep valid)."""
    dest = Path(dest)
    data = to_xml(system)
    with atomic_path(dest) as tmp:
        tmp.write_bytes(data)
    return dest


def _resource_names(system: System) -> dict:
    """component name -> archive member ``resources/<stem>.fmu`` (one per FMU file; two
    different files of one name get ``<stem>_2.fmu``, ...)."""
    by_file, used, out = {}, set(), {}
    for comp in system.components:
        if comp.path is None:
            raise SSPError(f"{system.where}: component {comp.name!r}: the FMU {comp.source!r} is not available "
                           f"(read the system with its FMUs)")
        key = os.path.realpath(comp.path)
        if key not in by_file:
            stem = safe_stem(Path(comp.source).stem, "component")   # wearcosim.names: the one rule
            name, i = f"resources/{stem}.fmu", 1
            while name in used:
                i += 1
                name = f"resources/{stem}_{i}.fmu"
            used.add(name)
            by_file[key] = name
        out[comp.name] = by_file[key]
    return out


# ------------------------------------------------------------------ interface, container

#: FMI types a system connector of :func:`with_interface` carries (what both our container and
#: fmu-manipulation-toolbox's move; String and Enumeration variables are not exposed)
EXPOSED_TYPES = ("Real", "Integer", "Boolean")


def _start(v: Any) -> Any:
    """The start value of an FMI 2.0 variable as a Python value of its type (None: none)."""
    raw = getattr(v, "start", None)
    if raw is None:
        return None
    try:
        if v.type == "Real":
            return float(raw)
        if v.type == "Integer":
            return int(raw)
        if v.type == "Boolean":
            return raw if isinstance(raw, bool) else str(raw).strip() in ("true", "1")
    except (TypeError, ValueError):
        return None
    return None


def with_interface(system: System) -> System:
    """A copy of ``system`` whose interface is declared as connectors of the system (SSP 1.0
    5.3.2: "System input -> Element input", "Element output -> System output"):

    * every component input that no connection feeds (the wear profile ``wearDepth[...]``
      that the wear master sets, any other free input) becomes a system input named
      ``<component>.<variable>`` connected to it;
    * every component output becomes a system output ``<component>.<variable>`` fed by it
      (the signals a user records), connected or not.

    The names are the SSP hierarchical names of those variables (SSP 5.3.3: "prepending the
    element name and a dot"), the names our container gives them.  The components get the
    connectors these connections use (causality, type, unit from their FMUs).  Real, Integer
    and Boolean variables are exposed (:data:`EXPOSED_TYPES`); what is already connected to
    a system connector, and names the system already uses, are left as they are.  This is the
    form fmu-manipulation-toolbox builds a container from (its inputs and outputs); libcosim
    cannot load it (docs/systems.md, "SSP in other tools").  Raises :class:`SSPError` when a
    component's FMU cannot be read."""
    from .validate import interface
    s = copy.deepcopy(system)
    its = {}
    for comp in s.components:
        if comp.path is None:
            raise SSPError(f"{s.where}: component {comp.name!r}: the FMU {comp.source!r} is not available "
                           f"(read the system with its FMUs)")
        it = interface(comp.path)
        if it.error:
            raise SSPError(f"{s.where}: component {comp.name!r}: FMU {comp.source!r}: {it.error}")
        its[comp.name] = it

    def causality(elem, conn):
        it = its.get(elem) if elem is not None else None
        v = it.variables.get(conn) if it is not None else None
        return v.causality if v is not None else None

    fed, exposed = set(), set()
    for c in s.connections:
        for elem, conn, other in ((c.start_element, c.start_connector, c.end_element),
                                  (c.end_element, c.end_connector, c.start_element)):
            kind = causality(elem, conn)
            if kind == "input":
                fed.add((elem, conn))
            if other is None and elem is not None:
                exposed.add((elem, conn))
    used = {c.name for c in s.connectors}
    for comp in s.components:
        it = its[comp.name]
        declared = {c.name for c in comp.connectors}
        for v in it.md.modelVariables:
            if v.causality not in ("input", "output") or v.type not in EXPOSED_TYPES:
                continue
            if (comp.name, v.name) in exposed or (v.causality == "input" and (comp.name, v.name) in fed):
                continue
            name = f"{comp.name}.{v.name}"
            if name in used:
                continue
            used.add(name)
            unit = it.unit(v.name) if v.type == "Real" else ""
            conn = Connector(v.name, v.causality, v.type, unit, v.description or "")
            if v.name not in declared:
                comp.connectors.append(conn)
                declared.add(v.name)
            s.connectors.append(dataclasses.replace(conn, name=name))
            if v.causality == "input":
                s.connections.append(Connection(None, name, comp.name, v.name))
                # its value until a master sets it: the component's binding, else the FMU's start
                value = comp.parameters.get(v.name, _start(v))
                if value is not None:
                    s.parameters[name] = value
            else:
                s.connections.append(Connection(comp.name, v.name, None, name))
    return s


def container_system(system: System, fmu: str | Path) -> System:
    """``system`` with its strongly coupled container FMU ``fmu`` (built by
    :func:`wearcosim.system.run.container_fmu`) as the one component, named like the system,
    ``implementation="CoSimulation"``: the parameter bindings of the components and of the
    system are bound on the container under the container's names
    (``<component>.<variable>``); the default experiment, units, description and the system's
    annotations are kept.  The container's inputs (the free inputs of the components, e.g.
    ``joint.wearDepth[k]``) and outputs (every output of every component) are its own
    variables: nothing is connected, so libcosim and any SSP importer run it as it is."""
    fmu = Path(fmu)
    params = {}
    for comp in system.components:
        params.update({f"{comp.name}.{k}": v for k, v in comp.parameters.items()})
    params.update(system.parameters)       # system-level bindings win (SSP 5.3.3)
    comp = Component(system.name, f"{safe_stem(system.name, 'system')}.fmu", path=fmu, parameters=params,
                     implementation="CoSimulation",
                     description=f"the strongly coupled container of {len(system.components)} component FMU(s)")
    return System(name=system.name, components=[comp], description=system.description, file=system.file,
                  start_time=system.start_time, stop_time=system.stop_time, ssd_name=system.ssd_name,
                  units=dict(system.units), annotations=list(system.annotations),
                  ssd_annotations=list(system.ssd_annotations),
                  experiment_annotations=list(system.experiment_annotations))


#: the tunable parameter of wearcosim's Co-Simulation FMUs that extrapolates the inputs an
#: importer holds (fmu/runtime/rt_eval.c, "input extrapolation")
INPUT_EXTRAPOLATION = "solver.inputExtrapolation"


def with_input_extrapolation(system: System) -> System:
    """A copy of ``system`` in which every component whose FMU has continuous Real inputs and
    the parameter :data:`INPUT_EXTRAPOLATION` gets it bound to 1 (a binding the component
    already has is kept): for masters that hold inputs over a step (libcosim), which then
    co-simulate with inputs extrapolated through the last two communication points."""
    from fmpy import read_model_description
    out = copy.deepcopy(system)
    for comp in out.components:
        if INPUT_EXTRAPOLATION in comp.parameters:
            continue
        md = read_model_description(str(comp.path))
        names = {v.name for v in md.modelVariables}
        if INPUT_EXTRAPOLATION in names and any(v.causality == "input" and v.type == "Real"
                                                for v in md.modelVariables):
            comp.parameters = {**comp.parameters, INPUT_EXTRAPOLATION: 1}
    return out


def write_ssp(system: System, dest: str | Path, *, container: bool | str | Path = False, interface: bool = False,
              input_extrapolation: bool = False, cache_dir: str | Path | None = None,
              log: Callable[[str], Any] = print) -> Path:
    """Bundle ``system`` into the archive ``dest`` atomically: ``SystemStructure.ssd`` (the
    sources rewritten to ``resources/<name>.fmu``) and the FMU files of the components.

    ``container``: True puts the system's strongly coupled container FMU in as the one
    component (:func:`container_system`; built by :func:`wearcosim.system.run.container_fmu`
    in ``cache_dir``, default a temporary folder removed afterwards), or the path of a container
    FMU already built for this system.  ``interface``: declare the system's interface as
    system connectors (:func:`with_interface`).  Nothing but ``dest`` (and the cache, when
    named) is written.  ``input_extrapolation``: bind :data:`INPUT_EXTRAPOLATION` = 1 on
    every component that has it (:func:`with_input_extrapolation`; not with ``container``,
    whose components are coupled inside it)."""
    dest = Path(dest)
    if input_extrapolation and container is not False and container is not None:
        raise SSPError(f"{system.where}: input extrapolation is for the components co-simulated by another "
                       f"master; inside the container they are strongly coupled (choose one of the two)")
    if input_extrapolation:
        system = with_input_extrapolation(system)
    if container is not False and container is not None:
        if container is True:
            import tempfile
            from contextlib import nullcontext
            from .run import container_fmu
            folder = (nullcontext(cache_dir) if cache_dir is not None else
                      tempfile.TemporaryDirectory(prefix="wearcosim-container-", ignore_cleanup_errors=True))
            with folder as d:
                return write_ssp(container_system(system, container_fmu(system, d, log)), dest, interface=interface)
        else:
            if not Path(container).is_file():
                raise SSPError(f"{system.where}: container FMU {str(container)!r}: no such file")
            system = container_system(system, container)
    if interface:
        system = with_interface(system)
    names = _resource_names(system)
    for comp in system.components:
        if not Path(comp.path).is_file():
            raise SSPError(f"{system.where}: component {comp.name!r}: FMU {comp.source!r}: no such file")
    packed = copy.deepcopy(system)
    for comp in packed.components:
        comp.source = names[comp.name]
    data = to_xml(packed)
    with atomic_path(dest) as tmp:
        with zipfile.ZipFile(tmp, "w") as z:
            z.writestr(zipfile.ZipInfo(SSD_FILE, date_time=(1980, 1, 1, 0, 0, 0)), data,
                       compress_type=zipfile.ZIP_DEFLATED)
            done = set()
            for comp in system.components:
                member = names[comp.name]
                if member in done:
                    continue
                done.add(member)
                info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED          # an FMU is a zip already
                info.external_attr = 0o644 << 16
                with open(comp.path, "rb") as src, z.open(info, "w") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
    return dest


# ---------------------------------------------------------------------------------- schemas

def schema_dir(version: str = "1.0") -> Path | None:
    """The folder of the SSP XSDs of ``version`` ("1.0" or "2.0"), or None (see the module
    docstring)."""
    env = os.environ.get("WEARCOSIM_SSP_SCHEMAS", "").strip()
    cands = []
    if env:
        cands.append(Path(env))
    else:
        try:
            spec = importlib.util.find_spec("pyssp_standard")
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            cands.append(Path(list(spec.submodule_search_locations)[0]) / "resources")
    for d in cands:
        d = d / "ssp2" if version == "2.0" and (d / "ssp2").is_dir() else d
        if (d / "SystemStructureDescription.xsd").is_file() and (d / "SystemStructureParameterValues.xsd").is_file():
            return d
    return None


@functools.lru_cache(maxsize=8)
def _schema(folder: str, kind: str):
    main = {"ssd": ("ssd", "SystemStructureDescription.xsd"), "ssv": ("ssv", "SystemStructureParameterValues.xsd")}
    imports = [main[kind]] + ([main["ssv"]] if kind == "ssd" else [])
    wrapper = ('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
               + "".join(f'<xs:import namespace="{NS[p]}" schemaLocation="{(Path(folder) / f).as_uri()}"/>'
                         for p, f in imports)
               + "</xs:schema>")
    return etree.XMLSchema(etree.fromstring(wrapper.encode()))


def schema_problems(doc: Any, where: str, kind: str = "ssd", version: str = "1.0") -> list[str]:
    """Problems of ``doc`` (an lxml element or XML bytes) against the SSP schema of ``kind``
    ("ssd" or "ssv"), one line each (``where:LINE: schema: ...``); None when the schemas
    are not available."""
    folder = schema_dir(version if version in VERSIONS else "1.0")
    if folder is None:
        return None
    try:
        schema = _schema(str(folder), kind)
    except etree.XMLSchemaParseError as exc:
        return [f"{where}: cannot load the SSP schemas of {folder}: {one_line(exc)}"]
    root = doc if isinstance(doc, etree._Element) else etree.fromstring(doc, _parser())
    if schema.validate(etree.ElementTree(root)):
        return []
    out = []
    for e in schema.error_log:
        msg = e.message
        for p, uri in NS.items():
            msg = msg.replace("{" + uri + "}", p + ":")
        out.append(f"{where}:{e.line}: schema: {one_line(msg)}")
    return out
