"""Branch conditions read from a function body's tokens, in the shapes vLLM's dispatch uses."""

from __future__ import annotations

from typing import Any

import pytest

from cutlint.parse.tu.tokens import read_body

cindex = pytest.importorskip("clang.cindex", reason="libclang bindings not installed")

SOURCE = """
void dispatch(int m, int k) {
  if (m <= 16) {
    // m in [1, 16]
    return call<A>(m);
  } else if (m <= 64) {
    if (m == 64 && k < 4096) {
      return call<B>(m);
    }
    return call<C>(m);
  } else {
    using G = cfg<int>::Gemm;
    return call<G>(m);
  }
}
"""


def _body(source: str) -> list[Any]:
    tu = cindex.Index.create().parse(
        "t.cpp", ["-x", "c++", "-std=c++17"], unsaved_files=[("t.cpp", source)]
    )
    fn = next(c for c in tu.cursor.get_children() if c.spelling == "dispatch")
    body = next(c for c in fn.get_children() if c.kind == cindex.CursorKind.COMPOUND_STMT)
    return [t for t in body.get_tokens() if t.kind.name != "COMMENT"]


def test_else_if_chains_and_nested_returns() -> None:
    body = read_body(_body(SOURCE))
    got = {c.args[0][0].spelling: c.conditions for c in body.calls}
    assert got == {
        "A": ("m <= 16",),
        "B": ("!(m <= 16)", "m <= 64", "m == 64 && k < 4096"),
        "C": ("!(m <= 16)", "m <= 64", "!(m == 64 && k < 4096)"),
        "G": ("!(m <= 16)", "!(m <= 64)"),
    }
    g = next(c for c in body.calls if c.args[0][0].spelling == "G")
    assert [t.spelling for t in g.aliases["G"].tokens] == ["cfg", "<", "int", ">", "::", "Gemm"]
