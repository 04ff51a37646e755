"""The per-text memos of the parse stage answer as a fresh reading does (issue 24: a first run
reads each distinct alias type once). An alias type is memoized by its code, its uncommented
spelling and the digraph padding inside it: two files that differ only in what the memo's key
holds must still be read apart."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cutlint.parse import aliases
from cutlint.parse.extract import parse_source

_KERNEL = (
    b"using K_epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
    b"    cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp,%s\n"
    b"    cute::Shape<cute::_128, cute::_64, cute::_64>, cute::Shape<cute::_1, cute::_1, "
    b"cute::_1>%s\n  >::CollectiveOp;\n"
    b"using K_base = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int,int,int,int>, "
    b"K_epilogue, K_epilogue, void>;\n"
)
_PIECES = [b"", b" // a comment, with a comma", b" /* x, y */", b"<%%>", b" int", b"\n", b", float"]


def _fresh(path: str, text: bytes) -> object:
    aliases._TYPES.clear()
    aliases._WORDS.clear()
    return parse_source(path, text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_PIECES)), max_size=4))
def test_the_alias_memo_answers_as_a_fresh_reading(variants: list[tuple[bytes, bytes]]) -> None:
    """Files read one after another (the memo warm with the ones before) give what each gives
    read alone."""
    texts = [_KERNEL % pair for pair in variants] + [_KERNEL % (b"", b"")]
    alone = [_fresh(f"k{i}.cu", t) for i, t in enumerate(texts)]
    aliases._TYPES.clear()
    aliases._WORDS.clear()
    warm = [parse_source(f"k{i}.cu", t) for i, t in enumerate(texts)]
    assert warm == alone


def test_a_repeated_alias_type_is_read_once() -> None:
    aliases._TYPES.clear()
    parse_source("a.cu", _KERNEL % (b"", b""))
    kept = len(aliases._TYPES)
    parse_source("b.cu", (_KERNEL % (b"", b"")).replace(b"K_", b"L_"))
    assert len(aliases._TYPES) == kept + 1  # the epilogue's type again; the base names L_
