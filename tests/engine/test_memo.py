"""The per-run memo (engine/judge.py): what it shares, and what it must not."""

from __future__ import annotations

from cutlint.engine.options import CheckOptions
from cutlint.engine.run import judge_files
from cutlint.parse.extract import parse_source

# Two kernels of one template and the same arguments, as cutlass_library writes its planar
# complex and planar complex array kernels: only the alias names differ.
KERNEL = b"""
using Operation_%s =
  typename cutlass::gemm::kernel::DefaultGemmPlanarComplexUniversal<
    cutlass::half_t, cutlass::layout::ColumnMajor, cutlass::ComplexTransform::kNone, 8,
    float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm75,
    cutlass::gemm::GemmShape<64, 128, 32>, 2
>::GemmKernel;
"""


def test_kernels_of_equal_arguments_keep_their_own_alias_names() -> None:
    """Judged in either order, each kernel's not-modeled reason names its own alias: the memo
    does not hand one file the other's words."""
    names = ["k_planar_complex", "k_planar_complex_array"]
    files = {n: parse_source(f"{n}.cu", KERNEL % n.encode()) for n in names}
    for order in (names, names[::-1]):
        result = judge_files([files[n] for n in order], CheckOptions(arch="sm_120"))
        for f in result.files:
            (r,) = f.instantiations
            assert r.not_modeled is not None
            assert f"`Operation_{f.path.removesuffix('.cu')}`" in r.not_modeled.reason
