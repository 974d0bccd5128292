"""The opt-in object cache of builds (WEARCOSIM_BUILD_CACHE, issue 36): a rebuild reuses the
objects of units whose input is unchanged, the binary is byte-identical to one built without
the cache, and nothing is written when the variable is not set.  No timing is asserted (the
benchmark and `wearcosim build --timings` measure it)."""
from __future__ import annotations

import zipfile

from wearcosim.export import package
from wearcosim.export.build import build_fmu


def _binary(fmu):
    with zipfile.ZipFile(fmu) as z:
        so = next(n for n in z.namelist() if n.startswith("binaries/") and n.endswith((".so", ".dylib", ".dll"))
                  and f"/{package.platform_dir()}/" in f"/{n}")
        return z.read(so)


def test_a_rebuild_reuses_every_object_and_gives_the_same_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    plain = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "plain").fmu
    assert not (tmp_path / "cache").exists()
    cache = tmp_path / "cache"
    monkeypatch.setenv("WEARCOSIM_BUILD_CACHE", str(cache))
    hits, stores = [], []
    fetch, store = package.ObjectCache.fetch, package.ObjectCache.store
    monkeypatch.setattr(package.ObjectCache, "fetch", lambda self, k, o: hits.append(k) or fetch(self, k, o))
    monkeypatch.setattr(package.ObjectCache, "store", lambda self, k, o: stores.append(k) or store(self, k, o))
    first = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "a").fmu
    objects = sorted(p.name for p in cache.rglob("*.o"))
    assert len(objects) == len(stores) > 3 and not [p for p in cache.rglob("*.part")]
    stores.clear()
    hits.clear()
    second = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "b").fmu
    assert stores == [] and sorted(hits) == sorted(p.stem for p in cache.rglob("*.o"))
    assert _binary(first) == _binary(second) == _binary(plain)


def test_a_changed_unit_is_compiled_again(tmp_path, monkeypatch):
    """Another model: its generated units miss the cache, so the cache cannot hand a model the
    objects of another one."""
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    cache = tmp_path / "cache"
    monkeypatch.setenv("WEARCOSIM_BUILD_CACHE", str(cache))
    build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "a")
    n = len(list(cache.rglob("*.o")))
    build_fmu("WearCosim.Examples.Basic.BouncingBall", out_dir=tmp_path / "b")
    assert len(list(cache.rglob("*.o"))) > n


def test_the_key_covers_what_a_unit_includes_and_nothing_else(tmp_path):
    """A unit's key changes with every file it includes, transitively -- a generated ``.inc``
    too (the key once hashed the headers only: an object could outlive a changed ``.inc``) --
    and with the header a flag force-includes; it does not change with a header the unit does
    not include (the solvers do not include the model's config.h: shared across models)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "unit.c").write_text('#include "a.h"\n#include "gen.inc"\nint f(void) { return A + G; }\n')
    (src / "a.h").write_text('#include "b.h"\n#define A B\n')
    (src / "b.h").write_text("#define B 1\n")
    (src / "gen.inc").write_text("#define G 2\n")
    (src / "config.h").write_text("#define N_X 3\n")
    (src / "pin.h").write_text("/* pinned */\n")
    flags = ["-O2", "-include", str(src / "pin.h")]

    def key():
        return package.ObjectCache(tmp_path / "cache", src).key("gcc", flags, "unit.c")
    k0 = key()
    (src / "config.h").write_text("#define N_X 4\n")
    assert key() == k0
    for name, text in (("b.h", "#define B 5\n"), ("gen.inc", "#define G 7\n"), ("pin.h", "/* other */\n"),
                       ("unit.c", '#include "a.h"\n#include "gen.inc"\nint f(void) { return A - G; }\n')):
        (src / name).write_text(text)
        k1 = key()
        assert k1 != k0, name
        k0 = k1


def test_models_with_the_same_number_of_states_share_the_solvers(tmp_path, monkeypatch):
    """VanDerPol and the two masses' spring body (2 states each): the second build takes the
    solvers' objects (rt_ode, rt_dopri5, ...: no config.h) from the first."""
    from wearcosim import cli
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    cache = tmp_path / "cache"
    monkeypatch.setenv("WEARCOSIM_BUILD_CACHE", str(cache))
    build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "a")
    hits = []
    fetch = package.ObjectCache.fetch
    monkeypatch.setattr(package.ObjectCache, "fetch", lambda self, k, o: (hits.append(o.name) if fetch(self, k, o)
                                                                         else False) or o.name in hits)
    fix = package.Path(__file__).resolve().parents[1] / "system" / "fixtures" / "issue34" / "TwoMassSpring.mo"
    assert cli.main(["build", "--file", str(fix), "TwoMassSpring.SpringMass", "--out", str(tmp_path / "b")]) == 0
    assert {"rt_ode.o", "rt_dopri5.o", "rt_rodas4.o", "rt_adams.o", "rt_auto.o", "rt_linalg.o"} <= set(hits)
    assert "model.o" not in hits


