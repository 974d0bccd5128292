"""The wear interface: what an FMU must expose to be driven by the wear master.

Names are relative to an optional prefix (``prefix=""`` for the library's FMUs, whose
interface is at the top level; e.g. ``prefix="joint."`` for an FMU that exposes a
sub-component's variables).

| name                 | causality            | unit | meaning |
|----------------------|----------------------|------|---------|
| ``wearDepth[i]``     | input (Real), i=1..n | m    | wear depth of the worn body on sector i; sector i centred at (i - 1/2) 2 pi / n in the worn body's frame |
| ``Fn``               | output               | N    | normal force of the solid contact (>= 0) |
| ``Ft``               | output               | N    | tangential (friction) force of the solid contact |
| ``delta``            | output               | m    | penetration (> 0 in contact) |
| ``theta``            | output               | rad  | contact angle in the worn body's frame |
| ``vSlip``            | output               | m/s  | tangential slip velocity at the contact |
| ``halfWidth``        | output               | m    | Hertz line-contact half-width |
| ``inContact``        | output (Boolean)     |      | contact flag |
| ``nSectors``         | parameter/constant   |      | number of sectors n (or inferred from the ``wearDepth`` inputs) |
| ``R_bearing``        | parameter (any kind) | m    | radius of the worn surface (unworn) |
| ``L``                | parameter            | m    | axial contact length |

Profile surfaces (a gear flank) replace the angle by a length: ``sContact`` (output, m,
contact position along the worn profile) instead of ``theta``, and ``profileLength``
(parameter, m) instead of ``R_bearing``; sector i is centred at (i - 1/2) profileLength / n.

The wear profile is an *input* because OpenModelica exports parameters with
``variability="fixed"``: only inputs can be rewritten between steps in every FMI tool.
FMUs built by other tools that expose the profile as tunable parameters instead are
driven through them (see :func:`describe`).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTPUTS = ("Fn", "Ft", "delta", "theta", "vSlip", "halfWidth")
FLAG = "inContact"
GEOMETRY = ("R_bearing", "L")
RADIUS_ALIASES = ("R_bearing", "R_stator", "R_worn")
PROFILE = ("sContact", "profileLength")   # position output and extent of a profile surface


@dataclass
class WearPorts:
    prefix: str
    depth_names: list
    update: str                       # "input" | "tunable" | "reset"
    outputs: dict = field(default_factory=dict)   # logical -> FMU name
    radius_name: str = ""
    length_name: str = ""
    profile_name: str = ""            # profile surfaces: the extent parameter (radius_name empty)

    @property
    def circular(self) -> bool:
        return not self.profile_name

    @property
    def n(self) -> int:
        return len(self.depth_names)


def variables(md: Any) -> dict[str, Any]:
    """name -> model variable of ``md``, with the elements of FMI 3.0 arrays as entries of their
    own (``x[1]``..``x[n]``, row-major ``a[i,j]`` for more dimensions; each maps to its array's
    variable); a scalar whose name looks like an element keeps its entry."""
    out = {v.name: v for v in md.modelVariables}
    for v in md.modelVariables:
        shape = tuple(getattr(v, "shape", None) or ())
        if not shape:
            continue
        for idx in itertools.product(*(range(1, n + 1) for n in shape)):
            out.setdefault(f"{v.name}[{','.join(map(str, idx))}]", v)
    return out


def unit_of(v: Any) -> str:
    """The unit of a model variable (its own, else its declared type's); '' if none."""
    u = getattr(v, "unit", None) or (getattr(v.declaredType, "unit", None) if getattr(v, "declaredType", None) else None)
    return u or ""


def describe(md: Any, prefix: str = "") -> WearPorts:
    """Find the wear interface in a model description (fmpy ``ModelDescription``, FMI 2.0 or
    3.0); raises ``ValueError`` listing everything that is missing.  In FMI 3.0 the profile is
    one array variable ``wearDepth`` of n elements (``<Dimension>``): its elements are named
    ``wearDepth[1]``..``wearDepth[n]`` as the FMI 2.0 scalars are (the runners address them by
    these names), so the rest of the master does not see the difference."""
    vars_ = variables(md)
    pat = re.compile(re.escape(prefix + "wearDepth") + r"\[(\d+)\]$")
    depth = sorted(((int(m.group(1)), n) for n in vars_ if (m := pat.match(n))), key=lambda x: x[0])
    problems = []
    if not depth:
        problems.append(f"no {prefix}wearDepth[i] variables")
    else:
        idx = [i for i, _ in depth]
        if idx != list(range(1, len(idx) + 1)):
            problems.append(f"{prefix}wearDepth indices are not 1..n: {idx[:5]}...")
    depth_names = [n for _, n in depth]
    causes = {vars_[n].causality for n in depth_names}
    variab = {vars_[n].variability for n in depth_names}
    if causes == {"input"}:
        update = "input"
    elif causes == {"parameter"} and variab == {"tunable"}:
        update = "tunable"
    elif causes == {"parameter"}:
        update = "reset"
    else:
        update = "?"
        if depth_names:
            problems.append(f"{prefix}wearDepth[i] must be inputs (or parameters), found {sorted(causes)}")
    profile = prefix + PROFILE[1] in vars_ and prefix + PROFILE[0] in vars_ and prefix + "theta" not in vars_
    outs = {}
    for o in OUTPUTS + (FLAG,):
        if profile and o == "theta":
            o = PROFILE[0]
        n = prefix + o
        if n not in vars_:
            problems.append(f"missing output {n}")
        else:
            outs["theta" if o == PROFILE[0] else o] = n     # "theta": the position output
            if vars_[n].causality not in ("output", "local"):
                problems.append(f"{n} has causality {vars_[n].causality}, expected output")
    radius = "" if profile else next((prefix + r for r in RADIUS_ALIASES if prefix + r in vars_), "")
    if not radius and not profile:
        problems.append(f"missing geometry parameter {prefix}R_bearing (radius of the worn surface)")
    length = prefix + "L" if prefix + "L" in vars_ else ""
    if not length:
        problems.append(f"missing geometry parameter {prefix}L (contact length)")
    if prefix + "nSectors" in vars_ and depth_names:
        start = vars_[prefix + "nSectors"].start
        try:
            if start is not None and int(float(start)) != len(depth_names):
                problems.append(f"nSectors = {start} but {len(depth_names)} wearDepth variables")
        except ValueError:
            pass
    for n in depth_names[:1] + [outs.get("delta", ""), outs.get("halfWidth", "")] + ([outs.get("theta", "")] if profile else []):
        if n and getattr(vars_[n], "unit", None) not in (None, "", "m"):
            problems.append(f"{n} has unit {vars_[n].unit}, expected m")
    if problems:
        raise ValueError("; ".join(problems))
    return WearPorts(prefix, depth_names, update, outs, radius, length, prefix + PROFILE[1] if profile else "")


def check(fmu: str | Path, prefix: str = "") -> list[str]:
    """Problems of ``fmu`` with the wear interface (empty list: fine)."""
    from fmpy import read_model_description
    try:
        describe(read_model_description(str(fmu)), prefix)
    except ValueError as exc:
        return str(exc).split("; ")
    return []
