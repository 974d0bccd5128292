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
