"""The SM100 CollectiveBuilder family's block-scaled kernels against the compiler.

tests/data/nvcc_sm100_collective_builder_blockscaled_truth.json holds nvcc's numbers
(cutlint.verify.alias_probe) for a stratified sample of cutlass_library 4.2.0's 100a
`cutlass3x_sm100_bstensorop_*` kernels (OpClassBlockScaledTensorOp): every block-scaled schedule
(MXF8F6F4, MXF4, NVF4; 1-SM, 2-SM; one problem and grouped), every data type of A and of B, both
scale-factor types, every epilogue schedule (TMA, no-smem, EpilogueScheduleAuto, ptr-array),
LinearCombination and LinCombBlockScaleFactor, every C and D type, row- and column-major D, every
tile and cluster kind, stream-K; three NVF4 kernels of the full block-scaled build with an explicit
EpilogueTile (128x256x256, 256x256x256) and the hand-written fixture handwritten-blockscaled-nvf4
(MMA N = 256: one overlapping accumulator stage, EpilogueScheduleAuto on a 2x1x1 cluster). The
model must equal every row byte for byte; five more of the full build hold its extremes (the
largest kernel, one stage, N = 192, N = 64, the most TMEM columns). The kernel files are made at test time by CUTLASS's own
generator, by name.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_collective_builder import blockscaled, model
from cutlint.families.sm100_collective_builder.family import tactic_of
from cutlint.families.sm100_collective_builder.recipe import Sm100CollectiveBuilderRecipe
from cutlint.records import Verdict
from tests.tools import sm100_cb

ROOT = Path(__file__).parents[2]
TRUTH: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm100_collective_builder_blockscaled_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
SM110: dict[str, Any] = json.loads(
    (
        ROOT / "tests" / "data" / "nvcc_sm100_collective_builder_blockscaled_sm110_truth.json"
    ).read_text()
)
"""nvcc's numbers for three of the sampled kernels built for sm_110a (Jetson Thor)."""
GENERATED = [r for r in ROWS if r["file"].startswith("gemm/")]
KERNELS = ",".join(sorted(Path(r["file"]).stem for r in GENERATED))
"""The truth's generated kernels, named one by one in the build's filter (the other rows are
the hand-written fixtures')."""
FIXTURES = ROOT / "fixtures"
BuildFn = Callable[..., Path]
CUTLASS = cutlass_model(parse_version("4.2.0"), "test")


@pytest.fixture(scope="module")
def sample(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("100a", KERNELS)


def _recipe(path: Path, kernel: str) -> Sm100CollectiveBuilderRecipe:
    return sm100_cb.recipe(path, kernel)


def _tactic(r: Sm100CollectiveBuilderRecipe) -> model.Tactic:
    return sm100_cb.tactic(r, CUTLASS)


def modeled(r: Sm100CollectiveBuilderRecipe) -> dict[str, int]:
    return sm100_cb.modeled(r, CUTLASS)


def test_truth_is_stratified() -> None:
    """Every schedule, data type, scale factor, epilogue, fusion, output, tile and cluster kind
    has rows, and every sampled kernel compiles."""
    names = " ".join(r["kernel"] for r in ROWS)
    for part in (
        *("_ue4m3xe2m1_", "_ue8m0xe2m1_", "_ue4m3xf4_", "_ue8m0xf6_"),
        *("xe2m3_", "xe3m2_", "xe4m3_", "xe5m2_"),
        *("_o_vs16_1sm", "_o_vs32_1sm", "_q_1sm", "_q_2sm", "_2sm_epi_tma"),
        *("_gemm_grouped_", "_epi_nosmem", "_epiVs16t", "_epiVs32t", "_stream_k_"),
        *("_void_f32_", "_f16_e3m2_", "_bf16_bf16_", "_void_e5m2_", "_f16_ue8m0xe2m1_"),
        *("_128x128x128_", "_256x128x128_", "_128x128x256_"),
        *("_0x0x1_", "_1x1x1_", "_2x1x1_", "_4x1x1_", "_4x4x1_"),
        *("_tnn_", "_tnt_", "_ntt_"),
        *("_128x256x256_", "_256x256x256_", "BsGemm", "_128x192x256_", "_256x64x256_"),
    ):
        assert part in names, part
    assert not TRUTH["compile_errors"]


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r["kernel"][27:120] for r in ROWS])
def test_model_equals_compiler(index: int, sample: Path) -> None:
    row = ROWS[index]
    path = FIXTURES / row["file"] if (FIXTURES / row["file"]).is_file() else sample / row["file"]
    got = modeled(_recipe(path, row["kernel"]))
    assert got == {key: row[key] for key in got}


