"""The SM100 CollectiveBuilder family against the compiler and on CUTLASS's own sm_100 slice.

tests/data/nvcc_sm100_collective_builder_truth.json holds nvcc's numbers (cutlint.verify.alias_probe)
for a stratified sample of cutlass_library 4.2.0's 100a GEMMs (every MMA tile, 1-SM and 2-SM
schedules, TmaWarpSpecialized{1,2}Sm and EpilogueScheduleAuto epilogues, static and dynamic
clusters, stream-K, f16/bf16/e4m3/e5m2 inputs, C void or not, 8/16/32-bit row- and column-major D) and
for the hand-written chains of fixtures/sm100-collective-builder (one of which does not compile).
The model must equal every row byte for byte. The kernel files are made at test time by CUTLASS's
own generator; tests/data/nvcc_sm100_collective_builder_sm110_truth.json holds nvcc's numbers for
the same kernels built for sm_110a (Jetson Thor).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_collective_builder import model
from cutlint.families.sm100_collective_builder.recipe import Sm100CollectiveBuilderRecipe
from cutlint.records import Verdict
from tests.tools import sm100_cb

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
TRUTH: dict[str, Any] = json.loads((DATA / "nvcc_sm100_collective_builder_truth.json").read_text())
MORE: dict[str, Any] = json.loads(
    (DATA / "nvcc_sm100_collective_builder_more_truth.json").read_text()
)
"""The int8, tf32 (float) and grouped (ptr-array) kernels' rows, a second compile."""
ROWS: list[dict[str, Any]] = TRUTH["rows"] + MORE["rows"]
SM110: dict[str, Any] = json.loads(
    (DATA / "nvcc_sm100_collective_builder_sm110_truth.json").read_text()
)
FIXTURES = ROOT / "fixtures"
SLICE = (
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f32_f16_f16_*_tnt_*,"
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f32_void_f32_*_tnt_*,"
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_*_tnt_*,"
    "cutlass3x_sm100_tensorop_gemm_bf16_bf16_f32_bf16_bf16_*_tnt_*"
)
"""344 kernels: four type combinations, every tile, cluster and schedule, one layout (tnt)."""
EXTRA = tuple(
    sorted(
        Path(r["file"]).stem
        for r in ROWS
        if r["file"].startswith("gemm/")
        and not any(fnmatch(Path(r["file"]).stem, g) for g in SLICE.split(","))
    )
)
"""The truth's other layouts and e4m3 kernels, named one by one in the same build's filter."""
BuildFn = Callable[..., Path]
CUTLASS = cutlass_model(parse_version("4.2.0"), "test")


@pytest.fixture(scope="module")
def sm100_slice(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("100a", ",".join((SLICE, *EXTRA)))


def _file(row: dict[str, Any], generated: Path) -> Path:
    for root in (FIXTURES, generated):
        if (root / row["file"]).is_file():
            return root / row["file"]
    raise AssertionError(f"{row['file']}: in no build")


def _recipe(path: Path, kernel: str) -> Sm100CollectiveBuilderRecipe:
    return sm100_cb.recipe(path, kernel)


def modeled(r: Sm100CollectiveBuilderRecipe) -> dict[str, int]:
    return sm100_cb.modeled(r, CUTLASS)


def test_truth_is_stratified() -> None:
    """Every tile, schedule, epilogue schedule, scheduler, cluster kind, input and output kind
    has rows; the one compile error is the hand-written chain that does not carve out."""
    names = " ".join(r["kernel"] for r in ROWS)
    for part in (
        *("_64x128x64_", "_128x128x64_", "_128x256x64_", "_256x128x64_", "_256x256x64_"),
        *("_64x256x128_", "_128x128x128_", "_256x256x128_"),
        *("_1sm_base", "_2sm_base", "_2sm_epi_tma_base", "_stream_k_"),
        *("_0x0x1_", "_2x2x1_", "_4x4x1_", "_1x4x1_"),
        *("bf16_bf16_", "f16_f16_f16_", "e4m3_e4m3_", "_void_f32_", "_f32_f32_", "_e4m3_1"),
        *("e5m2_e5m2_", "e5m2_e4m3_", "_void_e5m2_"),
        *("_tnn_", "_nnn_", "_ntt_", "_ttt_", "_tnt_"),
        "HwGemm",
        *("_s8_s8_s32_", "_tf32gemm_f32_f32_f32_", "_gemm_grouped_", "grouped_e4m3_e5m2_"),
    ):
        assert part in names, part
    assert not MORE["compile_errors"]
    assert [Path(e["file"]).name for e in TRUTH["compile_errors"]] == [
        "handwritten-exceeds-capacity-cutlass-4.2.0.cu"
    ]
    assert "SMEM usage exceeded capacity" in TRUTH["compile_errors"][0]["error"]


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r["kernel"][30:110] for r in ROWS])
def test_model_equals_compiler(index: int, sm100_slice: Path) -> None:
    row = ROWS[index]
    got = modeled(_recipe(_file(row, sm100_slice), row["kernel"]))
    assert got == {key: row[key] for key in got}


def test_the_chain_nvcc_rejects_is_over_the_capacity() -> None:
    """The fixture nvcc rejects with "SMEM usage exceeded capacity." is the one the model puts
    over sm100_smem_capacity_bytes (CUT106)."""
    path = FIXTURES / TRUTH["compile_errors"][0]["file"]
    got = modeled(_recipe(path, "NoCarveGemm"))
    assert got["kernel_smem"] == 264192 > 232448


