"""A JIT wrapper as SGLang's JIT writes it (fixtures/tu/jit_wrapper/, own-written): the entry
points are the functions it exports, a plain call forwards to the dispatch template, and the
launcher's kernels are local aliases built from `constexpr` values and a defaulted template
parameter (`launch<In, cute::C<2>>`: the `>>` closes two lists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.parse.tu import from_flags, read_tu

pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

FIXTURES = Path(__file__).parents[3] / "fixtures" / "tu"


def test_the_exported_functions_reach_the_local_kernel_aliases(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path))
    here = FIXTURES / "jit_wrapper"
    command = from_flags(
        here / "cuda.cu",
        [
            "nvcc",
            f"-I{FIXTURES / 'include'}",
            f"-I{here}",
            "-gencode=arch=compute_120a,code=sm_120a",
        ],
    )
    read = read_tu(command)
    found = sorted(
        (k.chosen_by.call, k.stages, k.shared_storage, k.paths[0][-1].conditions)
        for k in read.kernels
    )
    assert found == [
        ("using Cooperative", 4, 65_664, ()),
        ("using Cooperative", 4, 65_664, ()),
        ("using Pingpong", 4, 131_200, ("kPingpong", "m <= 64")),
        ("using Pingpong", 4, 131_200, ("kPingpong", "m <= 64")),
    ]
    types = {k.type_expr for k in read.kernels}
    assert "::shell::kernel::GemmUniversal<::fake::Mainloop<short, (64), 4>, (64)>" in types
    assert "tvm/ffi/function.h" in read.missing_headers
