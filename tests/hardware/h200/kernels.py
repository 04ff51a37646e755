"""The kernel set of the H200 proof (docs/hardware.md): what is built, and why each one is there.

Three groups, all SM90 (sm_90a), all built against the CUTLASS 4.5.0 that FlashInfer 0.7.4 vendors:

* CollectiveBuilder kernels as CUTLASS's own examples write them (cb_kernel.hpp), with explicit
  ``StageCount<N>`` chosen so that ``sizeof(GemmKernel::SharedStorage)`` lands well below, just
  below, exactly at and above the H200's opt-in limit of 232,448 B. The sizes were found with
  host-only compiles (``build.py sizes``) and are re-read from the compiled kernel on the GPU.
* A sample of the SM90 grouped MoE GEMMs that FlashInfer 0.7.4's generator writes
  (``gemm_grouped/90``), each run through its own launcher.
* A sample of the SM90 fpA_intB GEMMs of the same generator (``gemm/90``), each run through
  ``sm90_generic_mixed_gemm_kernelLauncher``.
"""

from __future__ import annotations

from dataclasses import dataclass

FLASHINFER_VERSION = "0.7.4"  # vendors CUTLASS 4.5.0 (its cutlass/version.h)
SM90_OPTIN = 232_448  # cutlass/arch/arch.h sm90_smem_capacity_bytes; the H200 says the same


@dataclass(frozen=True)
class CbKernel:
    """One ``h200::CbGemm<...>`` (cb_kernel.hpp); fields in its template order."""

    name: str
    tile: tuple[int, int, int]
    element_ab: str  # f16 | e4m3
    element_c: str  # void | f16
    element_d: str
    stages: int
    schedule: str  # Cooperative | Pingpong
    epilogue_tile: tuple[int, int] = (0, 0)  # (0, 0): EpilogueTileAuto
    bias: str = "NoBias"  # NoBias | PerColBias<f16> | PerColBias<float>
    cluster: tuple[int, int] = (1, 1)
    why: str = ""

    def source(self) -> str:
        """The same kernel as CUTLASS's own generator (cutlass_library) writes its kernels: a
        `using` chain of the two CollectiveBuilders and GemmUniversal. This is the form in which
        cutlint can be asked about it (tests/hardware/test_h200_replay.py)."""
        t = {"f16": "cutlass::half_t", "e4m3": "cutlass::float_e4m3_t", "void": "void"}
        m, n, k = self.tile
        a, c, d = t[self.element_ab], t[self.element_c], t[self.element_d]
        align_ab = 8 if self.element_ab == "f16" else 16
        align_c = 8
        tile = f"cute::Shape<cute::_{m}, cute::_{n}, cute::_{k}>"
        cluster = f"cute::Shape<cute::_{self.cluster[0]}, cute::_{self.cluster[1]}, cute::_1>"
        epi_tile = (
            "cutlass::epilogue::collective::EpilogueTileAuto"
            if self.epilogue_tile == (0, 0)
            else f"cute::Shape<cute::_{self.epilogue_tile[0]}, cute::_{self.epilogue_tile[1]}>"
        )
        source_c = d if c == "void" else c
        if self.bias == "NoBias":
            fusion = f"cutlass::epilogue::fusion::LinearCombination<{d}, float, {source_c}, float>"
        else:
            bias = "cutlass::half_t" if "f16" in self.bias else "float"
            fusion = (
                f"cutlass::epilogue::fusion::LinCombPerColBias<{d}, float, {bias}, "
                f"{source_c}, float>"
            )
        kernel_schedule = f"cutlass::gemm::KernelTmaWarpSpecialized{self.schedule}"
        epi_schedule = (
            "cutlass::epilogue::TmaWarpSpecializedCooperative"
            if self.schedule == "Cooperative"
            else "cutlass::epilogue::TmaWarpSpecialized"
        )
        name = f"cutlass3x_sm90_{self.name}"
        return (
            f"// {self.name}: {self.why} (tests/hardware/h200/kernels.py)\n"
            f"using {name}_epilogue =\n"
            "  typename cutlass::epilogue::collective::CollectiveBuilder<\n"
            "    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,\n"
            f"    {tile},\n    {cluster},\n    {epi_tile},\n    float, float,\n"
            f"    {c}, cutlass::layout::RowMajor, {align_c},\n"
            f"    {d}, cutlass::layout::RowMajor, 8,\n"
            f"    {epi_schedule},\n    {fusion}\n  >::CollectiveOp;\n\n"
            f"using {name}_mainloop =\n"
            "  typename cutlass::gemm::collective::CollectiveBuilder<\n"
            "    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,\n"
            f"    {a}, cutlass::layout::RowMajor, {align_ab},\n"
            f"    {a}, cutlass::layout::ColumnMajor, {align_ab},\n"
            f"    float,\n    {tile},\n    {cluster},\n"
            f"    cutlass::gemm::collective::StageCount<{self.stages}>,\n"
            f"    {kernel_schedule}\n  >::CollectiveOp;\n\n"
            f"using {name} = cutlass::gemm::kernel::GemmUniversal<\n"
            f"    cute::Shape<int, int, int, int>,\n    {name}_mainloop,\n"
            f"    {name}_epilogue>;\n"
        )

    def template_args(self) -> str:
        types = {"f16": "cutlass::half_t", "e4m3": "cutlass::float_e4m3_t", "void": "void"}
        bias = self.bias.replace("<f16>", "<cutlass::half_t>")
        m, n, k = self.tile
        args = [
            str(m),
            str(n),
            str(k),
            types[self.element_ab],
            types[self.element_c],
            types[self.element_d],
            str(self.stages),
            f"h200::{self.schedule}",
            str(self.epilogue_tile[0]),
            str(self.epilogue_tile[1]),
            f"h200::{bias}",
            str(self.cluster[0]),
            str(self.cluster[1]),
        ]
        return ", ".join(args)


