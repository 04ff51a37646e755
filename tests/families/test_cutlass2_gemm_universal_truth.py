"""The CUTLASS 2.x universal GEMM model equals nvcc, byte for byte, on every DefaultGemmUniversal
kernel of a real cutlass_library 120a build (tests/data/nvcc_cutlass2_gemm_truth.json, 208 rows:
SIMT and tensor op, Sm50 to Sm80, real, complex, mixed-input, interleaved, 2 to 5 stages) and on
every further one of the 70, 80, 89 and 90a builds (nvcc_cutlass2_gemm_truth_other_builds.json,
95 rows: Volta, Sm75 interleaved int8/int4, 1-bit, FP8 Sm89, Sm90 f64 and complex f64), and on one
kernel of every further stratum of the 120a generator's --kernels all
(nvcc_cutlass2_gemm_truth_all_kernels.json, 308 rows: 2 to 10 stages, split-K warps, 84 over sm_120)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.cutlass2_gemm_universal import model

DATA = Path(__file__).parents[1] / "data"
TRUTH = DATA / "nvcc_cutlass2_gemm_truth.json"
OTHER_BUILDS = DATA / "nvcc_cutlass2_gemm_truth_other_builds.json"
ROWS: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]
ALL_KERNELS = DATA / "nvcc_cutlass2_gemm_truth_all_kernels.json"
MORE: list[dict[str, Any]] = json.loads(OTHER_BUILDS.read_text())["rows"]
STRATA: list[dict[str, Any]] = json.loads(ALL_KERNELS.read_text())["rows"]


def modeled(row: dict[str, Any]) -> dict[str, int]:
    k = model.kernel_of(tuple(row["args"]))
    kernel = model.kernel_shared_storage(k)
    return {
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mma_shared_storage(k).size,
        "epilogue_smem": model.epilogue_shared_storage(k).size,
        "stages": k.stages,
        "threads": model.threads_per_block(k),
    }


def test_the_truth_covers_every_stratum() -> None:
    """Every operator class, arch directory and stage count of the build is in the rows."""
    assert len(ROWS) == 208 and not json.loads(TRUTH.read_text())["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in ROWS]
    assert {k.opclass.rsplit("::", 1)[-1] for k in kernels} == {"OpClassSimt", "OpClassTensorOp"}
    assert {k.arch_tag for k in kernels} == {50, 60, 61, 75, 80}
    assert {k.stages for k in kernels} == {2, 3, 4, 5}
    assert any(k.complex for k in kernels) and any(k.interleaved for k in kernels)


def test_the_other_builds_add_volta_fp8_sm90_and_one_bit_kernels() -> None:
    assert len(MORE) == 95 and not json.loads(OTHER_BUILDS.read_text())["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in MORE]
    assert {k.arch_tag for k in kernels} == {70, 75, 80, 89, 90}
    assert {"cutlass::float_e4m3_t", "cutlass::uint1b_t"} <= {k.element_a for k in kernels}
    assert not {r["kernel"] for r in MORE} & {r["kernel"] for r in ROWS}


def test_the_all_kernels_strata_reach_ten_stages_and_split_k_warps() -> None:
    assert len(STRATA) == 308 and not json.loads(ALL_KERNELS.read_text())["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in STRATA]
    assert {k.stages for k in kernels} == {2, 3, 4, 5, 6, 9, 10}
    assert any(k.threadblock.k > k.warp.k for k in kernels)
    assert sum(r["kernel_smem"] > 101376 for r in STRATA) == 84


EVERY = ROWS + MORE + STRATA


@pytest.mark.parametrize("row", EVERY, ids=[r["kernel"] for r in EVERY])
def test_model_equals_nvcc(row: dict[str, Any]) -> None:
    k = model.kernel_of(tuple(row["args"]))
    assert model.scope_reason(k) is None
    want = {key: row[key] for key in modeled(row)}
    assert modeled(row) == want
