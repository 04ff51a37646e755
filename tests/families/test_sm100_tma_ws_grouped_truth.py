"""The SM100 / SM103 model against the compiler: every row of tests/data/nvcc_sm100_truth.json,
obtained from nvcc on FlashInfer's real generated files (tests/tools/make_nvcc_sm100_truth.py),
byte for byte: the stage count, the sizes of the mainloop's, the epilogue's and the kernel's
SharedStorage, its alignment, the threads, the kernel's member offsets, the epilogue subtile and
buffers, the accumulator stages and the tensor-memory columns."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm100_tma_ws_grouped.truth import model_numbers
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_sm100_truth.json"


def truth() -> dict[str, Any]:
    return read_truth(TRUTH)


def rows() -> list[dict[str, Any]]:
    return list(truth()["rows"])


COMPLETE = ("0.6.3", "0.7.4")
"""Releases whose every generated call has a row (make_nvcc_sm100_truth.py); the others' rows
are the files `cutlint verify` compiled one at a time (truth_from_verify.py)."""
SAMPLE = {
    # M256_BS_group1: NVFP4 (2x1x1, 2x2x1), MXFP8 x MXFP4 (2x1x1, 2x2x1); M128_group6: FP8 (1x1x1,
    # 2x1x1, 2x2x1 with 128x256 and 128x512 cluster tiles); M64_group2: tf32 on 1x1x1 and 1x2x1
    # (the cluster tile's N halved)
    ("0.5.2", "Sm100"): 24,
    ("0.6.8.post1", "Sm100"): 8,  # cutlass_kernel_file_gemm_grouped_sm100_M128_BS_group0
    ("0.6.8.post1", "Sm103"): 8,  # cutlass_kernel_file_gemm_grouped_sm103_M128_BS_group0
}


def test_truth_covers_every_generated_instantiation() -> None:
    """Counts of FlashInfer's own generator (docs/families/sm100-tma-ws-grouped.md)."""
    counts = Counter(
        (r["version"], r["args"].split(",")[0]) for r in rows() if r["version"] in COMPLETE
    )
    failures = Counter((f["version"], f["args"][0]) for f in truth()["failures"])
    total = {k: counts[k] + failures[k] for k in counts | failures}
    assert total == {
        ("0.6.3", "Sm100"): 1344,
        ("0.6.3", "Sm103"): 96,
        ("0.7.4", "Sm100"): 1476,
        ("0.7.4", "Sm103"): 96,
    }


def test_sample_releases() -> None:
    """The releases verified file by file: CUTLASS 4.4.2 (0.6.8.post1) and the 14-parameter
    launcher (0.5.2), each with whole generated files (8 calls each)."""
    sample = Counter(
        (r["version"], r["args"].split(",")[0]) for r in rows() if r["version"] not in COMPLETE
    )
    assert sample == SAMPLE


def test_every_column_is_checked() -> None:
    """Every reported member column is compared for some row (none silently ignored)."""
    checked: set[str] = set()
    for r in rows()[::97]:
        numbers = model_numbers(r)
        assert not isinstance(numbers, str), numbers
        checked |= {k for k in numbers if r.get(k) is not None}
    assert set(truth()["columns"][5:]) <= checked | {"tmem.sfa", "tmem.sfb"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "sm", "name"),
    [
        ("0.7.2.post1", 100, "cutlass_kernel_file_gemm_grouped_sm100_M128_BS_group17.generated.cu"),
        ("0.7.2.post1", 103, "cutlass_kernel_file_gemm_grouped_sm103_M128_BS_group0.generated.cu"),
        # CUTLASS 4.4.2
        ("0.6.8.post1", 100, "cutlass_kernel_file_gemm_grouped_sm100_M128_BS_group0.generated.cu"),
        # the 14-parameter launcher
        ("0.5.2", 100, "cutlass_kernel_file_gemm_grouped_sm100_M256_BS_group1.generated.cu"),
    ],
)
def test_cutlint_verify_agrees_on_a_real_file(
    flashinfer_root: Any, tmp_path: Path, version: str, sm: int, name: str
) -> None:
    """`cutlint verify` end to end on generated SM100 and SM103 files of FlashInfer 0.7.2.post1
    (the launcher and CUTLASS headers of 0.7.4, whose rows are committed), 0.6.8.post1 and 0.5.2:
    nvcc compiles each with the module's flags and every instantiation agrees with the model."""
    from click.testing import CliRunner

    from cutlint.cli import main
    from cutlint.producers.flashinfer.wheel import generate_cache
    from cutlint.verify.headers import find_nvcc

    try:
        find_nvcc(None)
    except Exception as e:  # no nvcc: nothing to verify with
        pytest.skip(f"nvcc unavailable: {e}")
    root = flashinfer_root(version)
    generated = generate_cache(root, version, tmp_path / "cache", sm)
    target = generated.parent / str(sm) / name
    args = ["verify", str(target), "--headers", str(root), "--cache-dir", str(tmp_path / "cv")]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    data = json.loads(result.stdout)
    statuses = Counter(i["status"] for i in data["instantiations"])
    assert statuses == {"agree": 8}, (statuses, result.stderr[-2000:])
