"""The scanner's hand-written fast paths find what the patterns they replace match.

Each was a regular expression over the whole file; each is now a `bytes.find` loop or a read
backwards from an anchor (issue 24: parsing a file costs its bytes once, in C). Hypothesis draws
texts from the bytes that decide each pattern, so a difference shrinks to a few bytes.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cutlint.parse import aliases, directives, near_miss, wellformed
from cutlint.parse.bytefind import offsets
from cutlint.sources.macro_names import TAIL, TAILS


def _texts(*pieces: bytes) -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(pieces), max_size=14).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(_texts(b"{", b"}", b"(", b"a", b" ", b"\n", b"[]"), st.integers(0, 6), st.integers(0, 20))
def test_offsets_are_the_character_class_matches(text: bytes, start: int, end: int) -> None:
    pattern = re.compile(rb"[{}(]")
    expected = [m.start() for m in pattern.finditer(text, start, end)]
    assert list(offsets(text, b"{}(", start, end)) == expected


_HEAD = _texts(b"namespace", b"extern", b" ", b"\n", b"\t", b'"', b"C", b"a", b":", b"_", b"x1",
               b"{", b"(", b"\\", b"\x0b", b"\xc3\xa9")  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_HEAD)
def test_a_namespace_head_is_read_as_the_pattern_reads_it(head: bytes) -> None:
    assert aliases._opens_namespace(head) == (aliases._NAMESPACE_HEAD.search(head) is not None)


_CODE = _texts(b"struct", b"class", b" ", b"\n", b"A", b"B", b":", b"::", b"public", b"{", b"}",
               b";", b"mystruct", b"\xc3\xa9")  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_CODE)
def test_struct_definitions_are_the_pattern_matches(code: bytes) -> None:
    expected = [m.span() for m in aliases._STRUCT.finditer(code)]
    assert [m.span() for m in aliases._structs(code)] == expected


_LINES = _texts(b"#", b"\n", b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"a", b"##", b"\\\n")


@settings(max_examples=500, deadline=None)
@given(_LINES)
def test_directive_starts_are_the_pattern_matches(code: bytes) -> None:
    first = re.match(rb"[ \t\f\v\r]*#", code)
    expected = [(0, first.end() - 1)] if first else []
    expected += [(m.start() + 1, m.end() - 1) for m in re.finditer(rb"\n[ \t\f\v\r]*#", code)]
    assert directives._line_first_hashes(code) == expected


def _tails_searched(body: bytes) -> list[tuple[int, int]]:
    """What near_miss did before: each tail searched for in turn, kept where a call follows."""
    out = []
    for order, tail in enumerate(TAILS):
        at = body.find(tail)
        while at >= 0:
            end = at + TAIL
            rest = body[end:].lstrip(b" \t\r\n\f\v")
            if (end == len(body) or body[end] not in near_miss._IDENT) and rest.startswith(b"("):
                out.append((order, end))
            at = body.find(tail, at + 1)
    return out


_CALLS = _texts(*list(TAILS)[:3], b"(", b" ", b"\n", b"X", b"_", b";", b"MOE_GEM", b"M")


@settings(max_examples=500, deadline=None)
@given(_CALLS)
def test_called_tails_are_those_a_search_finds(body: bytes) -> None:
    assert near_miss._tails_called(body) == _tails_searched(body)


def _walked(body: bytes) -> tuple[bool, int]:
    """Whether the brackets pair up, walked one by one, and how deep they nest."""
    stack: list[int] = []
    deepest = 0
    for c in body:
        if c in b"([{":
            stack.append(c)
            deepest = max(deepest, len(stack))
        elif c in b")]}" and (not stack or stack.pop() != {41: 40, 93: 91, 125: 123}[c]):
            return False, deepest
    return not stack, deepest


@settings(max_examples=500, deadline=None)
@given(_texts(b"(", b")", b"[", b"]", b"{", b"}", b"a", b"(" * 40, b")" * 40))
def test_balanced_brackets_are_those_a_walk_pairs(body: bytes) -> None:
    paired, deepest = _walked(body)
    if deepest <= 32:
        assert wellformed._balanced(body) == paired
    else:  # too deep for the passes: left to the walk, never called balanced wrongly
        assert not wellformed._balanced(body) or paired


_CALLS = _texts(b"INSTANTIATE_", b"INSTANCE_", b"X", b"(", b"//", b"/*", b"*/", b'"', b"\n",
                b" ", b'#include "', b"\\\n", b"a")  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_CALLS)
def test_a_file_without_a_macro_call_name_calls_none(text: bytes) -> None:
    """macro_params.headers_read skips the mask where `_may_call` says no name can be found."""
    from cutlint.parse import macro_params
    from cutlint.parse.lexmask import mask

    if not macro_params._may_call(text):
        assert macro_params.called(mask(text)) == set()
