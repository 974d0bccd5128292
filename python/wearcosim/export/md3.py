"""FMI 3.0 ``modelDescription.xml`` of a generated model, and the value-reference table of the
FMI 3.0 C face (issue 35: FMI 3.0 export beside FMI 2.0).

The FMI 2.0 description (:func:`codegen.render_xml`) has one ScalarVariable per exported slot of
the value vector ``v``, its valueReference the slot index.  FMI 3.0 describes the same model
differently, and this module maps one onto the other:

- **Value references.**  FMI 3.0 value references are unique over all variables (FMI 2.0's are
  unique per base type: the String variables have their own 0..n-1).  They are dense and
  assigned in this order (:func:`fmi3_table`): 0 is the independent variable ``time``; then one
  per FMI 3.0 variable in the order of the exported FMI 2.0 slots (an array takes the place of
  its first element); then the String variables in the order of ``gen.strings``; last the event
  indicators.  The table's position of a variable is its value reference, so the C face finds
  it by indexing (``wc3_vars[vr]``).
- **Arrays.**  Consecutive exported slots named ``a[1] .. a[n]`` (``a[i,j]`` row-major for more
  dimensions) that make up all of ``a`` and agree in every attribute except ``start`` become ONE
  array variable ``a`` with a ``<Dimension start=..>`` per dimension and ``start`` as a list in
  row-major order (FMI 3.0, 2.2.6.3 serialisation); ``der(a[i])`` become ``der(a)``.  Where the
  elements differ in something an FMI 3.0 array variable holds once for all its elements
  (description, min, max, nominal, unit, ...), or where the elements are not a complete array
  in row-major order (an element eliminated as an alias of another variable, or hidden), the
  elements stay scalar variables named ``a[i]`` (the structured naming convention allows that).
  A state array and its derivative array are grouped together or not at all.
- **Aliases.**  FMI 3.0 has no second variable with the same value reference: an alias is an
  ``<Alias name=..>`` child of its variable, with that variable's type, causality and unit.
  An array variable takes an alias only as a whole (``b[i]`` an alias of ``a[i]`` for every i:
  ``<Alias name="b"/>``); otherwise the array stays scalars.
- **Event indicators** are variables in FMI 3.0 (``ModelStructure/EventIndicator`` refers to
  them by value reference): one local continuous Float64 array ``_eventIndicator`` holding the
  indicators in the runtime's order (``wc_zc``), the value reference after every other variable.
- **Dependencies** (``ModelStructure``) are by whole variable, and FMI 3.0 counts parameters,
  discrete-time states and time among the knowns (FMI 2.0: states and inputs).  They are
  computed here from the structural sparsity of the generated CasADi functions; an unknown that
  depends on the Newton unknowns of a nonlinear loop (or on parameters that the initial
  equations determine) gets no ``dependencies`` attribute, which FMI 3.0 reads as "depends on
  every known".

The C face needs the table only (:func:`render_table_c`): a value reference's first element
(slot of ``v``, index of ``mdl_str`` or of the event indicators) and element count.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable
from xml.sax.saxutils import escape, quoteattr

from .codegen import (LOG_CATEGORIES, META_ATTRS, Generated, Layout, _fmi_attrs, _fmt, _unit_attrs,
                      enum_types, fmi_name, unit_definitions)

#: FMI 3.0 variable element of a Modelica type (enumeration-typed Integers: ``Enumeration``)
TYPE3 = {"Real": "Float64", "Integer": "Int32", "Boolean": "Boolean"}

#: where a variable's values live (``Var3.where``; the C face's ``WC3_*`` of the same names)
TIME, SLOT, STRING, INDICATOR = "time", "slot", "string", "indicator"

#: the value reference of the independent variable
VR_TIME = 0

#: name of the event-indicator array (an underscore is appended while a model variable has it)
EVENT_INDICATOR_NAME = "_eventIndicator"

#: Co-Simulation capabilities of the FMI 3.0 face, besides those shared with Model Exchange: only
#: what fmu/runtime/fmi3_face.c does.  Early return (``mightReturnEarlyFromDoStep``): with
#: ``earlyReturnAllowed`` fmi3DoStep ends at the first state event inside the step, with
#: ``lastSuccessfulTime`` the event time.  Event mode: with ``eventModeUsed`` as well it ends
#: there before handling the event, for the importer to handle it in
#: fmi3EnterEventMode/fmi3UpdateDiscreteStates; without, events are handled inside the step as
#: the FMI 2.0 face does.  No intermediate update: the face accepts the callback and never calls
#: it, so ``providesIntermediateUpdate`` and ``canReturnEarlyAfterIntermediateUpdate`` (which
#: requires it, FMI 3.0 4.4) are false.  FMI 2.0's ``canInterpolateInputs``
#: (fmi2SetRealInputDerivatives) has no counterpart in FMI 3.0, which dropped input derivatives
#: for intermediate input values: inputs are held over a step.  ``maxOutputDerivativeOrder =
#: 1``: fmi3GetOutputDerivatives of order 1, as fmi2 does.
CS_CAPABILITIES = (
    ("canHandleVariableCommunicationStepSize", "true"),
    ("maxOutputDerivativeOrder", "1"),
    ("providesIntermediateUpdate", "false"),
    ("mightReturnEarlyFromDoStep", "true"),
    ("canReturnEarlyAfterIntermediateUpdate", "false"),
    ("hasEventMode", "true"),
)

_ELEMENT = re.compile(r"^(?P<base>[^']*[^\]'.])\[(?P<idx>[0-9]+(?:,[0-9]+)*)\]$")
_DER_ELEMENT = re.compile(r"^der\((?P<base>[^']*[^\]'.])\[(?P<idx>[0-9]+(?:,[0-9]+)*)\](?P<order>,[0-9]+)?\)$")


@dataclass(frozen=True)
class Var3:
    """One FMI 3.0 variable: a scalar or an array of consecutive FMI 2.0 slots (or Strings,
    or event indicators).  ``vr`` is its FMI 3.0 value reference and its position in the table;
    ``k`` its first element: the slot index in ``v`` (``where == SLOT``; the FMI 2.0 value
    reference of that element), the index in ``gen.strings`` (``STRING``) or of the event
    indicator (``INDICATOR``), -1 for time; ``n`` its number of elements, stored at k..k+n-1
    in row-major order; ``dims`` the sizes of its dimensions (``()`` for a scalar)."""
    vr: int
    name: str
    type: str                   # Float64 | Int32 | Boolean | Enumeration | String
    where: str                  # TIME | SLOT | STRING | INDICATOR
    k: int
    n: int
    dims: tuple
    causality: str
    variability: str
    initial: str                # "" for time (FMI 3.0: no initial on the independent variable)
    start: tuple | None         # one value per element (row-major), None without start
    description: str = ""
    derivative: int | None = None   # value reference of the state this variable is the derivative of
    aliases: tuple = ()         # ((name, description), ...)
    is_event_indicator: bool = False
    kind: str = ""              # the slots' MK_* kind (SLOT only)

    @property
    def elements(self) -> range:
        """Indices (slots, String or event-indicator indices) of the elements, row-major."""
        return range(self.k, self.k + self.n)


# ----------------------------------------------------------------------------- the table
def split_element(name: str) -> tuple | None:
    """(array name, 1-based subscripts) of an FMI name ``a.b[2,3]`` or ``der(a[2])`` /
    ``der(a[2],2)`` (then the array is ``der(a)`` / ``der(a,2)``); None for a name without
    trailing subscripts (a scalar, or ``a[1].b``: an element of an array of records)."""
    m = _DER_ELEMENT.match(name)
    if m:
        return f"der({m['base']}{m['order'] or ''})", tuple(int(i) for i in m["idx"].split(","))
    if name.startswith("der("):
        return None
    m = _ELEMENT.match(name)
    if m:
        return m["base"], tuple(int(i) for i in m["idx"].split(","))
    return None


def _box(indices: list) -> tuple | None:
    """The dimensions of an array whose elements' subscripts are ``indices`` when they are all
    of it in row-major order (1..d1 x 1..d2 ...), else None."""
    if not indices or len({len(i) for i in indices}) != 1:
        return None
    dims = tuple(max(i[d] for i in indices) for d in range(len(indices[0])))
    full = list(itertools.product(*(range(1, d + 1) for d in dims)))
    return dims if indices == full else None


def _derivative_description(s: Any, L: Layout) -> bool:
    """Whether derivative slot ``s`` has the description layout() gives every derivative (its
    state's name in it differs per element, so it does not stop grouping)."""
    return s.derivative_of >= 0 and s.description == f"Time derivative of {L.slots[L.off['X'] + s.derivative_of].name}"


def _signature(s: Any, L: Layout, k: int) -> tuple:
    """Everything an FMI 3.0 array variable holds once for all its elements, of slot ``k``:
    elements with equal signatures (and consecutive slots) can form an array."""
    caus, var, init, start = _fmi_attrs(s, L, k)
    desc = "$der" if _derivative_description(s, L) else s.description
    return (s.type, s.kind, caus, var, init, start is None, s.unit, s.display_unit, s.quantity,
            s.min, s.max, s.nominal, desc, s.enum.name if s.enum is not None else None,
            bool(s.reinit) if s.kind == "MK_STATE" else False)


def _runs(items: list) -> list:
    """Maximal runs of ``items`` ((index, name, signature), in index order) with consecutive
    indices, the same array name and the same signature: [(base, [(index, subscripts)])]."""
    runs = []
    for idx, name, sig in items:
        e = split_element(name)
        if e is None:
            continue
        base, sub = e
        if runs and runs[-1][0] == base and runs[-1][1] == sig and runs[-1][2][-1][0] == idx - 1:
            runs[-1][2].append((idx, sub))
        else:
            runs.append((base, sig, [(idx, sub)]))
    return [(base, els) for base, _, els in runs]


def _groups(runs: list, members: dict, plain: set, aliases_of: dict | None = None) -> dict:
    """{first index: (array name, dims, array aliases)} of the runs that are whole arrays: all
    the elements of their name among every name of the description (``members``), row-major,
    no scalar of that name, and aliases (``aliases_of``: index -> [(name, description)]) that
    are whole arrays element by element too."""
    out = {}
    for base, els in runs:
        subs = [s for _, s in els]
        dims = _box(subs)
        # not every element here (one eliminated as an alias, or hidden), or out of order
        if dims is None or len(members.get(base, ())) != len(els) or base in plain:
            continue
        arr_aliases = ()
        if aliases_of is not None:
            per = []
            for idx, sub in els:
                d = {}
                for name, desc in aliases_of.get(idx, ()):
                    e = split_element(name)
                    if e is None or e[1] != sub:
                        d = None        # an alias of one element only: FMI 3.0 cannot say it
                        break
                    d[e[0]] = desc
                per.append(d)
            if any(d is None or d != per[0] for d in per) or any(
                    len(members.get(b, ())) != len(els) or b in plain for b in per[0]):
                continue
            arr_aliases = tuple(per[0].items())
        out[els[0][0]] = (base, dims, arr_aliases)
    return out


def _unique_name(name: str, taken: set) -> str:
    while name in taken or any(t.startswith(name + "[") for t in taken):
        name += "_"
    return name


def _fmi3_description(text: str) -> str:
    """A description of the runtime's own (solver parameters, log categories) with the FMI 3.0
    names of the functions it names."""
    text = text.replace("fmi2SetupExperiment", "fmi3EnterInitializationMode")
    return re.sub(r"\bfmi2(?=[A-Z])", "fmi3", text)


def fmi3_table(gen: Generated) -> list[Var3]:
    """The FMI 3.0 variables of ``gen``, in value-reference order (``table[vr].vr == vr``):
    time, the exported slots (arrays grouped, see the module's text), the Strings, the event
    indicators.  Pure: it reads ``gen`` and changes nothing in it (the FMI 2.0 writer's
    side effects on the slots are neither needed nor made)."""
    L = gen.layout
    exported = [k for k, s in enumerate(L.slots) if s.kind != "MK_INTERNAL"]
    attrs = {k: _fmi_attrs(L.slots[k], L, k) for k in exported}
    names = {k: fmi_name(L.slots[k].name) for k in exported}
    aliases_of = {}
    for sv, k in gen.aliases:
        aliases_of.setdefault(k, []).append((sv.name, sv.base.description or ""))
    all_names = list(names.values()) + [sv.name for sv, _ in gen.aliases] + [sv.name for sv in gen.strings]
    plain = set(all_names)
    members = {}
    for nm in all_names:
        e = split_element(nm)
        if e is not None:
            members.setdefault(e[0], []).append(e[1])

    groups = _groups(_runs([(k, names[k], _signature(L.slots[k], L, k)) for k in exported]),
                     members, plain, aliases_of)
    # a state array and its derivative array together or not at all (FMI 3.0: the derivative
    # of an array variable is an array variable of the same dimensions, and the serialised
    # states of fmi3GetContinuousStates follow ContinuousStateDerivative); repeat until stable
    x0, dx0 = L.off["X"], L.off["DX"]
    changed = True
    while changed:
        changed = False
        for first, (base, dims, _) in list(groups.items()):
            n = math.prod(dims)
            s = L.slots[first]
            if s.kind == "MK_DERIV":
                partner = x0 + s.derivative_of
                ok = partner in groups and groups[partner][1] == dims and all(
                    L.slots[first + i].derivative_of == s.derivative_of + i for i in range(n))
            elif s.kind == "MK_STATE":
                partner = dx0 + (first - x0)
                ok = partner in groups and groups[partner][1] == dims
            else:
                continue
            if not ok:
                del groups[first]
                changed = True

    table = [Var3(VR_TIME, "time", "Float64", TIME, -1, 1, (), "independent", "continuous", "", None,
                  "Simulation time (the independent variable)")]
    vr_of_slot = {}
    pending = []        # (index in table, slot of the state) of derivatives
    skip = set()
    for k in exported:
        if k in skip:
            continue
        s = L.slots[k]
        caus, var, init, _ = attrs[k]
        if k in groups:
            base, dims, arr_aliases = groups[k]
            n = math.prod(dims)
            name = base
            # the state is an array too (grouped together): "Time derivative of x"
            desc = (f"Time derivative of {split_element(names[x0 + s.derivative_of])[0]}"
                    if _derivative_description(s, L) else s.description)
        else:
            n, dims, name, desc = 1, (), names[k], s.description
            arr_aliases = tuple(aliases_of.get(k, ()))
        els = range(k, k + n)
        skip.update(els)
        starts = [attrs[j][3] for j in els]
        start = None if starts[0] is None else tuple(starts)
        typ = "Enumeration" if (s.enum is not None and s.type == "Integer") else TYPE3[s.type]
        if s.scalar is None and s.name.startswith("solver."):
            desc = _fmi3_description(desc)
        vr = len(table)
        for j in els:
            vr_of_slot[j] = vr
        if s.derivative_of >= 0:
            pending.append((vr, x0 + s.derivative_of))
        table.append(Var3(vr, name, typ, SLOT, k, n, dims, caus, var, init or "exact", start, desc or "",
                          None, arr_aliases, False, s.kind))
    for vr, state in pending:
        v = table[vr]
        table[vr] = Var3(v.vr, v.name, v.type, v.where, v.k, v.n, v.dims, v.causality, v.variability,
                         v.initial, v.start, v.description, vr_of_slot[state], v.aliases, False, v.kind)

    # Strings: their own index (model.c's mdl_str) as element; arrays of them grouped alike
    sig = [(i, sv.name, (sv.base.variability == "constant", sv.base.description or ""))
           for i, sv in enumerate(gen.strings)]
    sgroups = _groups(_runs(sig), members, plain)
    skip = set()
    for i, sv in enumerate(gen.strings):
        if i in skip:
            continue
        if i in sgroups:
            name, dims, _ = sgroups[i]
        else:
            name, dims = sv.name, ()
        n = math.prod(dims) if dims else 1
        skip.update(range(i, i + n))
        const = sv.base.variability == "constant"
        table.append(Var3(len(table), name, "String", STRING, i, n, dims,
                          "local" if const else "parameter", "constant" if const else "fixed", "exact",
                          tuple(gen.strings[j].value for j in range(i, i + n)), sv.base.description or ""))

    n_ev = L.n["M"]
    if n_ev:
        taken = plain | {v.name for v in table}
        table.append(Var3(len(table), _unique_name(EVENT_INDICATOR_NAME, taken), "Float64", INDICATOR, 0, n_ev,
                          (n_ev,), "local", "continuous", "calculated", None,
                          "Event indicators (relations with hysteresis, in the runtime's order); "
                          "fmi3GetEventIndicators returns the same values", is_event_indicator=True))
    return table


# ----------------------------------------------------------------------------- dependencies
class _Structure:
    """Which knowns (FMI 3.0: inputs, continuous and discrete-time states, parameters, time)
    the unknowns of a generated model depend on, from the structural Jacobian sparsity of its
    CasADi functions, followed through the variables an expression reads until only knowns
    are left: through algebraic variables (their rows of ``wc_eval``), calculated parameters
    (``wc_params``) and the Newton unknowns of the nonlinear loops (every residual of
    ``wc_nlres``: a loop's unknowns depend on what any residual reads).  Pre-values,
    relations and when-conditions are piecewise constant (zero partial derivatives) and not
    model variables: they are left out."""

    def __init__(self, gen: Generated):
        self.gen, self.L = gen, gen.layout
        L = self.L
        nx, ny = L.n["X"], L.n["Y"]
        self.rows = {}
        off = 0 if gen.split_eval else nx
        for i in range(nx):
            self.rows[L.off["DX"] + i] = ("deriv" if gen.split_eval else "eval", i)
        for i in range(ny):
            self.rows[L.off["Y"] + i] = ("eval", off + i)
        for i in range(L.n["DALG"]):
            self.rows[L.off["D"] + i] = ("eval", off + ny + i)
        # the parameters that the initial equations determine (fixed=false) have no row
        for i in range(L.n["P_CALC"] - L.n["P_INIT"]):
            self.rows[L.off["P"] + L.n["P_INDEP"] + i] = ("params", i)
        self._sp = {}

    def _sparsity(self, fname: str) -> tuple:
        """(columns (slots) read by each output row, rows that read time) of a function."""
        if fname not in self._sp:
            f = self.gen.functions[fname]
            v = f.jac_sparsity(0, 0)
            cols = [[] for _ in range(v.size1())]
            for r, c in zip(*v.get_triplet()):
                cols[r].append(c)
            self._sp[fname] = (cols, set(f.jac_sparsity(0, 1).get_triplet()[0]))
        return self._sp[fname]

    def _classify(self, j: int) -> str:
        """known | ignore | expand | loop | unknown, of a slot that an expression reads."""
        L, s = self.L, self.L.slots[j]
        off, n = L.off, L.n

        def within(sl):
            return off[sl] <= j < off[sl] + n[sl]
        if within("X") or within("U"):
            return "known"
        if within("P"):
            if j < off["P"] + n["P_INDEP"]:
                return "known" if s.kind != "MK_INTERNAL" else "ignore"   # hidden: no variable
            if j < off["P"] + n["P_INDEP"] + n["P_CALC"]:
                return "expand" if j in self.rows else "unknown"          # fixed=false: by the initial equations
            return "known" if j >= off["SOLVER"] else "ignore"            # solver parameters; constants
        if within("D"):
            if j in self.rows:
                return "expand"                                           # discrete algebraic
            return "known" if s.kind != "MK_INTERNAL" else "ignore"       # discrete-time state
        if within("Y") or within("DX"):
            return "expand" if j in self.rows else "unknown"
        if within("W"):
            return "loop" if "nlres" in self.gen.functions else "unknown"
        return "ignore"

    def closure(self, seeds: list) -> set | None:
        """The known slots (and "time") that the function rows ``seeds`` ((name, row)) depend
        on, directly or through the variables they read; None when not known."""
        out, seen_rows, seen_cols, todo, loops = set(), set(seeds), set(), list(seeds), False
        while todo:
            fname, row = todo.pop()
            cols, trows = self._sparsity(fname)
            if row in trows:
                out.add("time")
            for j in cols[row]:
                if j in seen_cols:
                    continue
                seen_cols.add(j)
                c = self._classify(j)
                if c == "known":
                    out.add(j)
                elif c == "expand":
                    if self.rows[j] not in seen_rows:
                        seen_rows.add(self.rows[j])
                        todo.append(self.rows[j])
                elif c == "loop":
                    if not loops:
                        loops = True
                        todo.extend(("nlres", i) for i in range(self.gen.functions["nlres"].size1_out(0)))
                elif c == "unknown":
                    return None
        return out

    def of(self, slot: int) -> set | None:
        """The known slots (and "time") that the value of ``slot`` depends on, None if not known."""
        if self.L.slots[slot].kind == "MK_STATE":
            return {slot}
        return self.closure([self.rows[slot]]) if slot in self.rows else None

    def indicator(self, i: int) -> set | None:
        """The known slots (and "time") that event indicator ``i`` depends on."""
        return self.closure([("zc", i)])


def dependencies(gen: Generated, table: list[Var3] | None = None) -> dict:
    """{value reference: sorted value references of the knowns it depends on, or None (not
    known: no ``dependencies`` attribute)} of the continuous Float64 unknowns of the model
    structure (outputs, state derivatives, event indicators); the other unknowns (discrete,
    non-Float64) are not in it and depend on every known."""
    table = fmi3_table(gen) if table is None else table
    st = _Structure(gen)
    vr_of_slot = {j: v.vr for v in table if v.where == SLOT for j in v.elements}
    out = {}
    for v in table:
        if v.type != "Float64" or v.variability != "continuous" or v.where == TIME:
            continue
        if not (v.causality == "output" or v.kind == "MK_DERIV" or v.is_event_indicator):
            continue
        acc = set()
        for e in v.elements:
            d = st.indicator(e) if v.is_event_indicator else st.of(e)
            if d is None:
                acc = None
                break
            acc |= {VR_TIME if j == "time" else vr_of_slot[j] for j in d if j == "time" or j in vr_of_slot}
        out[v.vr] = None if acc is None else sorted(acc)
    return out


# ----------------------------------------------------------------------------- XML
def _capabilities(gen: Generated) -> str:
    dd = "true" if "dd" in gen.functions else "false"
    return (f'canGetAndSetFMUState="true" canSerializeFMUState="true" providesDirectionalDerivatives="{dd}"')


def type_definitions3(L: Layout) -> list[str]:
    """Lines of ``<TypeDefinitions>`` in FMI 3.0 form: an ``<EnumerationType>`` with its Items
    (values 1..n) for each enumeration type of an exported variable; none without."""
    types = enum_types(L)
    if not types:
        return []
    out = ['  <TypeDefinitions>']
    for name in sorted(types):
        t = types[name]
        d = f' description={quoteattr(t.description)}' if t.description else ""
        out.append(f'    <EnumerationType name={quoteattr(name)}{d}>')
        for k, (item, idesc) in enumerate(t.items, 1):
            d = f' description={quoteattr(idesc)}' if idesc else ""
            out.append(f'      <Item name={quoteattr(item)} value="{k}"{d}/>')
        out.append('    </EnumerationType>')
    out.append('  </TypeDefinitions>')
    return out


def _variable(v: Var3, L: Layout) -> list[str]:
    """The lines of one variable element."""
    a = [f'name={quoteattr(v.name)}', f'valueReference="{v.vr}"']
    if v.description:
        a.append(f'description={quoteattr(v.description)}')
    a.append(f'causality="{v.causality}" variability="{v.variability}"')
    if v.initial:
        a.append(f'initial="{v.initial}"')
    children = [f'<Dimension start="{d}"/>' for d in v.dims]
    if v.where == SLOT:
        s = L.slots[v.k]
        if v.type == "Enumeration":
            a.insert(2, f'declaredType={quoteattr(s.enum.name)}')
        if s.type == "Real":
            a += _unit_attrs(s)
        if s.type in ("Real", "Integer"):
            if math.isfinite(s.min):
                a.append(f'min="{_fmt(s.min, s.type)}"')
            if math.isfinite(s.max):
                a.append(f'max="{_fmt(s.max, s.type)}"')
        if s.type == "Real" and s.nominal:
            a.append(f'nominal="{s.nominal!r}"')
        if v.start is not None:
            a.append(f'start="{" ".join(_fmt(x, s.type) for x in v.start)}"')
        if v.derivative is not None:
            a.append(f'derivative="{v.derivative}"')
        if s.kind == "MK_STATE" and s.reinit:
            a.append('reinit="true"')
    elif v.where == STRING:
        children += [f'<Start value={quoteattr(x)}/>' for x in v.start]
    children += [f'<Alias name={quoteattr(n)}' + (f' description={quoteattr(d)}' if d else "") + '/>'
                 for n, d in v.aliases]
    if not children:
        return [f'    <{v.type} {" ".join(a)}/>']
    return [f'    <{v.type} {" ".join(a)}>'] + [f'      {c}' for c in children] + [f'    </{v.type}>']


def render_xml3(gen: Generated, experiment: dict[str, Any], description: str = "",
                meta: dict[str, Any] | None = None) -> str:
    """The FMI 3.0 ``modelDescription.xml`` of the model that ``gen`` holds (Model Exchange and
    Co-Simulation), from :func:`fmi3_table`.  ``experiment``: the DefaultExperiment attributes
    (startTime, stopTime, tolerance, stepSize) given; ``meta``: author, version, copyright,
    license (fmiModelDescription attributes, each given only when not empty).  Reads ``gen``
    only: the FMI 2.0 description of the same ``gen`` is the same before and after."""
    L = gen.layout
    table = fmi3_table(gen)
    deps = dependencies(gen, table)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<!-- Generated by wearcosim build from {escape(gen.model_name)}: do not edit. -->']
    meta_attrs = "".join(f'{k}={quoteattr(" ".join(str(meta[k]).split()))} '
                         for k in META_ATTRS if meta and meta.get(k))
    out.append(f'<fmiModelDescription fmiVersion="3.0" modelName={quoteattr(gen.model_name)} '
               f'instantiationToken={quoteattr(gen.guid)} description={quoteattr(description or gen.model_name)} '
               f'{meta_attrs}generationTool="wearcosim" variableNamingConvention="structured">')
    caps = _capabilities(gen)
    out.append(f'  <ModelExchange modelIdentifier={quoteattr(gen.identifier)} {caps} '
               f'needsCompletedIntegratorStep="false"/>')
    cs = " ".join(f'{k}="{v}"' for k, v in CS_CAPABILITIES)
    out.append(f'  <CoSimulation modelIdentifier={quoteattr(gen.identifier)} {caps} {cs}/>')
    out.extend(unit_definitions(L))          # the same form in FMI 3.0 (Unit, BaseUnit, DisplayUnit)
    out.extend(type_definitions3(L))
    out.append('  <LogCategories>')
    out.extend(f'    <Category name="{n}" description={quoteattr(_fmi3_description(d))}/>' for n, d in LOG_CATEGORIES)
    out.append('  </LogCategories>')
    if experiment:
        attrs = " ".join(f'{k}="{experiment[k]!r}"' for k in ("startTime", "stopTime", "tolerance", "stepSize")
                         if k in experiment)
        out.append(f'  <DefaultExperiment {attrs}/>')
    out.append('  <ModelVariables>')
    for v in table:
        if v.where == TIME:
            out.append(f'    <Float64 name="time" valueReference="{VR_TIME}" description={quoteattr(v.description)} '
                       f'causality="independent" variability="continuous"/>')
        else:
            out.extend(_variable(v, L))
    out.append('  </ModelVariables>')
    out.append('  <ModelStructure>')

    def unknown(tag, v, with_deps=True):
        d = deps.get(v.vr) if with_deps else None
        if d is None:
            return f'    <{tag} valueReference="{v.vr}"/>'
        return (f'    <{tag} valueReference="{v.vr}" dependencies="{" ".join(map(str, d))}" '
                f'dependenciesKind="{" ".join("dependent" for _ in d)}"/>')
    out.extend(unknown("Output", v) for v in table if v.causality == "output")
    out.extend(unknown("ContinuousStateDerivative", v) for v in table if v.kind == "MK_DERIV")
    states = {v.derivative for v in table if v.kind == "MK_DERIV"}
    out.extend(unknown("InitialUnknown", v, False) for v in table
               if (v.causality == "output" and v.initial in ("approx", "calculated"))
               or v.causality == "calculatedParameter"
               or ((v.kind == "MK_DERIV" or v.vr in states) and v.initial in ("approx", "calculated")))
    out.extend(unknown("EventIndicator", v) for v in table if v.is_event_indicator)
    out.append('  </ModelStructure>')
    out.append('</fmiModelDescription>')
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- C table
#: the type codes of the C table
C_TYPES = {"Float64": "WC3_FLOAT64", "Int32": "WC3_INT32", "Boolean": "WC3_BOOLEAN",
           "Enumeration": "WC3_ENUMERATION", "String": "WC3_STRING"}
C_WHERE = {TIME: "WC3_IN_TIME", SLOT: "WC3_IN_V", STRING: "WC3_IN_STR", INDICATOR: "WC3_IN_Z"}


def _c_comment(text: str) -> str:
    return re.sub(r"[^ -~]", "?", text).replace("*/", "* /")


def render_table_c(gen: Generated, table: Iterable[Var3] | None = None) -> str:
    """C99 source (no includes) that the FMI 3.0 face includes: ``wc3_vars[vr]`` for every FMI
    3.0 value reference, the first element and the element count of the variable, where the
    elements are (``WC3_IN_V``: ``v[first..first+count-1]``, slot indices as in FMI 2.0;
    ``WC3_IN_STR``: ``mdl_str``; ``WC3_IN_Z``: the event indicators; ``WC3_IN_TIME``: time) and
    the FMI 3.0 type whose fmi3Get/Set functions serve it (Enumeration: fmi3GetInt64/SetInt64).
    An array's elements are in row-major order, the order fmi3GetFloat64 returns them in."""
    table = fmi3_table(gen) if table is None else list(table)
    n_ev = sum(v.n for v in table if v.is_event_indicator)
    ev = next((v.vr for v in table if v.is_event_indicator), None)
    out = [f"/* Generated by wearcosim build from {_c_comment(gen.model_name)}: do not edit. */",
           "/* FMI 3.0 value references (wearcosim.export.md3.fmi3_table): wc3_vars[vr] */",
           "#ifndef WC_MD3_TABLE",
           "#define WC_MD3_TABLE",
           "",
           f"#define N_VARS3 {len(table)}",
           f"#define VR3_TIME {VR_TIME}u",
           f"#define N_EVENT_INDICATORS3 {n_ev}",
           f"#define VR3_EVENT_INDICATORS {ev}u" if ev is not None else "/* no event indicators: no VR3_EVENT_INDICATORS */",
           "",
           "#define WC3_IN_TIME 0",
           "#define WC3_IN_V 1",
           "#define WC3_IN_STR 2",
           "#define WC3_IN_Z 3",
           "",
           "#define WC3_FLOAT64 1",
           "#define WC3_INT32 2",
           "#define WC3_BOOLEAN 3",
           "#define WC3_ENUMERATION 4",
           "#define WC3_STRING 5",
           "",
           "typedef struct {",
           "    unsigned int first;   /* first element: slot of v, index of mdl_str or of the event indicators */",
           "    unsigned int count;   /* number of elements (row-major) */",
           "    unsigned char where;  /* WC3_IN_* */",
           "    unsigned char type;   /* WC3_* type */",
           "} wc3_var;",
           "",
           "static const wc3_var wc3_vars[N_VARS3] = {"]
    for v in table:
        first = 0 if v.where == TIME else v.k
        out.append(f"    {{{first}u, {v.n}u, {C_WHERE[v.where]}, {C_TYPES[v.type]}}},  "
                   f"/* {v.vr}: {_c_comment(v.name)} */")
    out += ["};", "", "#endif", ""]
    return "\n".join(out)
