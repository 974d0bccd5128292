"""Fixtures of the master's tests: the PressedJournal test FMU (a journal pressed by a constant
force at a fixed angle, spinning at constant speed; closed-form wear), built once per session."""
import pytest

from wctest import ROOT

FIX = ROOT / "tests" / "master" / "fixtures"


@pytest.fixture(scope="session")
def pressed_fmu(tmp_path_factory):
    from wearcosim.export.build import build_fmu
    out = tmp_path_factory.mktemp("pressed")
    return build_fmu("PressedJournal", FIX / "pressed", out, path=FIX / "pressed" / "PressedJournal.mo").fmu


@pytest.fixture(autouse=True)
def _no_kept_study_instance():
    """A test that calls run_shipped in this process leaves no FMU instance or folder kept
    for a next batch (the temp-folder check runs after this)."""
    yield
    from wearcosim.studies.runner import close_shipped
    close_shipped()
