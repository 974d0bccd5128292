"""The front end keeps rumoca's session between the builds of one process (``frontend._session``):
a second model of the same libraries is flattened without parsing them again.  What must hold
is that a kept session never answers from an outdated library: an edited file is read again,
a removed or added one makes a new session, and source text outside any package (which a
session would keep as a document of its own) never goes through a kept session.  The models
are written here, in the small packages a user keeps beside their work."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from wearcosim.export import frontend
from wearcosim.export.build import load
from wearcosim.export.errors import ExportError

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def counted(monkeypatch):
    """rumoca's ``Session`` with a count of the sessions made; no session kept before."""
    import rumoca
    made = []

    def session(*args, **kw):
        made.append(kw.get("roots"))
        return rumoca.Session(*args, **kw)
    spy = types.SimpleNamespace(**{**vars(rumoca), "Session": session})
    monkeypatch.setattr(frontend, "_rumoca", lambda: spy)
    frontend.release_sessions()
    yield made
    frontend.release_sessions()


@pytest.fixture
def decay(tmp_path):
    """Package P: ``M`` (a first-order decay) extends ``N`` (its rate k), one file each."""
    lib = tmp_path / "lib"
    _write(lib / "P" / "package.mo", "package P\nend P;\n")
    _write(lib / "P" / "N.mo", "within P;\npartial model N\n  parameter Real k = 3;\nend N;\n")
    _write(lib / "P" / "M.mo", """\
        within P;
        model M
          extends P.N;
          Real x(start = 1, fixed = true);
        equation
          der(x) = -k*x;
        end M;
        """)
    _write(lib / "P" / "L.mo", """\
        within P;
        model L
          parameter Real c = 2;
          Real y(start = 0, fixed = true);
        equation
          der(y) = c - y;
        end L;
        """)
    return lib / "P"


def _start(model, name):
    """The literal value of parameter ``name`` of the flat model (its binding, else its start)."""
    v = model.variables[name]
    return (v.binding if v.binding is not None else v.start).value


def test_two_models_of_one_package_share_one_session(counted, decay):
    m = load(decay / "M.mo", "P.M")
    first = len(counted)
    l_ = load(decay / "L.mo", "P.L")
    again = load(decay / "M.mo", "P.M")
    assert len(counted) == first, "the second and third build made a session of their own"
    assert _start(m, "k") == _start(again, "k") == 3
    assert _start(l_, "c") == 2


def test_an_edited_library_file_is_read_again(counted, decay):
    assert _start(load(decay / "M.mo", "P.M"), "k") == 3
    st = os.stat(decay / "N.mo")
    text = (decay / "N.mo").read_text().replace("k = 3", "k = 5")
    (decay / "N.mo").write_text(text)
    os.utime(decay / "N.mo", ns=(st.st_atime_ns, st.st_mtime_ns))   # same size, same time
    assert _start(load(decay / "M.mo", "P.M"), "k") == 5


def test_a_removed_library_file_is_not_used_from_the_session(counted, decay):
    load(decay / "M.mo", "P.M")
    n = len(counted)
    (decay / "N.mo").unlink()
    with pytest.raises(ExportError, match="N"):
        load(decay / "M.mo", "P.M")
    assert len(counted) > n, "a removed file must make a new session"


def test_an_added_library_file_is_found(counted, decay):
    _write(decay / "K.mo", "within P;\nmodel K\n  extends P.M(k = 7);\nend K;\n")
    assert _start(load(decay / "K.mo", "P.K"), "k") == 7


def test_files_outside_a_package_never_share_a_session(counted, tmp_path):
    """Two files in different folders, each defining class ``Foo`` differently: a session that
    kept the first would refuse the second as a duplicate class, or answer with the first."""
    a = _write(tmp_path / "a" / "Foo.mo", "model Foo\n  parameter Real k = 1;\n  Real x(start = 1);\n"
                                          "equation\n  der(x) = -k*x;\nend Foo;\n")
    b = _write(tmp_path / "b" / "Foo.mo", "model Foo\n  parameter Real k = 2;\n  Real x(start = 1);\n"
                                          "equation\n  der(x) = -k*x;\nend Foo;\n")
    assert _start(load(a, "Foo"), "k") == 1
    assert _start(load(b, "Foo"), "k") == 2
    assert frontend._SESSIONS == [] or all(e[0] != () for e in frontend._SESSIONS)


_HOLD = """\
import os, sys, time
sys.path.insert(0, {python!r})
from wearcosim.export import frontend
print(frontend._process_rumoca_cache(), flush=True)
{tail}
"""


def _child(tmp_path, tail):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("WEARCOSIM_BUILD_CACHE", None)
    return subprocess.Popen([sys.executable, "-c", _HOLD.format(python=str(ROOT / "python"), tail=tail)],
                            stdout=subprocess.PIPE, text=True, env=env)


