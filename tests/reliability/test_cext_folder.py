"""Where the Python side's compiled C helpers go (``wearcosim.cext``): into the folder the user
names (``WEARCOSIM_CACHE``), else beside the package's own files, never into the user's home;
where nothing can be written the callers' Python code runs (``build`` gives None)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from wearcosim import cext

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "gcc")) is None, reason="needs a C compiler")

SRC = "double wc_twice(double x) { return 2.0 * x; }\n"


def _source(tmp_path: Path, text: str = SRC) -> Path:
    src = tmp_path / "twice.c"
    src.write_text(text)
    return src


def test_helpers_go_to_the_named_folder_and_never_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("WEARCOSIM_CACHE", str(tmp_path / "named"))
    lib = cext.build(_source(tmp_path))
    assert lib is not None and lib.parent == tmp_path / "named"
    monkeypatch.delenv("WEARCOSIM_CACHE")
    assert cext.cache_dir() == Path(cext.__file__).resolve().parent / "_cext"
    assert list(home.iterdir()) == []


def test_a_folder_that_cannot_be_made_means_the_python_code(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("WEARCOSIM_CACHE", str(blocker / "cache"))
    assert cext.build(_source(tmp_path, SRC + "/* other */\n")) is None
    assert blocker.read_text() == "not a folder" and sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "twice.c"]
