"""The SM90 CollectiveBuilder family against the compiler and on CUTLASS's own sm_90 slice.

tests/data/nvcc_sm90_collective_builder_truth.json holds nvcc's numbers (cutlint.verify.alias_probe)
for a stratified sample of cutlass_library 4.2.0's 90a f16/bf16/e4m3 GEMMs (every kernel and
epilogue schedule, stream-K, C void or not, 16- and 8-bit D) and for the hand-written chains of
fixtures/sm90-collective-builder (StageCount<N>, StageCountAuto, an explicit carveout, the basic
TMA kernel with a TMA epilogue, a rank-3 problem shape; the LinCombPerColBias fusion and explicit
epilogue tiles, the H200 kernels of tests/data/h200_initialize.json among them). The model must
equal every row byte for
byte. The kernel files are made at test time by CUTLASS's own generator.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.families.sm90_collective_builder import model
from cutlint.families.sm90_collective_builder.recipe import (
    Sm90CollectiveBuilderRecipe,
    claim,
    static_shape,
    tactic_of,
)
from cutlint.parse.extract import parse_source
from cutlint.producers.cutlass_library import generate as cutlass_library
from cutlint.records import Verdict
from cutlint.verify.alias_probe import probe

ROOT = Path(__file__).parents[2]
TRUTH: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm90_collective_builder_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
FIXTURES = ROOT / "fixtures"
SLICE = "cutlass3x_sm90_tensorop_gemm_f16*,cutlass3x_sm90_tensorop_gemm_bf16*,cutlass3x_sm90_tensorop_gemm_e4m3*"
SLICE_32_8 = (
    "cutlass3x_sm90_tensorop_gemm_tf32*,cutlass3x_sm90_tensorop_gemm_s8*,"
    "cutlass3x_sm90_tensorop_gemm_f32*,cutlass3x_sm90_tensorop_s*gemm_*"
)
"""The tf32 and int8 GEMMs (the second build the truth samples)."""
MORE: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm90_collective_builder_more_truth.json").read_text()
)
MORE_ROWS: list[dict[str, Any]] = MORE["rows"]
SLICE_MORE = ",".join(sorted(Path(r["file"]).stem for r in MORE_ROWS))
"""The blockwise-scaled, sparse, float (tf32), uint8 and sub-byte mixed-input kernels the third
truth file samples, named one by one in the build's filter."""
BuildFn = Callable[..., Path]


@pytest.fixture(scope="module")
def sm90_slice(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("90a", SLICE)


@pytest.fixture(scope="module")
def sm90_slice_32_8(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("90a", SLICE_32_8)


def _file(row: dict[str, Any], *generated: Path) -> Path:
    for root in (FIXTURES, *generated):
        if (root / row["file"]).is_file():
            return root / row["file"]
    raise AssertionError(f"{row['file']}: in no build")


def _recipe(path: Path, kernel: str) -> Sm90CollectiveBuilderRecipe:
    insts = parse_source(str(path), path.read_bytes()).instantiations
    inst = next(i for i in insts if i.chain and i.chain[0].name == kernel)
    r = claim(inst)
    assert isinstance(r, Sm90CollectiveBuilderRecipe), r
    return r


def modeled(r: Sm90CollectiveBuilderRecipe) -> dict[str, int]:
    t = tactic_of(r)
    assert isinstance(t, model.Tactic), t
    stages = model.stage_count(t).stages
    kernel = model.kernel_shared_storage(t, stages)
    return {
        "stages": stages,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "threads": model.max_threads_per_block(t),
    }


def test_truth_is_stratified() -> None:
    """Every kernel schedule, epilogue schedule and stage policy of the family has rows."""
    names = " ".join(r["kernel"] for r in ROWS)
    for part in (
        "warpspecialized_cooperative_epi_tma",
        "warpspecialized_cooperative_epi_nosmem",
        "warpspecialized_pingpong_epi_tma",
        "warpspecialized_pingpong_epi_nosmem",
        "fp8_fastaccum",
        "stream_k",
        "cpasync_warpspecialized_cooperative",
        "cpasync_warpspecialized_epi",
        "_warpspecialized_epi_nosmem",
        "hw_basic_tma",
        "hw_coop_stagecount3",
        "hw_pingpong_fp8_auto",
        "hw_coop_carveout_streamk",
        "hw_mixed_cvt",
        "_tf32_tf32_",
        "_0_nnn_align",
        "_s8_s8_s32_",
        "_s8_f16_",
        "_s8_bf16_",
        "_cvt_",
        "_cvt_shfl_",
        "_scl_",
        "_scl_shfl_",
        "_sclzr_",
        "_sclzr_shfl_",
        "hw_bias_f16_",
        "hw_bias_f32_256x224",
        "hw_bias_f32_carveout",
        "hw_epi128x64",
        "hw_pingpong_epi64x64_bias",
    ):
        assert part in names, part
    assert any(r["kernel"].endswith("align8_base") for r in ROWS)  # KernelScheduleAuto
    assert not TRUTH["compile_errors"]


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r["kernel"][:90] for r in ROWS])
def test_model_equals_compiler(index: int, sm90_slice: Path, sm90_slice_32_8: Path) -> None:
    row = ROWS[index]
    got = modeled(_recipe(_file(row, sm90_slice, sm90_slice_32_8), row["kernel"]))
    assert got == {key: row[key] for key in got}