def test_the_process_cache_folder_is_removed_at_exit_and_after_a_kill(tmp_path):
    """rumoca's cache of a process without the build cache (hundreds of MB with MSL) lives in
    the temporary folder as long as the process: removed at its exit; after a kill (no exit
    handler runs) by the next process that makes one."""
    p = _child(tmp_path, "")
    folder = Path(p.stdout.readline().strip())
    assert p.wait(timeout=60) == 0
    assert not folder.exists()
    p = _child(tmp_path, "time.sleep(60)")
    killed = Path(p.stdout.readline().strip())
    assert killed.is_dir()
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    assert killed.is_dir()                      # nothing ran at the kill
    p = _child(tmp_path, "")
    assert p.wait(timeout=60) == 0
    assert not killed.exists(), "a dead process's cache folder was left behind"
    assert not list(tmp_path.glob(frontend.XDG_PROCESS_PREFIX + "*"))


def _app(tmp_path, decay, monkeypatch):
    """Package A in ``tmp_path/app``: One and Two extend P.M (k = 4, 6); P found on MODELICAPATH."""
    _write(tmp_path / "app" / "A" / "package.mo", "package A\nend A;\n")
    for name, k in (("One", 4), ("Two", 6)):
        _write(tmp_path / "app" / "A" / f"{name}.mo",
               f"within A;\nmodel {name}\n  extends P.M(k = {k});\nend {name};\n")
    monkeypatch.setenv("MODELICAPATH", str(decay.parent))


def test_a_package_and_a_library_of_two_folders_share_a_session(counted, decay, tmp_path, monkeypatch):
    """A package beside its work folder using a library of another folder (WearCosimMSL and the
    MSL): both folders hold exactly the packages used, so they are rumoca's roots as they are
    and the builds share a session."""
    _app(tmp_path, decay, monkeypatch)
    assert _start(load(tmp_path / "app" / "A" / "One.mo", "A.One"), "k") == 4
    n = len(counted)
    assert _start(load(tmp_path / "app" / "A" / "Two.mo", "A.Two"), "k") == 6
    assert len(counted) == n
    assert sorted(counted[-1]) == sorted([str(tmp_path / "app"), str(decay.parent)])


def test_an_error_after_a_kept_session_is_a_new_sessions_error(counted, decay):
    """A model with an error, built after another one in the same process: the same error as
    in a process of its own (the kept session is dropped and the model loaded in a new one)."""
    load(decay / "M.mo", "P.M")
    text = (decay / "L.mo").read_text()
    (decay / "L.mo").write_text(text.replace("der(y) = c - y;", "der(y) = c - z;"))
    with pytest.raises(ExportError) as kept:
        load(decay / "L.mo", "P.L")
    frontend.release_sessions()
    with pytest.raises(ExportError) as fresh:
        load(decay / "L.mo", "P.L")
    assert str(kept.value) == str(fresh.value) and "z" in str(kept.value)
    (decay / "L.mo").write_text(text)
    assert _start(load(decay / "L.mo", "P.L"), "c") == 2


def test_packages_of_two_folders_through_a_view_of_links(counted, decay, tmp_path, monkeypatch):
    """A package that uses one library of a folder holding others too (a MODELICAPATH folder)
    is handed to rumoca through a view of links (kept in the build cache); rumoca reads a linked
    file as a document of its own, so such roots never get a kept session -- two models of the
    package build one after the other."""
    monkeypatch.setenv("WEARCOSIM_BUILD_CACHE", str(tmp_path / "cache"))
    _write(decay.parent / "Unrelated" / "package.mo", "package Unrelated\nend Unrelated;\n")
    _app(tmp_path, decay, monkeypatch)
    assert _start(load(tmp_path / "app" / "A" / "One.mo", "A.One"), "k") == 4
    assert _start(load(tmp_path / "app" / "A" / "Two.mo", "A.Two"), "k") == 6
    assert _start(load(tmp_path / "app" / "A" / "One.mo", "A.One"), "k") == 4
    assert list((tmp_path / "cache" / "library-views").iterdir()), "the libraries were not seen through a view"


def test_library_roots_are_real_folders_where_they_hold_only_what_is_asked(tmp_path):
    """rumoca parses every package of a root folder: a folder is handed over as it is when it
    holds the packages asked for and nothing else -- or when it is the bundled library's folder,
    whose other package (WearCosimMSL) is ours, so the bundled examples keep their session; a
    user's folder with a package more goes through a view of links, and so does the bundled
    folder when one of its other packages is asked for from elsewhere (a user's copy)."""
    from wearcosim.resources import library_root
    bundled = library_root()
    with frontend._library_view([bundled / "WearCosim"]) as roots:
        assert roots == [str(bundled)]
    user = tmp_path / "lib"
    for name in ("Mine", "Other"):
        _write(user / name / "package.mo", f"package {name}\nend {name};\n")
    with frontend._library_view([user / "Mine"]) as roots:
        assert roots != [str(user)] and frontend._is_view(roots[0])
    copy = tmp_path / "copy" / "WearCosimMSL"
    _write(copy / "package.mo", "package WearCosimMSL\nend WearCosimMSL;\n")
    with frontend._library_view([bundled / "WearCosim", copy]) as roots:
        assert len(roots) == 1 and frontend._is_view(roots[0])
