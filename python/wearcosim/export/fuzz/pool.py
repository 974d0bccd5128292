"""Worker processes that cannot hang the fuzzer.

``multiprocessing.Pool`` loses a task whose worker dies (a segfault in an FMU's C code, an
``os._exit`` in a library, the OOM killer) and its ``imap`` then waits for it forever; it has
no per-task time limit either.  :func:`run_tasks` keeps ``jobs`` spawned workers, hands each one
task at a time through its own pipe, and watches the pipes and the process sentinels together:

* a worker that dies: the task's result is ``on_failure(task, "worker-died", detail)`` and a new
  worker takes its place;
* a task that runs past ``timeout`` seconds: the worker's whole process group (the worker made
  itself a group leader, so compilers and simulators it started go too) is killed, the result
  is ``on_failure(task, "timeout", ...)``, a new worker takes its place;
* the parent never blocks on a pipe without a time-out, and at the end every worker it started
  is ended (by its process id).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
import traceback
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable, Iterator


def _worker(conn: Any, fn: Callable[[Any], Any]) -> None:
    try:
        os.setsid()                     # its own process group: the parent can end it with its children
    except OSError:
        pass
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            res = ("ok", fn(task))
        except BaseException as exc:    # the task's own error: reported, the worker goes on
            res = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}")
        try:
            conn.send(res)
        except (BrokenPipeError, OSError):
            return


class _Slot:
    def __init__(self, ctx: Any, fn: Callable[[Any], Any]):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, fn), daemon=True)
        self.proc.start()
        child.close()
        self.task: Any = None
        self.t0 = 0.0
        self.busy = False

    def kill(self) -> None:
        pid = self.proc.pid
        if pid is not None and self.proc.is_alive():
            try:
                os.killpg(pid, signal.SIGKILL)      # the worker's group: pgid == its pid (setsid)
            except (ProcessLookupError, PermissionError, OSError):
                try:
                    self.proc.kill()
                except Exception:
                    pass
        self.proc.join(5)
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.kill()
        else:
            self.conn.close()


class Workers:
    """``jobs`` spawned workers running ``fn``; :meth:`run` may be called several times (the
    workers stay), :meth:`close` ends them (also on leaving a ``with`` block)."""

    def __init__(self, fn: Callable[[Any], Any], jobs: int, timeout: float,
                 on_failure: Callable[[Any, str, str], Any]):
        self.fn, self.jobs, self.timeout, self.on_failure = fn, max(1, jobs), timeout, on_failure
        self.ctx = mp.get_context("spawn")
        self.slots: list = []

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """End every worker (those busy are killed with their process group)."""
        for s in self.slots:
            if s.busy:
                s.kill()
            else:
                s.stop()
        self.slots = []

    def call(self, task: Any) -> Any:
        """One task's result (or ``on_failure``'s)."""
        return next(iter(self.run([task])))

    def run(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """Results of ``fn(task)`` in the order they finish."""
        fn, ctx, timeout, on_failure = self.fn, self.ctx, self.timeout, self.on_failure
        todo = list(reversed(list(tasks)))
        while len(self.slots) < min(self.jobs, len(todo)):
            self.slots.append(_Slot(ctx, fn))
        slots = self.slots
        pending = 0
        try:
            while todo or pending:
                for i, s in enumerate(slots):
                    if not s.busy and todo:
                        if not s.proc.is_alive():
                            s.kill()
                            slots[i] = s = _Slot(ctx, fn)
                        s.task, s.t0, s.busy = todo.pop(), time.monotonic(), True
                        try:
                            s.conn.send(s.task)
                            pending += 1
                        except (BrokenPipeError, OSError) as exc:
                            s.busy = False
                            s.kill()
                            slots[i] = _Slot(ctx, fn)
                            yield on_failure(s.task, "worker-died", f"could not send the task: {exc}")
                busy = [s for s in slots if s.busy]
                if not busy:
                    continue
                left = min(s.t0 + timeout - time.monotonic() for s in busy)
                ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                             timeout=max(0.05, min(left, 5.0)))
                for i, s in enumerate(slots):
                    if not s.busy:
                        continue
                    got = None
                    if s.conn in ready:
                        try:
                            if s.conn.poll(0):
                                got = s.conn.recv()
                        except (EOFError, OSError):
                            got = None
                    if got is not None:
                        s.busy = False
                        pending -= 1
                        kind, val = got
                        yield val if kind == "ok" else on_failure(s.task, "error", val)
                    elif s.proc.sentinel in ready or not s.proc.is_alive():
                        code = s.proc.exitcode
                        s.busy = False
                        pending -= 1
                        s.kill()
                        slots[i] = _Slot(ctx, fn)
                        yield on_failure(s.task, "worker-died", f"the worker ended with exit code {code}")
                    elif time.monotonic() - s.t0 > timeout:
                        s.busy = False
                        pending -= 1
                        s.kill()
                        slots[i] = _Slot(ctx, fn)
                        yield on_failure(s.task, "timeout", f"no result after {timeout:.0f} s (worker killed)")
        finally:
            # a consumer that stops early (or an exception): workers still busy are killed
            for i, s in enumerate(slots):
                if s.busy:
                    s.kill()
                    s.busy = False
                    slots[i] = _Slot(ctx, fn)


def run_tasks(fn: Callable[[Any], Any], tasks: Iterable[Any], jobs: int, timeout: float,
              on_failure: Callable[[Any, str, str], Any]) -> Iterator[Any]:
    """Results of ``fn(task)`` in the order they finish, in ``jobs`` fresh workers (ended at
    the end); ``fn`` must be a module-level function (spawned workers import it).  ``jobs <= 0``
    runs in this process (no time limit, no protection: for debugging)."""
    tasks = list(tasks)
    if jobs <= 0:
        for t in tasks:
            try:
                yield fn(t)
            except Exception as exc:
                yield on_failure(t, "error", f"{type(exc).__name__}: {exc}")
        return
    with Workers(fn, jobs, timeout, on_failure) as w:
        yield from w.run(tasks)
