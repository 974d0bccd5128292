"""The documentation site (docs/, mkdocs.yml): it builds with ``mkdocs build --strict`` (a
warning, a broken link or anchor, a page missing from the navigation fail), and what it cites
exists: repository files, Modelica classes, Python modules, every command-line option, every
scenario key, every wear-interface name and results dataset."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from wctest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _code_spans(text: str) -> list[str]:
    """Inline code spans and the lines of fenced code blocks."""
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"```.*?```", "", text, flags=re.S))
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.S):
        spans.extend(block.splitlines())
    return spans


# ------------------------------------------------------------------ the build
def test_site_builds_strict(tmp_path):
    """``mkdocs build --strict`` of mkdocs.yml into a temp folder: exit 0, every page rendered."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.skip("mkdocs is not installed (pip install 'wearcosim[test]' or 'mkdocs>=1.6')")
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
                           "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    assert "WARNING" not in log, log
    for page in PAGES:
        html = site / page.relative_to(DOCS).with_suffix(".html")
        assert html.is_file(), f"{page.relative_to(ROOT)} was not rendered ({html.name} missing)"


def test_every_page_is_in_the_nav():
    """Also checked by --strict (validation.nav.omitted_files); here without mkdocs installed."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, flags=re.M))
    missing = [str(p.relative_to(DOCS)) for p in PAGES if str(p.relative_to(DOCS)) not in listed]
    assert not missing, f"pages not in the nav of mkdocs.yml: {missing}"
    stale = [p for p in listed if not (DOCS / p).is_file()]
    assert not stale, f"nav entries without a page: {stale}"


# ------------------------------------------------------------------ what the pages cite exists
_REPO_PATH = re.compile(r"(?<![\w./-])((?:modelica|python|fmu|cosim|tests|examples|docs|scripts)/[\w./*-]+)")
_MODELICA = re.compile(r"^(?:WearCosim\.)?((?:Contact|Joints|Mechanisms|Gears|Rotor|Interfaces|Components|Examples|Units)"
                       r"(?:\.[A-Za-z]\w*)*)$")
_PY_MODULE = re.compile(r"(?<![\w.])(wearcosim(?:\.\w+)+)")


def _modelica_exists(dotted: str) -> bool:
    """``Gears.GearMesh`` -> modelica/WearCosim/Gears/GearMesh.mo (or a package folder); the
    component pages name examples relative to ``WearCosim.Examples`` (``Gears.CardonaCase1``)."""
    parts = dotted.split(".")
    for base in (ROOT / "modelica" / "WearCosim", ROOT / "modelica" / "WearCosim" / "Examples"):
        if base.joinpath(*parts).with_suffix(".mo").is_file() or base.joinpath(*parts).is_dir():
            return True
    return False


def _python_exists(dotted: str) -> bool:
    """``wearcosim.wear.archard.sector_pressure``: the longest prefix that is a module or
    package of python/, and at most one attribute defined in that module."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        stem = ROOT / "python" / Path(*parts[:i])
        src = stem.with_suffix(".py") if stem.with_suffix(".py").is_file() else stem / "__init__.py"
        if not src.is_file():
            continue
        rest = parts[i:]
        if not rest:
            return True
        if len(rest) > 1:
            return False
        return re.search(rf"^\s*(def|class)\s+{rest[0]}\b|^\s*{rest[0]}\s*[:=]|import .*\b{rest[0]}\b",
                         src.read_text(encoding="utf-8"), flags=re.M) is not None
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_cited_files_classes_and_modules_exist(page):
    text = page.read_text(encoding="utf-8")
    bad = []
    for span in _code_spans(text):
        for path in _REPO_PATH.findall(span):
            path = path.rstrip(".")
            # placeholders, and output folders that exist only once something was built or run
            if "<" in path or path.startswith(("cosim/systems/fmus", "fmu/build", "results", "build/site")):
                continue
            if not (any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
                bad.append(f"file {path}")
        token = span.strip()
        m = _MODELICA.match(token)
        if m and not _modelica_exists(m.group(1)):
            bad.append(f"Modelica class {token}")
        for mod in _PY_MODULE.findall(span):
            if not _python_exists(mod):
                bad.append(f"Python name {mod}")
    assert not bad, f"{page.relative_to(ROOT)} cites what does not exist: {sorted(set(bad))}"


# ------------------------------------------------------------------ reference pages are complete
def _help(argv) -> str:
    from wearcosim import cli
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit) as exc:
        cli.main(argv + ["--help"])
    assert exc.value.code == 0
    return buf.getvalue()


