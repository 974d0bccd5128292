"""Progress output of the command line, the studies and the benchmark, in one place: a tqdm bar
on stderr when it is a terminal, plain lines otherwise, and result lines that are printed
above a bar that is showing instead of through it."""
from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Iterator, TextIO

_BARS: list = []


def say(msg: str, file: TextIO | None = None) -> None:
    """A line at once (flushed: visible while a long command runs, also in a pipe), on ``file``
    (default stdout), above the progress bar if one is shown."""
    file = file or sys.stdout
    if _BARS:
        from tqdm import tqdm
        tqdm.write(msg, file=file)
    else:
        print(msg, file=file, flush=True)


def steps(items: Iterable[Any], desc: str, unit: str = "it") -> Iterator[Any]:
    """``items`` with a progress bar on stderr when it is a terminal and there is more than one;
    otherwise as they are."""
    items = list(items)
    if len(items) < 2 or not sys.stderr.isatty():
        yield from items
        return
    import shutil

    from tqdm import tqdm
    bar = tqdm(items, desc=desc, unit=unit, file=sys.stderr, ncols=shutil.get_terminal_size().columns)
    _BARS.append(bar)
    try:
        yield from bar
    finally:
        _BARS.remove(bar)
        bar.close()


def counter(total: int, desc: str, unit: str = "it", leave: bool = False,
            lines: int = 5) -> Callable[[int], None]:
    """``advance(k)``: ``k`` more of ``total`` items done.  A bar on a terminal (closed when
    ``total`` is reached), else a line "desc done/total" on stderr about ``lines`` times in
    all."""
    if sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=leave)
        _BARS.append(bar)

        def advance(k: int = 1) -> None:
            if bar in _BARS:
                bar.update(k)
                if bar.n >= total:
                    bar.close()
                    _BARS.remove(bar)
        return advance
    done = [0]
    every = max(1, total // max(1, lines))

    def advance(k: int = 1) -> None:
        before, done[0] = done[0], done[0] + k
        if done[0] // every > before // every or (done[0] >= total > before):
            say(f"{desc} {min(done[0], total)}/{total}", sys.stderr)
    return advance
