"""The in-memory form of a system of FMUs (the subset of SSP 1.0 / 2.0 the project uses).

Plain dataclasses, no I/O: :mod:`wearcosim.system.ssp` reads and writes them from/to
``.ssd`` files and ``.ssp`` archives, :mod:`wearcosim.system.validate` checks them against
the components' model descriptions, the masters run them.

Names follow SSP: a connection joins ``(element, connector)`` pairs; ``element`` is a
component name, or ``None`` for a connector of the system itself (a system input feeds
component inputs, a system output is fed by a component output).  As in SSP, ``start`` and
``end`` say nothing of the direction of the data flow (the kinds of the two connectors do;
:func:`wearcosim.system.validate.flow` orients a connection, the writer writes the source
first, which libcosim requires).

Lists, not dicts, hold the components, connectors and connections, so that a file that names
two components alike is represented as it is and :mod:`.validate` can say so.  Besides the
names, kinds, types, units, connections and parameter values, a system keeps what a faithful
rewrite needs: unit definitions, enumerations, annotations (``ssc:Annotation`` elements kept
as XML text, not interpreted).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

KINDS = ("input", "output", "parameter", "calculatedParameter", "inout")
#: further kinds of SSP 2.0 (read, never matched by an FMI 2.0 variable except ``local``)
KINDS_SSP2 = ("structuralParameter", "constant", "local", "unspecified")
TYPES = ("Real", "Integer", "Boolean", "String", "Enumeration")


class SSPError(ValueError):
    """A system description that cannot be read or written (bad XML, not an SSD, an unsafe
    ``source``, an unsupported SSP feature, ...) or a system without an evaluation order.
    The message is one line and starts with the file it concerns."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


@dataclass
class Connector:
    """A port: ``kind`` in KINDS, ``type`` in TYPES, ``unit`` as in the FMU (SI, "" if none)."""
    name: str
    kind: str
    type: str = "Real"
    unit: str = ""
    description: str = ""
    enumeration: str = ""          # type "Enumeration": the name of its ssd:Enumerations entry


@dataclass
class Component:
    """One FMU of the system.  ``source`` is the URI as written in the SSD (relative to the
    SSD's folder, or to the archive root for an ``.ssp``); ``path`` is where the FMU file
    actually is once resolved (set by the reader); ``parameters`` are start values applied
    before initialisation (SSP ParameterBindings, inline or from an ``.ssv``)."""
    name: str
    source: str
    path: Optional[Path] = None
    connectors: list = field(default_factory=list)          # [Connector]
    parameters: dict = field(default_factory=dict)          # variable name -> value
    implementation: str = "any"                             # SSP: any | ModelExchange | CoSimulation
    description: str = ""
    annotations: list = field(default_factory=list)         # ssc:Annotation elements, XML text

    def connector(self, name: str) -> Connector:
        for c in self.connectors:
            if c.name == name:
                return c
        raise KeyError(name)


@dataclass
class Connection:
    start_element: Optional[str]       # None: the system's own connector
    start_connector: str
    end_element: Optional[str]
    end_connector: str

    @property
    def start(self) -> str:
        return f"{self.start_element}.{self.start_connector}" if self.start_element else self.start_connector

    @property
    def end(self) -> str:
        return f"{self.end_element}.{self.end_connector}" if self.end_element else self.end_connector


@dataclass
class System:
    """A flat system (no nested sub-systems): components, the system's own connectors,
    connections, and where it came from (``file``: the .ssd/.ssp, for messages)."""
    name: str
    components: list = field(default_factory=list)          # [Component]
    connectors: list = field(default_factory=list)          # [Connector] of the system
    connections: list = field(default_factory=list)         # [Connection]
    description: str = ""
    file: Optional[Path] = None
    start_time: Optional[float] = None                      # DefaultExperiment
    stop_time: Optional[float] = None
    # --- kept for a faithful rewrite (see the module docstring)
    ssd_name: str = ""            # name of the SystemStructureDescription root ("" = the system's)
    version: str = "1.0"          # SSP version of the file read (written files are 1.0)
    base: Optional[Path] = None   # folder the components' sources resolve against (set by the reader)
    units: dict = field(default_factory=dict)               # unit name -> {BaseUnit attribute: text}
    enumerations: list = field(default_factory=list)        # ssc:Enumeration elements, XML text
    parameters: dict = field(default_factory=dict)          # system-level bindings naming no component
    annotations: list = field(default_factory=list)         # of ssd:System, XML text
    ssd_annotations: list = field(default_factory=list)     # of the SystemStructureDescription root
    experiment_annotations: list = field(default_factory=list)   # of ssd:DefaultExperiment
    schema_problems: list = field(default_factory=list, compare=False)  # XSD findings of the reader

    @property
    def where(self) -> str:
        """How messages name the system: its file, else its name."""
        return str(self.file) if self.file is not None else self.name

    def component(self, name: str) -> Component:
        for c in self.components:
            if c.name == name:
                return c
        raise KeyError(name)

    def connector(self, name: str) -> Connector:
        """A connector of the system itself."""
        for c in self.connectors:
            if c.name == name:
                return c
        raise KeyError(name)