CB_KERNELS: tuple[CbKernel, ...] = (
    CbKernel(
        "cb_coop_128x128x64_f16_s4",
        (128, 128, 64),
        "f16",
        "void",
        "f16",
        4,
        "Cooperative",
        why="well below the limit",
    ),
    CbKernel(
        "cb_pingpong_128x128x64_f16_cf16_s4",
        (128, 128, 64),
        "f16",
        "f16",
        "f16",
        4,
        "Pingpong",
        why="well below, pingpong, with a C operand",
    ),
    CbKernel(
        "cb_coop_128x128x32_f16_s13",
        (128, 128, 32),
        "f16",
        "void",
        "f16",
        13,
        "Cooperative",
        why="2,048 B below",
    ),
    CbKernel(
        "cb_coop_128x256x64_f16_s4_epi128x64",
        (128, 256, 64),
        "f16",
        "void",
        "f16",
        4,
        "Cooperative",
        epilogue_tile=(128, 64),
        why="1,024 B below (just below)",
    ),
    CbKernel(
        "cb_coop_128x96x32_f16_s15",
        (128, 96, 32),
        "f16",
        "void",
        "f16",
        15,
        "Cooperative",
        why="exactly at the limit",
    ),
    CbKernel(
        "cb_coop_128x96x64_e4m3_s15",
        (128, 96, 64),
        "e4m3",
        "void",
        "f16",
        15,
        "Cooperative",
        why="exactly at the limit, fp8",
    ),
    CbKernel(
        "cb_coop_128x96x32_f16_s15_cluster2x1",
        (128, 96, 32),
        "f16",
        "void",
        "f16",
        15,
        "Cooperative",
        cluster=(2, 1),
        why="exactly at the limit, 2x1 cluster (TMA multicast)",
    ),
    CbKernel(
        "cb_coop_256x224x32_f16_s7_biasf16",
        (256, 224, 32),
        "f16",
        "void",
        "f16",
        7,
        "Cooperative",
        bias="PerColBias<f16>",
        why="exactly at the limit; the f16 bias row fits in the epilogue's padding",
    ),
    CbKernel(
        "cb_coop_256x224x32_f16_s7_biasf32",
        (256, 224, 32),
        "f16",
        "void",
        "f16",
        7,
        "Cooperative",
        bias="PerColBias<float>",
        why="512 B above (just above): the same kernel with an f32 bias row",
    ),
    CbKernel(
        "cb_pingpong_128x128x64_f16_s7",
        (128, 128, 64),
        "f16",
        "void",
        "f16",
        7,
        "Pingpong",
        why="6,144 B above, pingpong",
    ),
    CbKernel(
        "cb_coop_128x96x32_f16_s16",
        (128, 96, 32),
        "f16",
        "void",
        "f16",
        16,
        "Cooperative",
        why="one stage more than the exact fit: 14,336 B above",
    ),
)


