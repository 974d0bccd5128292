"""The hand-written FMI runtime tested on its own (fmu/runtime/tests/run_tests.sh): solver
accuracy/order, events, Newton, state save/restore, illegal calls, FMPy on hand-written
test models.  The script compiles with -Wall -Wextra -Werror and prints 'N passed, M failed'."""
import re
import subprocess

from wctest import ROOT


def test_runtime_suite():
    p = subprocess.run(["bash", str(ROOT / "fmu" / "runtime" / "tests" / "run_tests.sh")],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    out = p.stdout + p.stderr
    m = re.search(r"(\d+) passed, (\d+) failed", out)
    assert m, out[-3000:]
    assert p.returncode == 0 and int(m.group(2)) == 0, out[-3000:]
    assert int(m.group(1)) >= 100
