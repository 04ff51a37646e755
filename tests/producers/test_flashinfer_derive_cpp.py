"""The little C++ reading derive_releases does (derive/cpp.py), on stub code of the launcher's
shape: the real headers are read by the re-derivation tests."""

from __future__ import annotations

import pytest

from cutlint.producers.flashinfer.derive.cpp import (
    CppSource,
    DeriveError,
    describe_path,
    evaluate,
    path_conditions,
    reachable,
    strip_comments,
)
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, dumps

STUB = """\
// a comment with { a brace
#define SHAPE_CASE(SMVERSION, M, N, K) \\
  case X::Cfg##SMVERSION: { break; }
void dispatch(int sm) {
  if (gemm_config.sm_version == 90) {
    switch (a) { SHAPE_CASE(90, 1, 2, 3) }
  }
#if defined(ENABLE_FP4)
  else if (gemm_config.sm_version == 103 && std::is_same_v<T, Fp4>) {
    switch (b) { SHAPE_CASE(103, 1, 2, 3) }
  }
#endif
  else if (gemm_config.sm_version >= 100 && gemm_config.sm_version < 120) {
    if constexpr (cga_m == _1{} /* } */) { return "}"; } else { switch (c) { SHAPE_CASE(100, 1, 2, 3) } }
  }
}
"""


def test_comments_and_strings_become_spaces_in_place() -> None:
    text = 'a = "x // y"; // z {\n/* { */ b'
    out = strip_comments(text)
    assert len(out) == len(text) and out.count("\n") == 1
    assert "{" not in out and out.startswith('a = "') and out.endswith(" b")


def test_blocks_chains_guards_and_reachability() -> None:
    src = CppSource("stub.h", STUB)
    assert [d.kind for d in src.directives] == ["define", "if", "endif"]
    start, end = src.function("dispatch")
    blocks = src.blocks(start, end)
    where = {n: STUB.index(f"SHAPE_CASE({n},") for n in (90, 103, 100)}
    assert src.guards_at(src.line_of(where[103])) == ("defined(ENABLE_FP4)",)
    assert src.guards_at(src.line_of(where[100])) == ()
    path = path_conditions(blocks, where[100])
    assert describe_path(path) == [
        "!(gemm_config.sm_version == 90)",
        "!(gemm_config.sm_version == 103 && std::is_same_v<T, Fp4>)",
        "gemm_config.sm_version >= 100 && gemm_config.sm_version < 120",
        "!(cga_m == _1{})",
    ]
    var = "gemm_config.sm_version"
    # 103 reaches the SM100 list too: the 103 branch also needs FP4, so it is not certain
    assert [sm for sm in (90, 100, 103, 110, 120) if reachable(path, var, sm)] == [100, 103, 110]


@pytest.mark.parametrize(
    ("cond", "value", "expected"),
    [
        ("v == 120 || v == 121", 121, True),
        ("v >= 100 && v < 110", 110, False),
        ("!(v == 90)", 90, False),
        ("v == 103 && is_fp4<T>()", 103, None),
        ("v == 103 && is_fp4<T>()", 100, False),
        ("(v > 1) || flag", 0, None),
    ],
)
def test_conditions_evaluate_in_three_values(cond: str, value: int, expected: bool | None) -> None:
    assert evaluate(cond, "v", value) is expected


def test_an_unbalanced_body_is_an_error() -> None:
    src = CppSource("bad.h", "void f() { if (x) { }")
    with pytest.raises(DeriveError):
        src.function("f")


def test_toml_is_written_deterministically() -> None:
    table: TomlTable = {
        "a": 1,
        "b": [[1, 2]],
        "sub": {"x": "y", "source": "s"},
        "list": [{"k": True}],
    }
    text = dumps(["head"], {'v."1"': table})
    assert text == (
        '# head\n\n[v."1"]\na = 1\nb = [[1, 2]]\n\n[v."1".sub]\nx = "y"\nsource = "s"\n\n'
        '[[v."1".list]]\nk = true\n'
    )