@dataclass(frozen=True)
class GroupedKernel:
    """One INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM call of FlashInfer's generated
    ``gemm_grouped/90`` files, identified by its macro arguments (whitespace-normalized)."""

    name: str
    args: tuple[str, ...]
    why: str = ""


def _grouped(
    name: str, t: str, o: str, fusion: str, tile: str, cga: str, swap: str, why: str
) -> GroupedKernel:
    m, n, k = tile.split("x")
    cm, cn = cga.split("x")
    args = ("Sm90", t, t, o, "void", "EpilogueOpDefault", fusion, m, n, k, cm, cn, "1")
    return GroupedKernel(name, (*args, "false", "false", "false", swap), why)


GROUPED_KERNELS: tuple[GroupedKernel, ...] = (
    _grouped(
        "fi_grouped_f16_none_128x256x64_1x1",
        "half",
        "half",
        "NONE",
        "128x256x64",
        "1x1",
        "false",
        "largest f16 tile",
    ),
    _grouped(
        "fi_grouped_f16_none_128x256x64_2x1_swapab",
        "half",
        "half",
        "NONE",
        "128x256x64",
        "2x1",
        "true",
        "largest f16 tile, 2x1 cluster, SwapAB",
    ),
    _grouped(
        "fi_grouped_bf16_none_256x128x64_1x1",
        "__nv_bfloat16",
        "__nv_bfloat16",
        "NONE",
        "256x128x64",
        "1x1",
        "false",
        "M=256 tile",
    ),
    _grouped(
        "fi_grouped_e4m3_f16_none_128x256x128_1x1",
        "__nv_fp8_e4m3",
        "half",
        "NONE",
        "128x256x128",
        "1x1",
        "false",
        "fp8, largest tile",
    ),
    _grouped(
        "fi_grouped_f32_none_128x128x32_1x1",
        "float",
        "float",
        "NONE",
        "128x128x32",
        "1x1",
        "false",
        "tf32",
    ),
    _grouped(
        "fi_grouped_f16_none_128x16x64_1x1_swapab",
        "half",
        "half",
        "NONE",
        "128x16x64",
        "1x1",
        "true",
        "smallest tile, SwapAB",
    ),
    _grouped(
        "fi_grouped_f16_finalize_128x256x64_1x1",
        "half",
        "half",
        "FINALIZE",
        "128x256x64",
        "1x1",
        "false",
        "FINALIZE fusion (the epilogue of the SM120 headline case)",
    ),
)


@dataclass(frozen=True)
class MixedKernel:
    """One ``template void sm90_generic_mixed_gemm_kernelLauncher<...>`` of ``gemm/90``, found by
    its template arguments after whitespace is removed and ``cute::Int<N>`` is written ``N``."""

    name: str
    key: str
    why: str = ""


MIXED_KERNELS: tuple[MixedKernel, ...] = (
    MixedKernel(
        "fi_fpaintb_e4m3_u4_percol_128x256x128_1x1_coop",
        "__nv_fp8_e4m3,cutlass::uint4b_t,half,half,half,PER_COLUMN_SCALE_ONLY,"
        "EpilogueOpBias,Shape<128,256,128>,Shape<1,1,1>,"
        "KernelTmaWarpSpecializedCooperative,TmaWarpSpecializedCooperative",
        "fp8 x int4, largest tile",
    ),
    MixedKernel(
        "fi_fpaintb_bf16_u4_zeros_64x256x64_1x1_pingpong",
        "__nv_bfloat16,cutlass::uint4b_t,__nv_bfloat16,__nv_bfloat16,__nv_bfloat16,"
        "FINEGRAINED_SCALE_AND_ZEROS,EpilogueOpBias,Shape<64,256,64>,Shape<1,1,1>,"
        "KernelTmaWarpSpecializedPingpong,TmaWarpSpecialized",
        "bf16 x int4 with zero points, pingpong",
    ),
    MixedKernel(
        "fi_fpaintb_f16_u8_fine_128x128x64_1x1_coop",
        "half,uint8_t,half,half,half,FINEGRAINED_SCALE_ONLY,EpilogueOpBias,"
        "Shape<128,128,64>,Shape<1,1,1>,"
        "KernelTmaWarpSpecializedCooperative,TmaWarpSpecializedCooperative",
        "f16 x int8, fine-grained scales",
    ),
)
