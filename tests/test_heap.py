"""The collector over a run (cutlint/heap.py): settled for the run, given back as it was."""

from __future__ import annotations

import gc

from cutlint import heap


def test_nested_settled_blocks_give_the_collector_back_once_at_the_outermost() -> None:
    """The check command settles for all of its run and the engine's stream again inside it:
    the inner block's end leaves the heap settled (the command's end still writes the replay's
    record), and the outer one gives back the thresholds it found, with nothing left frozen."""
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with heap.settled():
        settled = gc.get_threshold()
        assert settled[0] == heap.YOUNG_THRESHOLD
        with heap.settled():
            assert gc.get_threshold() == settled
        assert gc.get_threshold() == settled and gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
