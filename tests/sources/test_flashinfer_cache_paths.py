"""The FlashInfer layout functions read a path's directory once per directory (issue 24): a
string split stands in for PurePath's parse of the whole path. Hypothesis draws paths from the
pieces that decide the layout and from those where a string split and PurePath could part
(`.`, `..`, `//`, a trailing `/`, a relative or an empty path), and each answer must be what the
same function gives read off PurePath's parts."""

from __future__ import annotations

import os
from pathlib import PurePath

from hypothesis import given, settings
from hypothesis import strategies as st

from cutlint.sources import flashinfer_cache as fc

_PIECES = ["flashinfer", "0.7.4", "0.6.3.post1", "120a", "100f", "sm_90a", "sm100", "generated",
           "cutlass_instantiations", "100", "80", "gemm_grouped", "gemm", "gen_gemm_sm100", ".",
           "..", "", "x", "k_sm120_M128.generated.cu", "cutlass_kernel_file_gemm_grouped_sm80_x.cu",
           "k.cu"]  # fmt: skip
_PATHS = st.tuples(st.sampled_from(["", "/", "./", "//"]), st.lists(st.sampled_from(_PIECES),
                   max_size=9), st.sampled_from(["", "/"])).map(
    lambda t: t[0] + "/".join(t[1]) + t[2])  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(_PATHS)
def test_the_layout_is_read_as_off_purepath(path: str) -> None:
    p = PurePath(path)
    absolute = PurePath(os.path.abspath(path)).parts
    assert fc.compile_target(path) == fc._compile_target(p.parent.parts)
    assert fc.jit_module_dir(path) == fc._jit_module_dir(p.parent.parts)
    assert fc.generated_for_sm(path) == fc._generated_for_sm(p.parent.parts, p.name)
    assert fc.flashinfer_version(path) == fc._version_of(absolute)
    assert fc.jit_source(path) == (
        fc._version_of(absolute) is not None and "cutlass_instantiations" not in absolute
    )
