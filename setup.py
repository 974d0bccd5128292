"""Packaging hook: the wheel carries the Modelica library and the C sources FMUs are built
from (``modelica/``, ``fmu/runtime``, ``fmu/templates``, ``fmu/container``) as
``wearcosim/_data/``, so a non-editable install can build FMUs (see wearcosim/resources.py).
Everything else is in pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA = [("modelica", ("*.mo", "package.order")), ("fmu/runtime", ("*.c", "*.h")), ("fmu/runtime/include", ("*.h",)),
        ("fmu/templates", ("*.in", "*.h")), ("fmu/container", ("*.c", "*.h")),
        ("cosim", ("*.toml", "*.ssd", "*.ssp"))]


class BuildWithData(build_py):
    def run(self):
        super().run()
        dest = Path(self.build_lib) / "wearcosim" / "_data"
        for folder, patterns in DATA:
            src = HERE / folder
            for pat in patterns:
                for f in sorted(src.rglob(pat) if folder in ("modelica", "cosim") else src.glob(pat)):
                    out = dest / f.relative_to(HERE)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, out)


setup(cmdclass={"build_py": BuildWithData})