@pytest.fixture(scope="module")
def sm90_slice_more(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("90a", SLICE_MORE)


def test_more_truth_is_stratified() -> None:
    """The third truth file has rows of every kernel kind it added to the model: blockwise-scaled
    FP8 (each scale granularity, TMA and no-smem epilogues, stream-K), 2:4 sparse (every schedule,
    16-bit, FP8, int8, uint8, tf32 and float A/B), dense float (tf32) A/B, and the sub-byte and
    uint8 mixed-input A, and grouped (ptr-array) kernels of every ptr-array schedule and epilogue."""
    names = " ".join(r["kernel"] for r in MORE_ROWS)
    for part in (
        "_1x128f32xe4m3_128x128f32",
        "_128x128f32xe4m3_256x128f32",
        "_256x128f32xe5m2_256x128f32",
        "sptensorop_spgemm_f16_",
        "sptensorop_spgemm_bf16_",
        "sptensorop_spgemm_e4m3_",
        "sptensorop_spgemm_s8_",
        "sptensorop_spgemm_u8_",
        "sptensorop_spgemm_tf32_",
        "sptensorop_tf32spgemm_f32_",
        "fp8_fastaccum",
        "warpspecialized_pingpong",
        "stream_k",
        "epi_nosmem",
        "tensorop_tf32gemm_f32_",
        "gemm_s4_",
        "gemm_u4_",
        "gemm_s2_",
        "gemm_u2_",
        "gemm_u8_f16_",
        "gemm_u8_u8_s32_",
        "gemm_grouped_",
        "gemm_grouped_1x128f32xe4m3_128x128f32xe4m3_",
        "tf32_tf32_f32_f32_f32_128x128x32_1x2x1_0_ntn_",
        "_0_ttn_align4_warpspecialized_pingpong_base",
        "_0_ttn_align2_cpasync_warpspecialized_base",
        "tf32gemm_f32_f32_f32_f32_f32_128x256x32_1x1x1_0_ntn_align1_cpasync",
        "grouped_e5m2_e4m3_f32_void_e5m2_64x128x128_2x1x1_0_tnn_align16_warpspecialized_pingpong_fp8",
        "grouped_f16_f16_f32_f32_f32_256x128x64_2x1x1_0_ttn_align8_warpspecialized_pingpong_epi_nosmem",
    ):
        assert part in names, part
    assert not MORE["compile_errors"]


@pytest.mark.parametrize("index", range(len(MORE_ROWS)), ids=[r["kernel"][:90] for r in MORE_ROWS])
def test_model_equals_compiler_more(index: int, sm90_slice_more: Path) -> None:
    row = MORE_ROWS[index]
    got = modeled(_recipe(_file(row, sm90_slice_more), row["kernel"]))
    assert got == {key: row[key] for key in got}


def test_grouped_blockwise_kernel_over_the_limit() -> None:
    """nvcc lays cutlass_library's grouped blockwise 128x256x128 kernel with a 128x128 A and a
    256x128 B granularity and a bf16 C out at 233,472 B: 1,024 B over sm_90's opt-in limit, so
    `initialize()` fails (CUT101); the model says the same."""
    row = next(
        r
        for r in MORE_ROWS
        if "grouped_128x128f32xe4m3_256x128f32xe5m2_f32_bf16_bf16_128x256x128" in r["kernel"]
    )
    assert row["kernel_smem"] == 233472 > 232448


def test_slice_verdicts(sm90_slice: Path) -> None:
    """`cutlint check` on the generator's sm_90 f16/bf16/e4m3 slice: every kernel is claimed and
    modeled, none exceeds sm_90's 232,448 B (cutlass_library carves the epilogue out of the stage
    budget), and the 48 cooperative DirectConvert mixed-input kernels (e4m3 x f16/bf16, `_cvt`)
    fill it to the byte: the builder budgets in units of the 1024-byte swizzle alignment and the
    layout rounds up to it (CUT102)."""
    result = api.check([sm90_slice], api.CheckOptions(arch="sm_90", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    assert {r.recipe.family if r.recipe else None for r in rows} == {"sm90-collective-builder"}
    verdicts = Counter(r.verdict for r in rows)
    assert verdicts == {Verdict.FITS: 4404, Verdict.ZERO_SLACK: 48}
    zero = [r for r in rows if r.verdict is Verdict.ZERO_SLACK]
    assert all(
        "_cvt_" in r.instantiation.args[1] and "cooperative" in r.instantiation.args[1]
        for r in zero
    )
    assert max(r.resources.smem_bytes for r in rows if r.resources is not None) == 232448


def test_tf32_int8_slice_verdicts(sm90_slice_32_8: Path) -> None:
    """The generator's sm_90 tf32 and int8 GEMMs: K-major ones and tf32 with an MN-major A or B
    (the register-sourced mainloop, B transposed) are modeled; like the 16-/8-bit float slice
    none exceeds 232,448 B while the 48 cooperative DirectConvert mixed-input kernels
    (s8 x f16/bf16) fill it to the byte."""
    result = api.check([sm90_slice_32_8], api.CheckOptions(arch="sm_90", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    verdicts = Counter(r.verdict for r in rows)
    assert verdicts == {Verdict.FITS: 872, Verdict.ZERO_SLACK: 48}


@pytest.mark.slow
def test_nvcc_agrees_on_two_fresh_kernels(sm90_slice: Path, tmp_path: Path) -> None:
    """Compile two kernels of a fresh build (a TMA cooperative kernel with the TMA epilogue, a
    cp.async one) with the alias probe and hold the model to nvcc's numbers again."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    picks = [
        "gemm/90/bf16_gemm_bf16/cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x128x64_2x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma.cu",
        "gemm/90/f16_gemm_f16/cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_nnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem.cu",
    ]
    files = [sm90_slice / p for p in picks]
    source = cutlass_library.download() / "cutlass_library" / "source"
    rows, failures = probe(files, source, tmp_path, "90a", batch=2)
    assert not failures and len(rows) == 2
    for row in rows:
        got = modeled(_recipe(Path(str(row["file"])), str(row["kernel"])))
        assert got == {key: row[key] for key in got}


@pytest.mark.parametrize(
    ("index", "value", "reason"),
    [
        (4, "AlignA", "not an integer literal"),
        (12, "cutlass::gemm::KernelSomethingNew", "KernelSomethingNew is not modeled"),
        (2, "cutlass::float_e2m1_t", "the model covers"),
        (
            11,
            "cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename other_epilogue::SharedStorage))>",
            "not of this kernel's epilogue",
        ),
        (11, "cutlass::gemm::collective::StageCount<2>", ""),
    ],
)
def test_unusual_chains_are_reasons_not_crashes(index: int, value: str, reason: str) -> None:
    """A hand-written chain the model does not cover reads as a precise reason, never a guess or
    an exception (StageCount<2> is covered)."""
    path = FIXTURES / "sm90-collective-builder" / "handwritten-stage-policies.cu"
    r = _recipe(path, "hw_basic_tma_f16")
    mainloop = list(r.mainloop)
    mainloop[index] = value
    t = tactic_of(r.model_copy(update={"mainloop": tuple(mainloop)}))
    if reason:
        assert isinstance(t, str) and reason in t, t
    else:
        assert isinstance(t, model.Tactic) and model.stage_count(t).stages == 2


def test_tile_shapes_must_be_static_and_positive() -> None:
    assert static_shape("cute::Shape<cute::_128, cute::Int<256>, cute::_64>") is not None
    assert static_shape("cute::Shape<int, int, int>") is None
    tile = static_shape("cute::Shape<cute::_0, cute::_128, cute::_64>")
    assert tile is not None and tile.m == 0  # claim() then reports it unreadable


@pytest.mark.parametrize(
    ("index", "value", "reason"),
    [
        (4, "cute::Shape<cute::_64, cute::_64>", "'Unsupported tile shape'"),
        (4, "cute::Shape<cute::_128, cute::_24>", "'Unsupported tile shape'"),
        (4, "cute::Shape<cute::_128, cute::_96>", "does not divide the CTA tile"),
        (4, "cute::Shape<int, int>", "static cute::Shape<_M, _N>"),
        (13, "cutlass::epilogue::NoSmemWarpSpecialized", "LinearCombination only"),
        (
            14,
            "cutlass::epilogue::fusion::LinCombPerRowBias<cutlass::half_t, float>",
            "the model covers LinearCombination and LinCombPerColBias",
        ),
        (
            14,
            "cutlass::epilogue::fusion::LinCombPerColBias<cutlass::half_t, float, int8_t>",
            "bias element int8_t",
        ),
        (4, "cute::Shape<cute::_128, cute::_32>", ""),
        (14, "cutlass::epilogue::fusion::LinCombPerColBias<cutlass::bfloat16_t, float>", ""),
    ],
)
def test_unusual_epilogues_are_reasons_not_crashes(index: int, value: str, reason: str) -> None:
    """The epilogue builder's static_asserts on an explicit tile, a bias fusion with the NoSmem
    epilogue and fusions outside the model read as reasons; a 128x32 tile and a bias defaulting
    to ElementOutput are covered."""
    path = FIXTURES / "sm90-collective-builder" / "handwritten-epilogue-fusions.cu"
    r = _recipe(path, "hw_bias_f16_256x224_s7")
    epilogue = list(r.epilogue)
    epilogue[index] = value
    t = tactic_of(r.model_copy(update={"epilogue": tuple(epilogue)}))
    if reason:
        assert isinstance(t, str) and reason in t, t
    else:
        assert isinstance(t, model.Tactic), t
