"""The container's fast entry points (issue 36, point 4): a component FMU that carries its sources
(made by this exporter with this runtime) is rebuilt inside the container with
``fmu/container/ct_fast.c``, and in continuous time the container moves time, states, inputs,
outputs, derivatives and indicators through those entry points instead of the fmi2 functions; a
component without sources keeps the fmi2 path (the fallback), and ``build_container(fast=False)``
takes it for every component.

Asserted: both paths compute the same numbers bit for bit (Co-Simulation with the auto method and
with RODAS4, Model Exchange), on a system with a stiff contact, events and an Integer output
(contact) and on one where a Boolean crosses the boundary in the event iteration (ball); the
fast path is taken (the component binaries export the entry point, and the container makes
fewer component calls); a component without sources falls back and still agrees.  No timing is
asserted (the speed is python -m wearcosim.bench.systems's business).
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu

from wearcosim.export.build import build_fmu
from wearcosim.system.container import build_container
from wearcosim.system.model import Component, Connection, System

FIX = Path(__file__).resolve().parent / "fixtures" / "container"
PKG = FIX / "ContainerTests.mo"
TOL = 1e-9
SYMBOL = b"wcct_fast_api"
CASES = {   # system name, components (name, model), connections, compared outputs, stop time
    "contact": ("ContactSystem", [("body", "ContactBody"), ("contact", "ContactSpring")],
                [("body", "x", "contact", "x"), ("contact", "v", "body", "v"), ("contact", "F", "body", "F")],
                ["body.x", "body.v", "contact.F", "contact.impacts", "contact.vImpact"], 1.0),
    "ball": ("BallSystem", [("ball", "Ball"), ("floor", "Floor")],
             [("ball", "h", "floor", "h"), ("ball", "v", "floor", "v"), ("floor", "F", "ball", "F"),
              ("floor", "contact", "ball", "inContact")],
             ["ball.h", "ball.v", "floor.F", "ball.bounces", "floor.contact"], 3.0),
}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """The component FMUs of CASES (built once), by model name."""
    out = tmp_path_factory.mktemp("fast-fmus")
    models = {m for _, comps, *_ in CASES.values() for _, m in comps}
    return {m: build_fmu("ContainerTests." + m, FIX, out, path=PKG).fmu for m in sorted(models)}


def _system(case, fmus, path_of=None):
    name, comps, conns, *_ = CASES[case]
    path_of = path_of or (lambda m: fmus[m])
    return System(name, components=[Component(n, f"{m}.fmu", path_of(m)) for n, m in comps],
                  connections=[Connection(*c) for c in conns])


def _component_binaries(container: Path, folder: str = "fast") -> dict:
    """{component folder: bytes of its binary} inside a container FMU: the rebuilt ones
    (``fast/<platform>/``) or the components' own (``binaries/<platform>/``)."""
    with zipfile.ZipFile(container) as z:
        return {n.split("/")[2]: z.read(n) for n in z.namelist()
                if n.startswith("resources/components/") and f"/{folder}/" in n and n.endswith((".so", ".dylib"))}


def _run(path, kind, stop, names, method):
    sv = {} if method is None else {"solver.method": method}
    return simulate_fmu(str(path), fmi_type=kind, stop_time=stop, output_interval=stop / 1000,
                        output=names + ["_container.nRhs", "_container.nCalls"], relative_tolerance=TOL,
                        start_values=sv)


@pytest.fixture(scope="module")
def built(fmus, tmp_path_factory):
    """{case: (fast container, fmi2-path container)}"""
    out = tmp_path_factory.mktemp("fast-containers")
    return {case: (build_container(_system(case, fmus), out / f"{case}-fast.fmu"),
                   build_container(_system(case, fmus), out / f"{case}-fmi.fmu", fast=False))
            for case in CASES}


@pytest.mark.parametrize("kind,method", [("CoSimulation", 0), ("CoSimulation", 2), ("ModelExchange", None)])
@pytest.mark.parametrize("case", list(CASES))
def test_fast_path_is_bit_identical_to_fmi_path(case, kind, method, built):
    fast, slow = built[case]
    names, stop = CASES[case][3], CASES[case][4]
    a, b = _run(fast, kind, stop, names, method), _run(slow, kind, stop, names, method)
    for n in ["time"] + names + ["_container.nRhs"]:
        assert np.array_equal(a[n], b[n]), f"{case} {kind} method={method}: {n} differs between the paths"
    # the fast path was taken: one entry point call where the fmi2 path makes several
    assert a["_container.nCalls"][-1] < b["_container.nCalls"][-1]


def test_fast_build_exports_the_entry_point_only_when_asked(built, fmus):
    """The rebuilt binaries (fast/) export the entry point; the components' own binaries stay in
    binaries/ as shipped, in both builds; the fmi2-path build has no fast/ at all."""
    fast, slow = built["contact"]
    rebuilt = _component_binaries(fast)
    assert set(rebuilt) == {"body", "contact"} and all(SYMBOL in so for so in rebuilt.values())
    assert _component_binaries(slow) == {}
    for c in (fast, slow):
        own = _component_binaries(c, "binaries")
        for folder, model in (("body", "ContactBody"), ("contact", "ContactSpring")):
            with zipfile.ZipFile(fmus[model]) as z:
                assert own[folder] in [z.read(n) for n in z.namelist() if n.startswith("binaries/")]
    with zipfile.ZipFile(fast) as z:      # not compiled into the container itself
        assert "sources/ct_fast.c" not in z.namelist()


def _without_sources(src: Path, dest: Path) -> Path:
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zo:
        for item in zi.infolist():
            if not item.filename.startswith("sources/"):
                zo.writestr(item, zi.read(item.filename))
    return dest


def test_component_without_sources_falls_back_to_fmi_path(fmus, built, tmp_path):
    """The spring FMU without its sources: the container loads its binary as shipped (fmi2 path),
    the body (with sources) gets the fast entry points; same numbers as the all-fmi2 container."""
    bare = _without_sources(fmus["ContactSpring"], tmp_path / "ContactSpring.fmu")
    system = _system("contact", fmus, lambda m: bare if m == "ContactSpring" else fmus[m])
    mixed = build_container(system, tmp_path / "mixed.fmu")
    assert set(_component_binaries(mixed)) == {"body"}
    names, stop = CASES["contact"][3], CASES["contact"][4]
    a, b = _run(mixed, "CoSimulation", stop, names, 0), _run(built["contact"][1], "CoSimulation", stop, names, 0)
    for n in ["time"] + names:
        assert np.array_equal(a[n], b[n]), n


def test_component_with_another_runtime_keeps_fmi_path(fmus, tmp_path):
    """Sources whose runtime headers differ from this runtime's (another wearcosim version):
    ct_fast.c relies on the runtime's internals, so that component is not rebuilt."""
    src = fmus["ContactSpring"]
    other = tmp_path / "ContactSpring.fmu"
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(other, "w", zipfile.ZIP_DEFLATED) as zo:
        for item in zi.infolist():
            data = zi.read(item.filename)
            if item.filename == "sources/rt_ctx.h":
                data += b"\n/* another version */\n"
            zo.writestr(item, data)
    system = _system("contact", fmus, lambda m: other if m == "ContactSpring" else fmus[m])
    assert set(_component_binaries(build_container(system, tmp_path / "other.fmu"))) == {"body"}