def _commands(help_text: str) -> list[str]:
    block = help_text.split("COMMAND", 2)[-1] if "COMMAND" in help_text else help_text.split("SUBCOMMAND", 2)[-1]
    return re.findall(r"^    (\w[\w-]*)\s", block.split("options:")[0], flags=re.M)


def test_cli_page_lists_every_command_and_option():
    page = _text("cli.md")
    commands = _commands(_help([]))
    assert {"build", "check", "simulate", "run", "plot", "study", "demo", "system"} <= set(commands)
    argvs = [[c] for c in commands if c != "system"]
    sub = _commands(_help(["system"]))
    assert {"check", "pack", "show", "run"} <= set(sub)
    argvs += [["system", s] for s in sub]
    missing = []
    for argv in [[]] + argvs:
        if argv and f"wearcosim {' '.join(argv)}" not in page and f"## {argv[-1]}" not in page:
            missing.append(" ".join(argv))
        for opt in set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", _help(argv))) - {"--help"}:
            if f"`{opt}" not in page:
                missing.append(f"{' '.join(argv) or 'wearcosim'} {opt}")
    assert not missing, f"docs/cli.md does not document: {missing}"


def test_scenario_page_lists_every_key():
    from wearcosim.master.scenario import SCHEMA
    page = _text("scenarios.md")
    missing = []
    for key, sub in SCHEMA.items():
        if isinstance(sub, dict):
            if f"`[{key}]`" not in page:
                missing.append(f"[{key}]")
            missing += [f"{key}.{k}" for k in sub if f"| `{k}` |" not in page]
        elif f"| `{key}` |" not in page and f"`[{key}]`" not in page:
            missing.append(key)
    assert not missing, f"docs/scenarios.md does not document: {missing}"


def test_wear_interface_page_lists_every_name():
    from wearcosim import wear_interface as wi
    page = _text("wear-interface.md")
    names = list(wi.OUTPUTS) + [wi.FLAG, *wi.GEOMETRY, *wi.RADIUS_ALIASES, *wi.PROFILE, "wearDepth", "nSectors"]
    missing = [n for n in names if f"`{n}" not in page]
    assert not missing, f"docs/wear-interface.md does not document: {missing}"


def test_results_page_lists_every_dataset():
    from wearcosim.master.loop import WearMaster
    page = _text("results.md")
    names = list(WearMaster.SUMMARY) + list(WearMaster.HISTORY) + [
        "cycles", "simulated_cycles", "depth", "sector_centres", "final", "error_bound",
        "mode", "rtol", "accepted", "rejected", "error_estimate", "relative_error_estimate", "sector_error_estimate"]
    missing = [n for n in names if f"`{n}`" not in page]
    assert not missing, f"docs/results.md does not document: {missing}"


def test_api_page_quotes_the_quickstart():
    """docs/api.md's quick start is examples/quickstart.py (after its docstring), verbatim."""
    block = re.search(r"## Quick start.*?```python\n(.*?)```", _text("api.md"), flags=re.S).group(1)
    body = (ROOT / "examples" / "quickstart.py").read_text(encoding="utf-8").split('"""', 2)[2].lstrip("\n")
    assert block == body, "docs/api.md's quick start differs from examples/quickstart.py"
