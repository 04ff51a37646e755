"""The SM100 / SM103 model against the compiler: every row of tests/data/nvcc_sm100_truth.json,
obtained from nvcc on FlashInfer's real generated files (tests/tools/make_nvcc_sm100_truth.py),
byte for byte: the stage count, the sizes of the mainloop's, the epilogue's and the kernel's
SharedStorage, its alignment, the threads, the kernel's member offsets, the epilogue subtile and
buffers, the accumulator stages and the tensor-memory columns."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import member_offsets
from cutlint.cutlass.storage import pipeline_storage
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_tma_ws_grouped import model as sm100
from cutlint.families.sm100_tma_ws_grouped.family import LEGACY_RELEASES
from cutlint.producers.flashinfer.releases import macro_parameters
from cutlint.producers.trtllm import moe_macro

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_sm100_truth.json"


@cache
def truth() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TRUTH.read_text())
    return data


def rows() -> list[dict[str, Any]]:
    cols = truth()["columns"]
    return [dict(zip(cols, r, strict=True)) for r in truth()["rows"]]


def model_numbers(row: dict[str, Any]) -> dict[str, Any]:
    """What the model says for every column the probe reported."""
    # a release whose macro has 14 parameters (FlashInfer 0.5.2) is read against its own list
    # and built with its own launcher's recipe
    legacy = row["version"] in LEGACY_RELEASES
    params = (
        tuple(p.rstrip("_") for p in macro_parameters(row["version"]))
        if legacy
        else moe_macro.PARAMETERS
    )
    args, unknown = moe_macro.typed(tuple(row["args"].split(",")), params)
    assert args is not None and not unknown, row["args"]
    cutlass = cutlass_model(parse_version(row["cutlass"]), "test")
    t = sm100.tactic(args, cutlass, legacy)
    assert isinstance(t, sm100.Tactic), t
    stages = sm100.stage_count(t, cutlass).stages
    members = sm100.kernel_members(t, stages, cutlass)
    kernel = sm100.kernel_shared_storage(t, stages, cutlass)
    at = member_offsets(members)
    tensors = next(m for m in members if m.name == "tensors")
    sf_stages = sm100.sf_stages(t) or stages
    inner = member_offsets(
        [
            epi.tensor_storage(t.epilogue).at("epilogue"),
            ml.tensor_storage(t.mainloop, stages, sf_stages),
        ]
    )
    s = ml.stage_bytes(t.mainloop)
    e = t.epilogue
    tile = sm100.epilogue_shape(t)
    tmem = sm100.tmem_columns(t)
    got: dict[str, Any] = {
        "stages": stages,
        "mainloop_smem": sm100.mainloop_shared_storage(t, stages, cutlass).size,
        "epilogue_smem": sm100.epilogue_shared_storage(t).size,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "max_threads_per_block": sm100.max_threads_per_block(t, cutlass),
        "kernel.pipelines.size": at["pipelines"][1],
        "kernel.pipelines.epi_load.size": epi.pipeline(e).size,
        "kernel.pipelines.accumulator.size": pipeline_storage(ml.accumulator_stages(t.mainloop)),
        "kernel.clc_response.offset": at["clc_response"][0],
        "kernel.clc_response.size": at["clc_response"][1],
        "kernel.tmem_base_ptr.offset": at["tmem_base_ptr"][0],
        "kernel.tensormaps.offset": at["tensormaps"][0],
        "kernel.tensormaps.size": at["tensormaps"][1],
        "kernel.tensors.offset": at["tensors"][0],
        "kernel.tensors.size": tensors.size,
        "kernel.tensors.mainloop.offset": at["tensors"][0] + inner["mainloop"][0],
        "mainloop.tensors.smem_A.size": stages * s.a,
        "mainloop.tensors.smem_B.size": stages * s.b,
        "mainloop.pipeline.size": ml.pipeline(t.mainloop, stages, sf_stages).size,
        "epilogue.EpilogueTile.M": tile.m,
        "epilogue.EpilogueTile.N": tile.n,
        "kernel.AccumulatorPipelineStageCount": ml.accumulator_stages(t.mainloop),
        "kernel.NumTensorMapUpdaterThreads": 32 * (sm100.shell(t, cutlass).tensormap_sets - 1),
    }
    if t.mainloop.kind is not ml.UmmaKind.DENSE:
        got["mainloop.tensors.smem_SFA.size"] = sf_stages * s.sfa
        got["mainloop.tensors.smem_SFB.size"] = sf_stages * s.sfb
    if e.kind is epi.EpilogueKind.TMA:
        got["epilogue.tensors.collective.size"] = epi.collective_storage(e).size
        got["epilogue.tensors.thread.size"] = epi.fusion_storage(e).size
        got["epilogue.StagesC"] = tile.stages_c
        got["epilogue.StagesD"] = tile.stages_d
    if tmem is not None:
        got["tmem.accumulators"] = tmem.accumulators
        got["tmem.allocated"] = ml.TMEM_COLUMNS
        if t.mainloop.kind is not ml.UmmaKind.DENSE:
            got["tmem.sfa"] = tmem.sfa
            got["tmem.sfb"] = tmem.sfb
    return got


def disagreements(row: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    got = model_numbers(row)
    return {k: (v, row[k]) for k, v in got.items() if row.get(k) is not None and row[k] != v}


GROUPS = sorted({(r[0], r[4].split(",")[0]) for r in truth()["rows"]})


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


@pytest.mark.parametrize("group", GROUPS, ids=[f"{v}-{a}" for v, a in GROUPS])
def test_model_equals_compiler(group: tuple[str, str]) -> None:
    mine = [r for r in rows() if (r["version"], r["args"].split(",")[0]) == group]
    bad = [(r["file"], r["line"], d) for r in mine if (d := disagreements(r))]
    assert not bad, f"{len(bad)} of {len(mine)} rows disagree, e.g. {bad[:5]}"


def test_every_column_is_checked() -> None:
    """Every reported member column is compared for some row (none silently ignored)."""
    checked: set[str] = set()
    for r in rows()[::97]:
        checked |= {k for k in model_numbers(r) if r.get(k) is not None}
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