def test_sm110a_lays_out_like_sm100a() -> None:
    """nvcc's numbers for the kernels built for sm_110a equal those for sm_100a, row for row (23
    generated kernels and the hand-written one that compiles), and the chain over the capacity
    fails the same static_assert: the same shell, builders and capacity (what lets the family
    model --arch sm_110, and CUT106 apply there)."""
    by_kernel = {r["kernel"]: r for r in ROWS}
    keys = ("stages", "kernel_smem", "kernel_align", "mainloop_smem", "epilogue_smem", "threads")
    assert SM110["arch"] == "110a" and len(SM110["rows"]) == 24
    for row in SM110["rows"]:
        assert {k: row[k] for k in keys} == {k: by_kernel[row["kernel"]][k] for k in keys}
    assert SM110["compile_errors"] == TRUTH["compile_errors"]


def test_slice_verdicts(sm100_slice: Path) -> None:
    """`cutlint check` on the build: every kernel is claimed and modeled on sm_100 and fits (one grouped kernel to the byte); on
    sm_110 the 4x4x1-cluster kernels (which cutlass_library does not build for Thor) are not
    modeled and the rest fit."""
    expected = 344 + len(EXTRA)
    result = api.check([sm100_slice], api.CheckOptions(arch="sm_100", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    assert {r.recipe.family if r.recipe else None for r in rows} == {"sm100-collective-builder"}
    # the grouped e4m3 x e5m2 256x128x128 kernel of the truth fills the capacity to the byte
    # (nvcc: 232,448 B)
    zero = [r for r in rows if r.verdict is Verdict.ZERO_SLACK]
    assert [r.instantiation.args[1] for r in zero] == [
        "cutlass3x_sm100_tensorop_gemm_grouped_e4m3_e5m2_f32_void_f32_256x128x128_0x0x1_0_nnt_align16_2sm_epi_tma_mainloop"
    ]
    assert Counter(r.verdict for r in rows) == {Verdict.FITS: expected - 1, Verdict.ZERO_SLACK: 1}
    # the same sources built for Thor: the build's compile_commands.json says sm_100a, which a
    # Thor does not load (not for this GPU), so the command says sm_110a
    thor = api.check(
        [sm100_slice],
        api.CheckOptions(
            arch="sm_110",
            cutlass_version="4.2.0",
            compile_command="nvcc -gencode arch=compute_110a,code=sm_110a",
        ),
    )
    rows = [r for f in thor.files for r in f.instantiations]
    verdicts = Counter(r.verdict for r in rows)
    four = sum("_4x4x1_" in r.instantiation.args[1] for r in rows)
    assert verdicts == {
        Verdict.FITS: expected - four - 1,
        Verdict.ZERO_SLACK: 1,
        Verdict.NOT_MODELED: four,
    }
    reasons = {r.not_modeled.reason for r in rows if r.not_modeled is not None}
    assert all("4x4x1" in x and "Jetson Thor" in x for x in reasons)


@pytest.mark.parametrize(
    ("where", "index", "value", "reason"),
    [
        (
            "mainloop",
            12,
            "cutlass::gemm::KernelScheduleAuto",
            "KernelTmaWarpSpecialized{1,2}SmSm100",
        ),
        ("mainloop", 1, "cutlass::arch::OpClassBlockScaledTensorOp", "dense OpClassTensorOp"),
        ("mainloop", 2, "cutlass::float_e4m3_t", "the compiler truth covers"),
        ("mainloop", 8, "double", "ElementAccumulator double"),
        ("mainloop", 11, "cutlass::gemm::collective::StageCount<3>", "stage policy"),
        ("epilogue", 13, "cutlass::epilogue::NoSmemWarpSpecialized1Sm", "epilogue schedule"),
        ("epilogue", 4, "cute::Shape<cute::_128, cute::_32>", "EpilogueTileAuto"),
        ("epilogue", 10, "cutlass::float_e2m1_t", "the model covers void"),
        ("epilogue", 14, "cutlass::epilogue::fusion::LinCombEltAct<>", "LinearCombination"),
    ],
)
def test_unusual_chains_are_reasons_not_crashes(
    where: str, index: int, value: str, reason: str
) -> None:
    """A chain the model does not cover reads as a precise reason, never a guess or an exception."""
    path = FIXTURES / "sm100-collective-builder" / "handwritten-fits-cutlass-4.2.0.cu"
    r = _recipe(path, "HwGemm")
    args = list(getattr(r, where))
    args[index] = value
    t = model.tactic_of(r.model_copy(update={where: tuple(args)}), CUTLASS)
    assert isinstance(t, str) and reason in t, t


def test_auto_epilogue_on_a_dynamic_cluster_is_1sm() -> None:
    """sm100_builder.inl's EpilogueScheduleAuto: 2-SM only for a static even cluster M (the
    dynamic-cluster `_2sm` kernels of cutlass_library get the 1-SM epilogue; nvcc agrees)."""
    path = FIXTURES / "sm100-collective-builder" / "handwritten-fits-cutlass-4.2.0.cu"
    r = _recipe(path, "HwGemm")
    assert model.auto_epilogue_is_2sm(r)
    assert not model.auto_epilogue_is_2sm(r.model_copy(update={"cluster": None}))


def test_tmem_and_threads() -> None:
    """A 1-SM 128x256 f16 tile: two accumulator buffers of 256 columns (all 512), 256 threads."""
    path = FIXTURES / "sm100-collective-builder" / "handwritten-exceeds-capacity-cutlass-4.2.0.cu"
    t = model.tactic_of(_recipe(path, "NoCarveGemm"), CUTLASS)
    assert isinstance(t, model.Tactic)
    cols = model.tmem_columns(t)
    assert cols is not None and cols.total == 512
    assert model.max_threads_per_block(t, CUTLASS) == 256