def test_sample_verdicts(sample: Path) -> None:
    """`cutlint check` on the sampled build: every kernel is claimed by the family, modeled on
    sm_100 and fits."""
    result = api.check([sample], api.CheckOptions(arch="sm_100", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    assert {r.recipe.family if r.recipe else None for r in rows} == {"sm100-collective-builder"}
    # CUTLASS's filter matches a name inside a longer one too (`..._1sm` and `..._1sm_epi_nosmem`)
    assert len(rows) >= len(GENERATED)
    assert Counter(r.verdict for r in rows) == {Verdict.FITS: len(rows)}


def _row(part: str) -> dict[str, Any]:
    return next(r for r in ROWS if part in r["kernel"])


@pytest.mark.parametrize(
    ("where", "index", "value", "reason"),
    [
        ("mainloop", 12, "cutlass::gemm::KernelScheduleAuto", "Sm{Nvf4,Mxf4,Mxf8f6f4}Sm100"),
        ("mainloop", 2, "cutlass::float_e2m1_t", "cute::tuple<T, SF>"),
        (
            "mainloop",
            5,
            "cute::tuple<cutlass::float_e4m3_t,cutlass::float_ue4m3_t>",
            "4-bit A and B only",
        ),
        ("mainloop", 8, "cutlass::half_t", "ElementAccumulator"),
        ("mainloop", 11, "cutlass::gemm::collective::StageCount<3>", "stage policy"),
        ("epilogue", 4, "cute::Shape<cute::_128, cute::_36>", "EpilogueTileAuto"),
        ("epilogue", 10, "int8_t", "the model covers void C"),
        (
            "epilogue",
            14,
            "cutlass::epilogue::fusion::LinCombBlockScaleFactor< 16, cutlass::float_e2m1_t, float, "
            "cutlass::float_ue8m0_t, cutlass::layout::ColumnMajor, cutlass::half_t, float >",
            "row-major scale-factor output",
        ),
        ("epilogue", 13, "cutlass::epilogue::PtrArrayTmaWarpSpecialized1Sm", "ptr-array"),
    ],
)
def test_unusual_chains_are_reasons_not_crashes(
    sample: Path, where: str, index: int, value: str, reason: str
) -> None:
    """A block-scaled chain the model does not cover reads as a precise reason."""
    row = _row("_ue4m3xe2m1_ue4m3xe2m1_f32_void_ue8m0xe2m1_128x128x256_1x1x1_")
    r = _recipe(sample / row["file"], row["kernel"])
    args = list(getattr(r, where))
    args[index] = value
    t = tactic_of(r.model_copy(update={where: tuple(args)}), CUTLASS)
    assert isinstance(t, str) and reason in t, t


def test_sm110a_lays_out_like_sm100a() -> None:
    """cutlass_library builds the same `cutlass3x_sm100_bstensorop_*` files for 110a (less the
    4x4x1 clusters); nvcc lays three of them (NVF4 no-smem, MXF8F6F4 2-SM stream-K with a 6-bit
    A, grouped 2-SM) out for sm_110a exactly as for sm_100a, so --arch sm_110 takes the sm_100
    numbers for block-scaled kernels too."""
    by_kernel = {r["kernel"]: r for r in ROWS}
    keys = ("stages", "kernel_smem", "kernel_align", "mainloop_smem", "epilogue_smem", "threads")
    assert SM110["arch"] == "110a" and len(SM110["rows"]) == 3 and not SM110["compile_errors"]
    for row in SM110["rows"]:
        assert {k: row[k] for k in keys} == {k: by_kernel[row["kernel"]][k] for k in keys}


def test_extremes_of_the_full_build() -> None:
    """nvcc's numbers for the full block-scaled build's extremes (the model equals them in
    test_model_equals_compiler): a 128x256x128 MXF8F6F4 1-SM kernel with void C and f32 D gets one
    stage (the 256-column CTA's 128x128 f32 epilogue tile takes 128 KiB), and the grouped
    256x192x256 MXF8F6F4 kernel leaves 256 B of sm100_smem_capacity_bytes."""
    one = _row("_ue8m0xe2m1_ue8m0xe2m1_f32_void_f32_128x256x128_0x0x1_0_ntt_align128_q_1sm")
    assert one["stages"] == 1
    top = _row("grouped_ue8m0xe2m1_ue8m0xe2m1_f32_void_e5m2_256x192x256_")
    assert top["kernel_smem"] == ml.SM100_SMEM_CAPACITY - 256


def test_operands_and_scale_factors(sample: Path) -> None:
    """NVF4 keeps 4-bit A and B with a scale per 16, MXF8F6F4 stores every operand as a byte with
    a scale per 32 (sm100_blockscaled_umma_builder.inl: ElementAMma_SmemAllocType = uint8_t);
    EpilogueScheduleAuto is 2-SM only for a static even cluster M and an MMA tile M of 256."""
    nvf4 = _row("_ue4m3xe2m1_ue4m3xe2m1_f32_void_ue8m0xe2m1_128x128x256_1x1x1_")
    t = _tactic(_recipe(sample / nvf4["file"], nvf4["kernel"]))
    assert (t.mainloop.bits_a, t.mainloop.bits_b, t.mainloop.sf_vector) == (4, 4, 16)
    cols = model.tmem_columns(t)
    # two accumulator buffers of 128 columns; SFA, SFB: 256 / 16 columns each
    assert cols is not None and (cols.accumulators, cols.sfa, cols.sfb) == (256, 16, 16)
    mx = _row("_ue8m0xf6_ue8m0xf6_f32_f16_e3m2_")
    r = _recipe(sample / mx["file"], mx["kernel"])
    t = _tactic(r)
    assert (t.mainloop.bits_a, t.mainloop.sf_vector, t.mainloop.kind) == (
        8,
        32,
        ml.UmmaKind.BLOCKSCALED,
    )
    assert not blockscaled.auto_epilogue_is_2sm(r)
    two = r.model_copy(update={"tile": r.tile.model_copy(update={"m": 256})})
    assert blockscaled.auto_epilogue_is_2sm(two)
    assert not blockscaled.auto_epilogue_is_2sm(two.model_copy(update={"cluster": None}))
