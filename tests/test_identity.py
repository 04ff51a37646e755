"""cutlint/identity.py: answers kept by an object's identity, never by an equal object's, and
never by an id a collected object left behind (the object is held with its answer)."""

from __future__ import annotations

import gc
import weakref

from cutlint.identity import ByIdentity


class _Record:
    """Equal to every other, with no hash: what identity stands in for."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Record)


def test_an_answer_is_the_objects_and_its_parts_only() -> None:
    memo: ByIdentity[object] = ByIdentity(bound=8)
    calls: list[str] = []

    def answer(tag: str) -> str:
        calls.append(tag)
        return tag

    a, b = _Record(), _Record()
    assert memo.get(a, lambda: answer("a")) == "a"
    assert memo.get(a, lambda: answer("again")) == "a"  # kept
    assert memo.get(b, lambda: answer("b")) == "b"  # equal, but another object
    assert memo.get(a, lambda: answer("a, 2"), 2) == "a, 2"  # other parts
    assert memo.get(a, lambda: None, "none") is None
    assert memo.get(a, lambda: answer("not asked"), "none") is None  # None is an answer too
    assert calls == ["a", "b", "a, 2"]


def test_the_object_is_held_with_its_answer_and_the_bound_forgets_all() -> None:
    memo: ByIdentity[int] = ByIdentity(bound=2)
    a = _Record()
    gone = weakref.ref(a)
    memo.get(a, lambda: 1)
    del a
    gc.collect()
    assert gone() is not None  # its id cannot be taken by another object while kept
    memo.get(_Record(), lambda: 2)
    memo.get(_Record(), lambda: 3)  # the bound: both before are forgotten
    assert len(memo) == 1
    gc.collect()
    assert gone() is None
