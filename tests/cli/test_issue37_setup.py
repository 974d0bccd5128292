"""Issue 37: ``make demo`` / ``make test`` work in the project's virtual environment and never
install into the interpreter that creates it.  The Makefile's structure is checked from its
text and from ``make -n`` (nothing is run); the real install on a fresh clone, with the
system's package list compared before and after, is the slow test at the end."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wctest import ROOT

MAKEFILE = (ROOT / "Makefile").read_text()


def dry_run(target: str, tmp_path: Path, **var) -> list[str]:
    """The commands ``make -n TARGET`` would run in a copy of the set-up files (no .venv yet)."""
    if not shutil.which("make"):
        pytest.skip("no make")
    for f in ("Makefile", "pyproject.toml", "setup.py", "constraints.txt"):
        shutil.copy(ROOT / f, tmp_path / f)
    args = [f"{k}={v}" for k, v in var.items()]
    p = subprocess.run(["make", "-n", target, *args], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_the_environment_is_the_projects_venv():
    assert re.search(r"^VENV \?= \.venv$", MAKEFILE, re.M)
    assert re.search(r"^PY := \$\(VENV\)/bin/python$", MAKEFILE, re.M)
    # every pip call is the environment's, and refuses to run outside a virtual environment
    assert re.search(r"^PIP := PIP_REQUIRE_VIRTUALENV=1 \$\(PY\) -m pip ", MAKEFILE, re.M)
    recipes = [l for l in MAKEFILE.splitlines() if l.startswith("\t")]
    for line in recipes:
        assert not re.search(r"(^|[\s;])pip3? ", line), f"a bare pip in the Makefile: {line!r}"
        assert "$(PYTHON) -m pip" not in line and "--user" not in line and "sudo" not in line, line
    # the system's interpreter only creates the environment (venv, else virtualenv, else one error line)
    modules = set(re.findall(r"\$\(PYTHON\) -m (\w+)", "\n".join(recipes)))
    assert modules == {"venv", "virtualenv"}, modules
    assert "apt-get install python3-venv" in MAKEFILE


@pytest.mark.parametrize("target, spec", [("demo", "-e ."), ("test", "-e '.[test]'")])
def test_make_n_runs_everything_in_the_venv(tmp_path, target, spec):
    venv = tmp_path / "env"
    lines = dry_run(target, tmp_path, VENV=venv)
    assert any(f"{sys.executable}" in l or "python3 -m venv" in l for l in lines) or \
        any(f"-m venv {venv}" in l for l in lines)
    installs = [l for l in lines if " -m pip " in l]
    assert len(installs) == 1, installs
    (install,) = installs
    assert install.startswith(f"PIP_REQUIRE_VIRTUALENV=1 {venv}/bin/python -m pip")
    assert install.endswith(f"install --progress-bar on -c constraints.txt {spec}"), install
    runs = [l for l in lines if "-m wearcosim.cli demo" in l or "-m pytest" in l]
    assert runs and all(f"{venv}/bin/python -m" in l for l in runs), runs
    assert f"virtual environment {venv}" in "\n".join(lines)            # make says where it is


def test_the_demo_installs_the_runtime_dependencies_only(tmp_path):
    lines = dry_run("demo", tmp_path)
    assert not [l for l in lines if "[test]" in l or "[bench]" in l or "[dask]" in l]


def test_the_suite_runs_in_parallel_with_durations():
    m = re.search(r"^PYTEST_ARGS \?= (.*)$", MAKEFILE, re.M)
    args = m.group(1).split()
    assert "-n" in args and args[args.index("-n") + 1] == "auto"
    assert "--dist" in args and args[args.index("--dist") + 1] == "loadfile"
    assert "--durations=25" in args
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)
    assert '"$rc" -eq 5' in ci and "exit 1" in ci                       # no tests collected: a failure


def test_readme_starts_with_the_two_commands():
    assert (ROOT / "README.md").read_text().startswith("```\nmake demo\nmake test\n```\n")


def test_venv_is_git_ignored():
    assert "/.venv/" in (ROOT / ".gitignore").read_text().split()


# ---------------------------------------------------------------- the real install (slow)
def _system_packages() -> str:
    return subprocess.run([sys.executable, "-m", "pip", "freeze", "--all"], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.slow
def test_fresh_clone_installs_into_its_venv_only(tmp_path):
    """A fresh clone's ``make install`` (what ``make demo`` installs before it runs) and ``make
    install-test`` (what ``make test`` adds): the system's package list is the same before and
    after, the runtime environment has no test tool, the test environment has pytest-xdist."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    before = _system_packages()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    p = subprocess.run(["make", "install"], cwd=clone, env=env, capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    py = clone / ".venv" / "bin" / "python"
    names = subprocess.run([str(py), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                           check=True).stdout.lower()
    assert "wearcosim==" in names and "casadi==" in names
    for heavy in ("pytest==", "ross-rotordynamics==", "dask==", "mkdocs==", "mypy=="):
        assert heavy not in names, heavy
    size = subprocess.run(["du", "-sm", str(clone / ".venv")], capture_output=True, text=True).stdout.split()[0]
    print(f"runtime-only .venv: {size} MB")
    p = subprocess.run(["make", "install-test"], cwd=clone, env=env, capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert subprocess.run([str(py), "-c", "import xdist, pytest, wearcosim"]).returncode == 0
    assert _system_packages() == before
