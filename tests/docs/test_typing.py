"""The package ships ``py.typed``: its public functions say their types.

1. Every public function and method (module-level, and in public classes of public modules)
   annotates all its parameters and its return value: read from the source with ``ast``, so
   the test does not depend on importing optional dependencies.
2. The documented API and the example script type-check with mypy (when mypy is installed),
   as a user's editor or CI would see them.
"""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "python" / "wearcosim"


def _public_modules():
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(PKG).parts
        if any(x.startswith("_") and x not in ("__init__.py", "__main__.py") for x in parts):
            continue
        yield p


def _unannotated(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node: ast.AST, in_class: bool) -> None:
        for n in ast.iter_child_nodes(node):
            if isinstance(n, ast.ClassDef):
                if not n.name.startswith("_"):
                    visit(n, True)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if n.name.startswith("_") and n.name not in ("__init__", "__call__"):
                    continue
                a = n.args
                params = a.posonlyargs + a.args + a.kwonlyargs
                params += [x for x in (a.vararg, a.kwarg) if x is not None]
                if in_class and params and params[0].arg in ("self", "cls") and not any(
                        isinstance(d, ast.Name) and d.id == "staticmethod" for d in n.decorator_list):
                    params = params[1:]
                missing = [x.arg for x in params if x.annotation is None]
                if n.returns is None and n.name != "__init__":
                    missing.append("return")
                if missing:
                    out.append(f"{path.relative_to(ROOT)}:{n.lineno} {n.name}: {', '.join(missing)}")

    visit(tree, False)
    return out


def test_public_functions_are_annotated():
    problems = [p for m in _public_modules() for p in _unannotated(m)]
    assert not problems, f"{len(problems)} public functions without full type hints:\n" + "\n".join(problems)


def test_the_checker_sees_a_missing_hint(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def ok(a: int) -> int:\n    return a\n\n\ndef bad(a, b: int = 1):\n    return a\n\n\n"
                 "class C:\n    def m(self, x: int) -> None:\n        pass\n\n    def n(self, x):\n        pass\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        got = _unannotated(f)
    finally:
        ROOT = saved
    assert got == ["m.py:5 bad: a, return", "m.py:13 n: x, return"]


@pytest.mark.skipif(shutil.which("mypy") is None and
                    subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0,
                    reason="mypy is not installed")
def test_api_and_example_type_check():
    r = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
                        "--no-error-summary", "--cache-dir", "/dev/null",
                        str(PKG / "__init__.py"), str(PKG / "api.py"), str(ROOT / "examples" / "quickstart.py")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
