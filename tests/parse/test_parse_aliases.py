"""Kernels defined as `using` chains (cutlint.parse.aliases): the forms cutlass_library writes for
CUTLASS 3.x and 2.x, and hand-written CollectiveBuilder code; aliases in bodies are not read."""

from __future__ import annotations

from cutlint.parse.extract import parse_source
from cutlint.records import FormKind

SM120_CHAIN = b"""
#include "cutlass/cutlass.h"
using K_epilogue =
  typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm120, cutlass::arch::OpClassTensorOp,
    cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    cutlass::half_t, cutlass::layout::RowMajor, 8, cutlass::half_t, cutlass::layout::RowMajor, 8,
    cutlass::epilogue::collective::EpilogueScheduleAuto
  >::CollectiveOp;
using K_mainloop =
  typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm120, cutlass::arch::OpClassTensorOp,
    cutlass::float_e4m3_t, cutlass::layout::RowMajor, 16,
    cutlass::float_e4m3_t, cutlass::layout::ColumnMajor, 16, float,
    cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::gemm::collective::StageCountAutoCarveout<
      static_cast<int>(sizeof(typename K_epilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto
  >::CollectiveOp;
// Gemm operator K
using K_base = cutlass::gemm::kernel::GemmUniversal<
    cute::Shape<int,int,int,int>, K_mainloop, K_epilogue, void>;
struct K : public K_base { };
namespace cutlass { namespace library {
void initialize_K(Manifest &manifest) {
  using GemmKernel = cutlass::gemm::device::GemmUniversalAdapter<K>;
  manifest.append(new GemmUniversal3xOperation<GemmKernel>("K"));
}
} }
"""


def test_a_cutlass3_chain_is_one_kernel_with_its_builders() -> None:
    parsed = parse_source("k.cu", SM120_CHAIN)
    assert parsed.problems == ()
    (kernel,) = parsed.instantiations
    assert kernel.form is FormKind.TYPE_ALIAS
    assert kernel.name == "cutlass::gemm::kernel::GemmUniversal"
    assert kernel.span.line == 22
    assert kernel.args == ("cute::Shape<int,int,int,int>", "K_mainloop", "K_epilogue", "void")
    assert [a.name for a in kernel.chain] == ["K_base", "K_epilogue", "K_mainloop"]
    mainloop = kernel.alias("K_mainloop")
    assert mainloop is not None and mainloop.member == "CollectiveOp"
    assert mainloop.target == "cutlass::gemm::collective::CollectiveBuilder"
    assert mainloop.args is not None and len(mainloop.args) == 13
    assert mainloop.args[11] == (
        "cutlass::gemm::collective::StageCountAutoCarveout< "
        "static_cast<int>(sizeof(typename K_epilogue::SharedStorage))>"
    )


CUTLASS2 = b"""
using K2_base =
  typename cutlass::gemm::kernel::DefaultGemmUniversal<
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, 8,
    cutlass::half_t, cutlass::layout::ColumnMajor, cutlass::ComplexTransform::kNone, 8,
    cutlass::half_t, cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp,
    cutlass::arch::Sm80, cutlass::gemm::GemmShape<128, 128, 32>,
    cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, 3, cutlass::arch::OpMultiplyAdd
>::GemmKernel;
struct K2 : public K2_base { };
using Operation_R = typename cutlass::gemm::device::RankK<float, cutlass::layout::ColumnMajor>;
"""


def test_cutlass2_kernels_and_device_types() -> None:
    kernel, rank_k = parse_source("k2.cu", CUTLASS2).instantiations
    assert kernel.name == "cutlass::gemm::kernel::DefaultGemmUniversal"
    assert kernel.chain[0].member == "GemmKernel" and len(kernel.args) == 20
    assert kernel.args[18] == "3"
    assert rank_k.name == "cutlass::gemm::device::RankK" and rank_k.span.line == 13


