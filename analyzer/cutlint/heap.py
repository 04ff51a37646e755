"""The garbage collector over a long run.

A check builds many small records that live until their file is rendered and then die by
reference count; almost none form cycles. CPython's collector still walks the young generation
every 700 allocations and, now and then, the whole heap: the modules, the records' schemas, the
memos and the compile databases a run holds for its whole length. Measured on a 4,748-file sample
of cutlass_library and FlashInfer kernels (one process, 2-core machine): 7.9 s of CPU with the
defaults, 6.3-6.6 s with the start-up heap frozen and the young generation collected every 50,000
allocations. Cycles are still collected, only less often.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 50_000
"""Allocations between young-generation collections during a run (CPython's default is 700)."""


def settle() -> None:
    """For a process that runs to its end (a parser worker): what is alive now is kept for the
    process's life, so the collector stops walking it, and the young generation is collected
    less often."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


@contextmanager
def settled() -> Iterator[None]:
    """`settle()` for the length of a run inside a longer-lived process (the Python API, pregen,
    the check command): the caller's collector is given back as it was. Nested, only the
    outermost settles and gives back: the check command's run ends with the replay's record of
    every file it read, and the whole heap given back to a collector at CPython's thresholds
    before that cost the hundred-thousand-kernel run about 0.4 s of collections."""
    global _DEPTH
    if _DEPTH:
        _DEPTH += 1
        try:
            yield
        finally:
            _DEPTH -= 1
        return
    thresholds = gc.get_threshold()
    settle()
    _DEPTH = 1
    try:
        yield
    finally:
        _DEPTH = 0
        gc.set_threshold(*thresholds)
        gc.unfreeze()


_DEPTH = 0
"""How many `settled()` blocks are open."""
