"""The OpenModelica backend's use of OMPython, without omc: a stand-in OMPython module records
the expressions; the backend takes OMPython 4.1's OMCSessionLocal where it exists (never the
deprecated OMCSessionZMQ then), OMCSessionZMQ of older OMPython otherwise, always ends the
session, and turns a missing OMPython or a failing expression into one ExportError line.
(The real build is tested in test_cli.py where omc is installed.)"""
import sys
import types

import pytest

from wearcosim.export import openmodelica
from wearcosim.export.errors import ExportError


class _Session:
    made = []

    def __init__(self, fail_on=None):
        self.sent, self.fail_on = [], fail_on
        _Session.made.append(self)

    def sendExpression(self, expr):
        self.sent.append(expr)
        if self.fail_on and expr.startswith(self.fail_on):
            raise RuntimeError("Error: class Nope not found\n in scope")
        if expr.startswith("buildModelFMU"):
            return "/out/VanDerPol.fmu"
        return True


def _fake(monkeypatch, local=True, fail_on=None):
    mod = types.ModuleType("OMPython")
    if local:
        mod.OMCSessionLocal = lambda: _Session(fail_on)

    def zmq():
        s = _Session(fail_on)
        s.deprecated = True
        return s
    mod.OMCSessionZMQ = zmq
    monkeypatch.setitem(sys.modules, "OMPython", mod)
    monkeypatch.setattr(openmodelica, "available", lambda: True)
    _Session.made.clear()


@pytest.mark.parametrize("local", [True, False])
def test_session_of_the_installed_ompython(monkeypatch, tmp_path, local):
    _fake(monkeypatch, local=local)
    got = openmodelica.build_fmu("WearCosim.Examples.Basic.VanDerPol", tmp_path / "lib", tmp_path / "out")
    assert str(got) == "/out/VanDerPol.fmu"
    (s,) = _Session.made
    assert getattr(s, "deprecated", False) is (not local)
    assert s.sent[0].startswith('loadFile("') and s.sent[0].endswith('/lib/package.mo")')
    assert s.sent[-2] == 'buildModelFMU(WearCosim.Examples.Basic.VanDerPol, version="2.0", fmuType="me_cs", ' \
                         'fileNamePrefix="VanDerPol")'
    assert s.sent[-1] == "quit()"


def test_failing_expression_is_one_error_line_and_the_session_ends(monkeypatch, tmp_path):
    _fake(monkeypatch, fail_on="buildModelFMU")
    with pytest.raises(ExportError) as e:
        openmodelica.build_fmu("Nope", tmp_path, tmp_path / "out")
    assert "buildModelFMU failed: Error: class Nope not found in scope" in str(e.value)
    assert "\n" not in str(e.value) and _Session.made[0].sent[-1] == "quit()"


def test_missing_ompython_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "OMPython", None)        # import fails
    monkeypatch.setattr(openmodelica, "available", lambda: True)
    with pytest.raises(ExportError, match=r"pip install 'wearcosim\[openmodelica\]'"):
        openmodelica.build_fmu("M", tmp_path, tmp_path / "out")
