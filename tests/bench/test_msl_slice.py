"""The CI slice of the MSL ladder (issue 38): a handful of fast Modelica Standard Library 4.0.0
examples, one or two per package of the ladder, built by the exporter from the library as a user
has it, simulated (Co-Simulation, the example's ``experiment``) and compared with the Modelica
Association's reference results by the ladder's own criterion (``wearcosim.bench.msl.compare``:
every comparison signal inside a tube of 1e-3 of its range).  The full ladder is a benchmark
command (``python -m wearcosim.bench.msl``, docs/msl.md).

Each example is here for what it exercises in the exporter:

- ``Rotational.First``: index reduction (an ideal gear between two inertias), a damper with
  relative states and ``StateSelect.prefer``;
- ``Translational.Damper``: relative states beside absolute ones;
- ``Blocks.PID_Controller``: enumerations as parameters (``SimpleController``, ``Init``);
- ``Blocks.SlewRateLimiter``: index reduction through a block diagram (a derivative of an
  input of a block, taken by differentiating the blocks upstream);
- ``Analog.CharacteristicIdealDiodes``: piecewise-linear ideal diodes, state events;
- ``Analog.SeriesResonance``: a plain linear circuit (connection sets, alias equations);
- ``HeatTransfer.TwoMasses``: a ``parameter ... (fixed = false)`` solved at initialisation;
- ``MultiBody.Elementary.Pendulum``: String parameters, overconstrained connectors with
  ``Connections.root``/``branch``, orientation objects.

Skipped, with the reason, where the MSL or its reference results are not present.  No timing is
asserted."""
from __future__ import annotations

import csv

import pytest

from wctest import MSL_ABSENT, msl_references, msl_root
from wearcosim.bench import msl

SLICE = [
    "Modelica.Mechanics.Rotational.Examples.First",
    "Modelica.Mechanics.Translational.Examples.Damper",
    "Modelica.Blocks.Examples.PID_Controller",
    "Modelica.Blocks.Examples.SlewRateLimiter",
    "Modelica.Electrical.Analog.Examples.CharacteristicIdealDiodes",
    "Modelica.Electrical.Analog.Examples.SeriesResonance",
    "Modelica.Thermal.HeatTransfer.Examples.TwoMasses",
    "Modelica.Mechanics.MultiBody.Examples.Elementary.Pendulum",
]

pytestmark = pytest.mark.skipif(msl_root() is None or msl_references() is None,
                                reason=MSL_ABSENT + ", or its reference results are not on "
                                                    "WEARCOSIM_MSL_REFERENCES")


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """The ladder run once over the slice; {example: its row of ladder.csv}.  One job: its
    build server loads the MSL once for the eight builds (the suite's other worker keeps the
    second core busy)."""
    out = tmp_path_factory.mktemp("msl-slice")
    rc = msl.main(["--library", str(msl_root()), "--references", str(msl_references()), "--out", str(out),
                   "--jobs", "1", "--timeout", "900", "--packages", *SLICE])
    assert rc == 0
    with open(out / "ladder.csv", newline="") as f:
        return {r["example"]: r for r in csv.DictReader(f)}


@pytest.mark.parametrize("example", SLICE, ids=[e.split(".")[-1] for e in SLICE])
def test_msl_example_builds_and_matches_its_reference(ladder, example):
    row = ladder[example]
    assert row["stage"] == "pass", f"{example}: stage {row['stage']}: {row['error']}"
    done, asked = (int(x) for x in row["signals"].split("/"))
    assert done == asked > 0, row
    assert float(row["max_deviation"]) <= 1e-3, row