# ------------------------------------------------------------------ the output folder's cache
OSC = """model Osc "a damped oscillator"
  parameter Real k = {k} "Stiffness";
  parameter Real d = 0.4 "Damping";
  Real x(start = 1, fixed = true);
  Real v(start = 0, fixed = true);
equation
  der(x) = v;
  der(v) = -d*v - k*x;
  annotation(experiment(StopTime = 1));
end Osc;
"""


def _counting(monkeypatch):
    """(hits, compiled): the object files taken from a cache and those compiled, by name."""
    hits, stored = [], []
    fetch, store = package.ObjectCache.fetch, package.ObjectCache.store

    def counted_fetch(self, k, o):
        ok = fetch(self, k, o)
        if ok:
            hits.append(o.name)
        return ok
    monkeypatch.setattr(package.ObjectCache, "fetch", counted_fetch)
    monkeypatch.setattr(package.ObjectCache, "store", lambda self, k, o: stored.append(o.name) or store(self, k, o))
    return hits, stored


def test_the_output_folder_keeps_the_objects_and_a_rebuild_takes_them(tmp_path, monkeypatch):
    """By default the objects go to <out>/.build-cache; a rebuild into the same folder compiles
    nothing and gives the binary a build without the cache gives; cache=False writes nothing
    but the FMU."""
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    monkeypatch.delenv("WEARCOSIM_BUILD_CACHE", raising=False)
    plain = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "plain", cache=False).fmu
    assert [p.name for p in (tmp_path / "plain").iterdir()] == ["VanDerPol.fmu"]
    out = tmp_path / "out"
    first = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=out).fmu
    objects = sorted(p.name for p in (out / package.BUILD_CACHE).rglob("*"))
    assert len([o for o in objects if o.endswith(".o")]) > 3 and not [o for o in objects if o.endswith(".part")]
    one = _binary(first)
    hits, stored = _counting(monkeypatch)
    second = build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=out).fmu
    assert stored == [] and "model.o" in hits and "rt_ode.o" in hits
    assert _binary(second) == one == _binary(plain)


def test_a_changed_default_compiles_the_start_values_alone(tmp_path, monkeypatch):
    """A parameter default lives in model_start.c only: the rebuild compiles that unit and takes
    every other object from the output folder's cache; the FMU has the new default."""
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    monkeypatch.delenv("WEARCOSIM_BUILD_CACHE", raising=False)
    mo = tmp_path / "Osc.mo"
    mo.write_text(OSC.format(k="100.0"))
    out = tmp_path / "out"
    build_fmu("Osc", tmp_path, out, path=mo)
    mo.write_text(OSC.format(k="250.0"))
    hits, stored = _counting(monkeypatch)
    fmu = build_fmu("Osc", tmp_path, out, path=mo).fmu
    assert stored == ["model_start.o"] and "model.o" in hits
    with zipfile.ZipFile(fmu) as z:
        assert 'start="250.0"' in z.read("modelDescription.xml").decode()
        assert "250.0" in z.read("sources/model_start.c").decode()


def test_a_failed_build_adds_nothing_to_the_output_folder(tmp_path, monkeypatch):
    """The output folder's cache is written once every binary has linked: a link that fails
    leaves the folder as it was (no FMU, no cache)."""
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    monkeypatch.delenv("WEARCOSIM_BUILD_CACHE", raising=False)
    monkeypatch.setattr(package, "_link_flags", lambda libs: ["-lwearcosim_no_such_library"])
    import pytest
    from wearcosim.export.errors import ExportError
    with pytest.raises(ExportError):
        build_fmu("WearCosim.Examples.Basic.VanDerPol", out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_the_cache_is_pruned_least_recently_used_first(tmp_path):
    import os
    for i in range(5):
        d = tmp_path / f"{i:02x}"
        d.mkdir()
        (d / f"{i:02x}key.o").write_bytes(b"x" * 100)
        os.utime(d / f"{i:02x}key.o", (1000 + i, 1000 + i))
    package.prune_cache(tmp_path, 250)
    assert sorted(p.name for p in tmp_path.rglob("*.o")) == ["03key.o", "04key.o"]


def test_the_command_line_reports_the_stages_and_can_leave_the_cache_out(tmp_path, monkeypatch, capsys):
    """``wearcosim build --timings`` of several models: each stage's wall and CPU seconds per
    model, then their sums; ``--no-build-cache``: the output folder holds the FMUs alone."""
    from wearcosim import cli
    from wearcosim.export.build import STAGES
    monkeypatch.setenv("WEARCOSIM_PLATFORMS", package.platform_dir())
    monkeypatch.delenv("WEARCOSIM_BUILD_CACHE", raising=False)
    assert cli.main(["build", "WearCosim.Examples.Basic.VanDerPol", "WearCosim.Examples.Basic.BouncingBall",
                     "--out", str(tmp_path), "--timings", "--no-build-cache"]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BouncingBall.fmu", "VanDerPol.fmu"]
    cpu = [x for x in out.splitlines() if x.strip().startswith("stages (CPU s):")]
    assert len(cpu) == 2
    assert [part.rsplit(" ", 1)[0] for part in cpu[0].split(":", 1)[1].strip().split(", ")] == list(STAGES)
    table = out[out.index("stages of 2 builds:"):].splitlines()
    assert [row.split()[0] for row in table[1:]] == [s.split()[0] for s in STAGES] + ["total"]
