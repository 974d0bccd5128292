"""The fuzzer's worker pool survives a worker that dies, a task that hangs and a task that raises."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from wearcosim.export.fuzz.pool import run_tasks  # noqa: E402


def test_dead_hung_and_raising_workers_cost_only_their_task():
    import _pool_tasks as T
    got = list(run_tasks(T.task, [1, "die", 2, "hang", 3, "raise", 4], jobs=2, timeout=6.0, on_failure=T.failure))
    ok = sorted(x for x in got if isinstance(x, int))
    assert ok == [2, 4, 6, 8]
    fails = sorted(x for x in got if isinstance(x, tuple))
    assert fails == [("die", "worker-died"), ("hang", "timeout"), ("raise", "error")]
