"""Libraries found on MODELICAPATH (Modelica specification 13.3.3): a model outside the repository
uses the WearCosim library, or libraries of its own, through the environment variable; only the
packages a build refers to are read (a broken package beside them on the path is never parsed);
the first folder on the path that holds a package wins, also over the bundled WearCosim."""
import textwrap

import fmpy
import pytest

from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def _decay(name, ref):
    return f"""
    model {name}
      Real x(start = 1, fixed = true);
      output Real y;
    equation
      der(x) = -{ref}*x;
      y = x;
    end {name};
    """


@pytest.fixture
def libs(tmp_path):
    """Two library folders: lib1 holds Helper (k = 3) and a broken package Bad; lib2 holds
    another Helper (k = 5, single-file package) and a package UsesHelper referring to it."""
    l1, l2 = tmp_path / "lib1", tmp_path / "lib2"
    _write(l1 / "Helper" / "package.mo", "package Helper\n  constant Real k = 3;\nend Helper;\n")
    _write(l1 / "Bad" / "package.mo", "package Bad\n  model X Real x end X;\nend Bad;\n")   # syntax error
    _write(l2 / "Helper.mo", "package Helper\n  constant Real k = 5;\nend Helper;\n")
    _write(l2 / "Chain" / "package.mo", "package Chain\n  constant Real k2 = 2*Helper.k;\nend Chain;\n")
    return l1, l2


def _final(fmu):
    r = fmpy.simulate_fmu(str(fmu), stop_time=0.1, output_interval=0.1, output=["y"])
    return float(r["y"][-1])


def _pathvar(*dirs):
    import os
    return os.pathsep.join(str(d) for d in dirs)


def test_library_on_modelicapath_only_referenced_packages_read(tmp_path, libs, monkeypatch):
    l1, l2 = libs
    src = _write(tmp_path / "user" / "UseHelper.mo", _decay("UseHelper", "Helper.k"))
    monkeypatch.setenv("MODELICAPATH", _pathvar(l1))
    r = build_fmu("UseHelper", src.parent, tmp_path / "out", path=src)      # Bad is never parsed
    assert _final(r.fmu) == pytest.approx(pytest.importorskip("math").exp(-0.3), rel=1e-5)


def test_first_folder_on_the_path_wins_and_references_are_transitive(tmp_path, libs, monkeypatch):
    import math
    l1, l2 = libs
    src = _write(tmp_path / "user" / "UseChain.mo", _decay("UseChain", "Chain.k2"))
    monkeypatch.setenv("MODELICAPATH", _pathvar(l2, l1))                     # Helper from lib2: k = 5
    r = build_fmu("UseChain", src.parent, tmp_path / "out", path=src)
    assert _final(r.fmu) == pytest.approx(math.exp(-1.0), rel=1e-5)


def test_user_package_uses_a_library_on_the_path(tmp_path, libs, monkeypatch):
    import math
    l1, _ = libs
    _write(tmp_path / "pkg" / "UserPkg" / "package.mo", "package UserPkg\nend UserPkg;\n")
    src = _write(tmp_path / "pkg" / "UserPkg" / "M.mo", "within UserPkg;" + _decay("M", "Helper.k"))
    monkeypatch.setenv("MODELICAPATH", _pathvar(l1))
    r = build_fmu("UserPkg.M", src.parent, tmp_path / "out", path=src)
    assert _final(r.fmu) == pytest.approx(math.exp(-0.3), rel=1e-5)


def test_a_copy_of_wearcosim_on_the_path_shadows_the_bundled_library(tmp_path, monkeypatch):
    import math
    lib = tmp_path / "mylibs"
    _write(lib / "WearCosim" / "package.mo", "package WearCosim\n  constant Real rate = 7;\nend WearCosim;\n")
    src = _write(tmp_path / "user" / "UseRate.mo", _decay("UseRate", "WearCosim.rate"))
    monkeypatch.setenv("MODELICAPATH", str(lib))
    r = build_fmu("UseRate", src.parent, tmp_path / "out", path=src)
    assert _final(r.fmu) == pytest.approx(math.exp(-0.7), rel=1e-5)


def test_missing_library_is_an_error_with_the_line(tmp_path, monkeypatch):
    src = _write(tmp_path / "user" / "UseMissing.mo", _decay("UseMissing", "Nowhere.k"))
    monkeypatch.setenv("MODELICAPATH", str(tmp_path / "does-not-exist"))
    with pytest.raises(ExportError) as e:
        build_fmu("UseMissing", src.parent, tmp_path / "out", path=src)
    assert "UseMissing.mo:6" in str(e.value) and "Nowhere.k" in str(e.value)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
