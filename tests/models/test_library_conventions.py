"""Conventions of the Modelica library (MSL style), read from the .mo files:

* every connector is balanced (MLS 9.3.1: as many flow variables as potential variables, the
  latter being neither flow, input, output, parameter nor constant), counted in scalars;
* every non-partial component class (model, block, connector) has an Icon, its own or one it
  inherits through ``extends`` of a library class;
* one class per file, the package.order files list exactly the classes of their folder;
* every class has a description string, every model/block/connector a Documentation;
* every example has an ``experiment`` annotation.
"""
import re

import pytest

from wctest import PACKAGE, library_classes


def _strip(text):
    """Comments and string contents removed (line structure kept)."""
    from wearcosim.export.frontend import _strip_comments
    return _strip_comments(text)


CLASSES = library_classes(PACKAGE)


def _extends(text):
    return re.findall(r"^\s*extends\s+([\w.]+)", _strip(text), re.M)


def _resolve(name, within):
    """A class name as written in ``within`` (absolute WearCosim.x or relative to the package)."""
    if name in CLASSES:
        return name
    scope = within.split(".")
    while scope:
        cand = ".".join(scope + [name])
        if cand in CLASSES:
            return cand
        scope.pop()
    return None


def _has_icon(name, seen=()):
    kind, partial, f, text = CLASSES[name]
    if "Icon(" in text:
        return True
    pkg = name.rsplit(".", 1)[0]
    return any(base not in seen and _has_icon(base, seen + (name,))
               for base in filter(None, (_resolve(e, pkg) for e in _extends(text))))


def _scalar_count(dims):
    n = 1
    for d in filter(None, (x.strip() for x in dims.split(","))):
        n *= int(d)
    return n


def _connector_counts(text):
    body = _strip(text).split("annotation")[0]
    body = re.sub(r"^.*?\bconnector\s+\w+[^\n]*\n", "", body, count=1, flags=re.S)   # the header line
    pot = flow = 0
    decl = re.compile(r"^\s*(?P<prefix>(?:(?:flow|stream|input|output|parameter|constant|discrete)\s+)*)"
                      r"(?P<type>[A-Za-z_][\w.]*)\s+(?P<name>\w+)\s*(?:\[(?P<dims>[^\]]*)\])?[^;]*;", re.M)
    for m in decl.finditer(body):
        if m["type"] in ("import", "extends", "connector", "within", "end"):
            continue
        prefix = m["prefix"].split()
        n = _scalar_count(m["dims"] or "")
        if "flow" in prefix:
            flow += n
        elif not {"input", "output", "parameter", "constant", "stream"} & set(prefix):
            pot += n
    return pot, flow


def test_every_connector_is_balanced():
    connectors = {n: c for n, c in CLASSES.items() if c[0] == "connector"}
    assert connectors
    for name, (_, _, f, text) in connectors.items():
        pot, flow = _connector_counts(text)
        print(f"{name}: {pot} potential, {flow} flow")
        assert pot == flow, f"{name} is unbalanced: {pot} potential vs {flow} flow variables (MLS 9.3.1)"


def test_connector_count_reads_the_declarations():
    """The counter itself: the former Hub (velocities as potentials) is unbalanced."""
    old = """connector Hub "old"
  SI.Position u[3] "d";
  SI.Velocity v[3] "d";
  SI.Angle phi[3] "d";
  SI.AngularVelocity w[3] "d";
  flow SI.Force f[3] "d";
  flow SI.Torque t[3] "d";
end Hub;"""
    assert _connector_counts(old) == (12, 6)
    assert _connector_counts(CLASSES["WearCosim.Gears.Hub"][3]) == (6, 6)


def test_every_component_class_has_an_icon():
    missing = [n for n, (kind, partial, _, _) in CLASSES.items()
               if kind in ("model", "block", "connector") and not partial and not _has_icon(n)]
    assert not missing, f"no Icon: {missing}"


def test_package_order_lists_the_classes_of_each_folder():
    for order in PACKAGE.rglob("package.order"):
        folder = order.parent
        listed = [x.strip() for x in order.read_text().split() if x.strip()]
        present = {f.stem for f in folder.glob("*.mo") if f.name != "package.mo"} | \
                  {d.name for d in folder.iterdir() if (d / "package.mo").is_file()}
        assert sorted(listed) == sorted(present), f"{order}: listed {sorted(listed)} vs files {sorted(present)}"
        assert len(listed) == len(set(listed)), f"{order}: duplicates"


def test_descriptions_and_documentation():
    for name, (kind, partial, f, text) in CLASSES.items():
        header = text.split("\n")[1] if text.startswith("within") else text.split("\n")[0]
        assert re.search(r'\b' + re.escape(name.split(".")[-1]) + r'\s*(?:=[^"]*)?"[^"]+"', header), \
            f"{name}: no description string in '{header}'"
        if kind in ("model", "block", "connector", "package", "function"):
            assert "Documentation(" in text, f"{name}: no Documentation"


def test_examples_have_an_experiment_annotation():
    ex = [n for n, (kind, partial, _, _) in CLASSES.items()
          if n.startswith("WearCosim.Examples.") and kind == "model" and not partial]
    assert len(ex) > 20
    missing = [n for n in ex if "experiment(" not in CLASSES[n][3]]
    assert not missing, missing


@pytest.mark.parametrize("component, law, partial, leaves", [
    ("WearCosim.Joints.RevoluteClearance", "NormalForce", "WearCosim.Joints.ContactLaws.PartialNormalForce",
     ["Flores", "LankaraniNikravesh", "Hertz"]),
    ("WearCosim.Gears.GearMesh", "Stiffness", "WearCosim.Gears.StiffnessLaws.PartialStiffness",
     ["SmoothedRectangle", "Harmonic"]),
    ("WearCosim.Rotor.RubContact", "NormalForce", "WearCosim.Rotor.RubLaws.PartialNormalForce",
     ["KelvinVoigt", "HuntCrossley"]),
])
def test_contact_laws_are_replaceable_with_a_partial_interface(component, law, partial, leaves):
    text = _strip(CLASSES[component][3])
    assert re.search(r"replaceable\s+model\s+" + law + r"\s*=\s*[\w.]+\s+constrainedby\s+" + re.escape(partial), text)
    assert CLASSES[partial][1], f"{partial} is not partial"
    pkg = partial.rsplit(".", 1)[0]
    for leaf in leaves:
        kind, is_partial, _, t = CLASSES[f"{pkg}.{leaf}"]
        assert kind == "model" and not is_partial and partial in _extends(t)
    # an example redeclares it
    assert any(re.search(r"redeclare\s+model\s+" + law + r"\s*=\s*" + re.escape(pkg), _strip(t))
               for n, (_, _, _, t) in CLASSES.items() if n.startswith("WearCosim.Examples."))
