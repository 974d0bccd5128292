"""Third SSP importer: fmu-manipulation-toolbox (Renault, PyPI ``fmu-manipulation-toolbox``,
2-clause BSD; tested with 2.0), whose ``fmucontainer`` builds a Co-Simulation container FMU
from an ``.ssp``.

What its SSP reader takes (``fmu_manipulation_toolbox/assembly.py``, ``Assembly.read_ssp`` and
``SSDParser``, 2.0; the same in its repository's main branch of 2026-07-14): the FMUs of the
archive (every ``*.fmu`` member, extracted flat into ``<ssp stem>.dir/`` beside the archive),
and of ``SystemStructure.ssd`` only the ``ssd:System``, ``ssd:Component`` (``name``,
``source``) and ``ssd:Connection`` elements:

* a connection between two components is a link;
* a connection from a component's output to a *system* connector is an output of the
  container, named after the system connector; one from a system connector to a component's
  input is an input of the container (a component parameter may be fed that way too);
* the automatic wiring (``auto_input``, ``auto_output``, ``auto_link``, ``auto_parameter``)
  is switched off for SSP, so an SSD without system connectors gives a container without
  inputs or outputs, and every component input left unconnected is logged
  ``ERROR | Input '...' is not connected`` (the build goes on; the input keeps the FMU's start
  value, as SSP 5.3.2 says);
* ``ssd:ParameterBindings`` are not read at all, inline or ``.ssv``, of components or of the
  system; nor are ``ssd:Connectors`` (types and kinds come from the FMUs), units,
  ``ssd:DefaultExperiment`` or annotations.  The container's step is the ``:STEP`` suffix
  of ``-container FILE.ssp:STEP``, else the FMUs' DefaultExperiment ``stepSize``, else 0.1 s.

The container steps its FMUs at a fixed step (``container/container.c``): by default all
inputs are set from the outputs of the previous step, every FMU steps, then all outputs are
read (a Jacobi scheme, like libcosim's; ``sequential=True``: in the order of the SSD, each
FMU's inputs set just before its step, Gauss-Seidel).  Start values of the embedded FMUs'
variables (its ``add_start_value``, the ``start`` of its JSON and CSV descriptions) are set
after fmi2SetupExperiment, before initialisation.

So from our ``.ssp``: :func:`wearcosim.system.ssp.write_ssp` with ``interface=True`` declares
the system's inputs and outputs as system connectors, which gives the container its inputs
and outputs; the parameter bindings, which the tool drops, are added by :func:`build_container`
through the tool's own API as start values of the embedded FMUs.
"""
from __future__ import annotations

import logging
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOGGER = "fmu_manipulation_toolbox"


def available() -> bool:
    try:
        import fmu_manipulation_toolbox.assembly  # noqa: F401
        return True
    except ImportError:
        return False


def version() -> str:
    """The installed fmu-manipulation-toolbox's version ("" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version as v
    try:
        return v("fmu-manipulation-toolbox")
    except PackageNotFoundError:
        return ""


@dataclass
class Built:
    """What :func:`build_container` built: the container FMU, the start values it was given
    (``(component, variable, text)``, one per parameter binding), the container's inputs and
    outputs (``{container name: "component.variable"}``) and what the tool logged as errors and
    warnings, one line each."""
    fmu: Path
    start_values: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _text(value: Any) -> str:
    """A binding's value as the tool's start-value text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def build_container(ssp: str | Path, dest: str | Path, step: float, *, sequential: bool = False,
                    bindings: bool = True) -> Built:
    """Build fmu-manipulation-toolbox's container FMU of the ``.ssp`` ``ssp`` into ``dest``
    (written atomically; nothing else is written outside a temporary folder), with the fixed
    step ``step`` [s] (Jacobi; ``sequential=True``: Gauss-Seidel in the order of the SSD).

    The tool reads the archive itself (components, links, system connectors: the container's
    inputs and outputs); with ``bindings`` (default) every parameter binding of the SSD, which
    its reader drops (module docstring), is given to it as a start value of the embedded FMU's
    variable.  A system-level binding naming a system connector sets the container input's
    start; one naming no component variable is refused.  Raises ImportError without the tool,
    ValueError (one line) for what it or our reader refuses."""
    from fmu_manipulation_toolbox.assembly import Assembly, AssemblyError
    from fmu_manipulation_toolbox.container import FMUContainerError

    from ..atomic import atomic_path
    from ..system.ssp import open_system
    ssp, dest = Path(ssp), Path(dest)
    if not (isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0):
        raise ValueError(f"step must be a number > 0, not {step!r}")
    with open_system(ssp, extract=False) as system:
        comps = [(c.name, dict(c.parameters)) for c in system.components]
        sysparams = dict(system.parameters)
        # as the tool reads them: no startElement, a container input; no endElement, an output
        inputs = {x.start_connector: f"{x.end_element}.{x.end_connector}" for x in system.connections
                  if x.start_element is None and x.end_element is not None}
        outputs = {x.end_connector: f"{x.start_element}.{x.start_connector}" for x in system.connections
                   if x.end_element is None and x.start_element is not None}
    tmp = Path(tempfile.mkdtemp(prefix="wearcosim-fmutool-"))
    log = logging.getLogger(LOGGER)
    handler = _Records()
    log.addHandler(handler)
    try:
        stem = "system"
        shutil.copyfile(ssp, tmp / f"{stem}.ssp")
        try:
            asm = Assembly(f"{stem}.ssp", fmu_directory=tmp, default_step_size=step, default_sequential=sequential)
            names = list(asm.root.fmu_names_list)      # the components, in the order of the SSD
            if len(names) != len(comps):
                raise ValueError(f"{ssp}: fmu-manipulation-toolbox read {len(names)} FMU(s) for "
                                 f"{len(comps)} component(s)")
            starts = []
            if bindings:
                fmu_of = {c: n for (c, _), n in zip(comps, names)}
                for (cname, params), fmu_name in zip(comps, names):
                    for var, value in params.items():
                        starts.append((cname, var, _text(value)))
                        asm.root.add_start_value(fmu_name, var, _text(value))
                for name, value in sysparams.items():
                    target = inputs.get(name)
                    if target is None:
                        cname, _, var = name.partition(".")
                        if cname not in fmu_of or not var:
                            raise ValueError(f"{ssp}: system parameter binding {name!r}: no component variable "
                                             f"or system input of that name to set in the container")
                        target = name
                    cname, _, var = target.partition(".")
                    starts.append((cname, var, _text(value)))
                    asm.root.add_start_value(fmu_of[cname], var, _text(value))
            asm.make_fmu()
        except (AssemblyError, FMUContainerError) as exc:
            reason = getattr(exc, "reason", None) or str(exc)
            raise ValueError(f"{ssp}: fmu-manipulation-toolbox: {' '.join(str(reason).split())}") from None
        built = tmp / f"{stem}.fmu"
        if not built.is_file():
            raise ValueError(f"{ssp}: fmu-manipulation-toolbox built no container")
        with atomic_path(dest) as out:
            shutil.copyfile(built, out)
    finally:
        log.removeHandler(handler)
        shutil.rmtree(tmp, ignore_errors=True)
    errors = [" ".join(r.getMessage().split()) for r in handler.records if r.levelno >= logging.ERROR]
    warnings = [" ".join(r.getMessage().split()) for r in handler.records if r.levelno == logging.WARNING]
    return Built(dest, starts, inputs, outputs, errors, warnings)