HAND_WRITTEN = b"""
using ElementA = cutlass::half_t;
using TileShape = cute::Shape<cute::_128, cute::_128, cute::_64>;
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, cutlass::layout::RowMajor, 8,
    ElementA, cutlass::layout::ColumnMajor, 8, float, TileShape, cute::Shape<cute::_1,cute::_1,cute::_1>,
    cutlass::gemm::collective::StageCountAuto, cutlass::gemm::collective::KernelScheduleAuto
  >::CollectiveOp;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    cute::Shape<int,int,int>, CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
template <typename T> struct Runner {
  using Kernel = cutlass::gemm::kernel::GemmUniversal<T, T, T>;
};
int main() {
  using Local = cutlass::gemm::kernel::GemmUniversal<int, int, int>;
  return 0;
}
"""


def test_hand_written_chain_resolves_local_aliases_and_skips_bodies() -> None:
    (kernel,) = parse_source("example.cu", HAND_WRITTEN).instantiations
    assert kernel.chain[0].name == "GemmKernel"
    assert [a.name for a in kernel.chain[1:]] == ["ElementA", "TileShape", "CollectiveMainloop"]
    element = kernel.alias("ElementA")
    assert element is not None and element.args is None and element.target == "cutlass::half_t"


def test_a_manifest_file_is_skipped_not_empty() -> None:
    manifest = b"""
namespace cutlass { namespace library {
void initialize_K(Manifest &manifest);
void initialize_all_sm120_gemm_operations(Manifest &manifest) { initialize_K(manifest); }
} }
"""
    parsed = parse_source("all_sm120_gemm_operations.cu", manifest)
    assert parsed.skipped and parsed.problems == () and parsed.instantiations == ()


def test_an_unclosed_alias_is_not_read_and_the_next_one_is() -> None:
    text = b"using A = cutlass::gemm::kernel::GemmUniversal<int, int\\n" + CUTLASS2
    parsed = parse_source("k3.cu", text)
    assert [i.name for i in parsed.instantiations] == [
        "cutlass::gemm::kernel::DefaultGemmUniversal",
        "cutlass::gemm::device::RankK",
    ]


def _renamed(name: bytes, text: bytes = SM120_CHAIN) -> bytes:
    return text.replace(b"K_", name + b"_").replace(b"struct K :", b"struct " + name + b" :")


def _read_plainly(text: bytes) -> object:
    """The file's parse with the alias types' memo and its marked reading off."""
    from unittest.mock import patch

    from cutlint.parse import aliases

    aliases._TYPES.clear()
    with patch.object(aliases, "_abstracted", lambda text, stem: None):
        out = parse_source("k.cu", text)
    aliases._TYPES.clear()
    return out


def test_a_kernel_named_in_its_aliases_reads_as_it_does_without_the_mark() -> None:
    """cutlass_library spells the kernel's name in its mainloop and kernel aliases
    (`X_mainloop = ...<..., X_epilogue::SharedStorage ...>`): read with the name as a mark and
    memoized, the next kernel's aliases read from the first one's, each with its own name put
    back, and every answer is the one a plain reading gives. Where the name cannot stand for
    a mark (too short, the mark spelled in the file, a line splice), the plain reading is the
    only one."""
    from cutlint.parse import aliases

    names = [
        b"cutlass3x_sm120_tensorop_gemm_e4m3_128x128x128_1x1x1",
        b"cutlass3x_sm120_tensorop_gemm_e4m3_128x128x128_1x1x2",
        b"_leading_underscore_kernel",
        b"Kshort",  # under 8 characters: read plainly
        b"Has_" + aliases._MARK + b"_inside",  # the mark in the file: read plainly
    ]
    aliases._TYPES.clear()
    for name in names:
        text = _renamed(name)
        assert parse_source("k.cu", text) == _read_plainly(text)
    spliced = _renamed(names[0]).replace(b"cute::Shape<int,int", b"cute::Shape<int,\\\nint")
    assert parse_source("k.cu", spliced) == _read_plainly(spliced)
    # two kernels of one tactic under two names: the second reads every alias from the memo
    aliases._TYPES.clear()
    parse_source("a.cu", _renamed(names[0]))
    held = dict(aliases._TYPES)
    parse_source("b.cu", _renamed(names[1]))
    assert aliases._TYPES == held and len(held) == 3
