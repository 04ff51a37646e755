"""The per-run memo (engine/judge.py): what it shares, and what it must not."""

from __future__ import annotations

from cutlint.engine.options import CheckOptions
from cutlint.engine.run import judge_files
from cutlint.parse.extract import parse_source

# Hand-written kernels name their aliases alike in every file (`CollectiveMainloop`,
# `GemmKernel`): two files whose kernel aliases read the same but whose builders differ (here the
# mainloop's stage count) are two kernels. The memo is keyed by the whole chain, not by the
# kernel's own arguments.
CHAIN = b"""
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm120, cutlass::arch::OpClassBlockScaledTensorOp,
    cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    cutlass::half_t, cutlass::layout::RowMajor, 8, cutlass::half_t, cutlass::layout::RowMajor, 8,
    cutlass::epilogue::collective::EpilogueScheduleAuto,
    cutlass::epilogue::fusion::LinearCombination<cutlass::half_t, float, cutlass::half_t, float>
  >::CollectiveOp;
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm120, cutlass::arch::OpClassBlockScaledTensorOp,
    cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue4m3_t>, cutlass::layout::RowMajor, 32,
    cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue4m3_t>, cutlass::layout::ColumnMajor, 32,
    float, cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::gemm::collective::StageCount<%d>,
    cutlass::gemm::KernelTmaWarpSpecializedNvf4Sm120
  >::CollectiveOp;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    cute::Shape<int,int,int,int>, CollectiveMainloop, CollectiveEpilogue, void>;
"""


def test_kernels_whose_own_arguments_read_alike_keep_their_own_chains() -> None:
    files = {n: parse_source(f"k{n}.cu", CHAIN % n) for n in (2, 3)}
    for order in ((2, 3), (3, 2)):
        result = judge_files(
            [files[n] for n in order], CheckOptions(arch="sm_120", cutlass_version="4.2.0")
        )
        for f in result.files:
            (r,) = f.instantiations
            assert r.resources is not None, r.not_modeled
            assert r.resources.stage_count.stages == int(f.path[1])
