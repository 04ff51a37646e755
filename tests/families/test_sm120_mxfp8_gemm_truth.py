"""The dense MXFP8 SM120 model against the compiler: every row of
tests/data/nvcc_sm120_mxfp8_gemm_truth.json (nvcc on the files FlashInfer 0.6.8.post1 (4-argument
macro, StageCount<2>, CUTLASS 4.4.2), 0.6.11.post2, 0.7.2.post1 and 0.7.4 render), byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm120_mxfp8_gemm import model

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "nvcc_sm120_mxfp8_gemm_truth.json").read_text()
)["rows"]


def test_truth_covers_every_release() -> None:
    counts = {
        v: sum(1 for r in ROWS if r["version"] == v)
        for v in ("0.6.8.post1", "0.6.11.post2", "0.7.2.post1", "0.7.4")
    }
    assert counts == {"0.6.8.post1": 6, "0.6.11.post2": 20, "0.7.2.post1": 12, "0.7.4": 12}


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int) -> None:
    row = ROWS[index]
    t = model.tactic_of(row["name"], tuple(row["args"]))
    assert isinstance(t, model.Tactic), t
    recipe = model.recipe_for(row["version"])
    assert isinstance(recipe, model.Recipe), recipe
    stages = model.stage_count(t, recipe).stages
    kernel = model.kernel_shared_storage(t, stages)
    plan = model.register_plan(t)
    got = {
        "stages": stages,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "max_threads_per_block": model.max_threads_per_block(),
        "load_registers": plan.load_warpgroup_registers,
        "mma_registers": plan.mma_warpgroup_registers,
    }
    members = row["members"]
    want = {k: row[k] for k in list(got)[:6]}
    want["load_registers"] = members["kernel.LoadRegisterRequirement"]
    want["mma_registers"] = members["kernel.MmaRegisterRequirement"]
    assert got == want
    # every member offset and size the probe reported
    blocks = {p.name.removeprefix("SharedStorage."): p for p in kernel.flat()}
    for name in (
        "tensors.mainloop.smem_A",
        "tensors.mainloop.smem_B",
        "tensors.mainloop.smem_SFA",
        "tensors.mainloop.smem_SFB",
    ):
        short = name.removeprefix("tensors.mainloop.")
        assert (
            blocks[name].offset - blocks["tensors.mainloop.smem_A"].offset
            == members[f"mainloop.tensors.{short}.offset"]
        )
        assert blocks[name].size == members[f"mainloop.tensors.{short}.size"]
    assert blocks["tensors.mainloop.smem_A"].offset == members["kernel.tensors.mainloop.offset"]
    assert blocks["scheduler.pipeline_"].offset == members["kernel.scheduler.offset"]


def test_the_flashinfer_3568_tactics() -> None:
    """256x128 and 128x256 with StageCount<2> (0.6.11.post2): 111,616 B, on every SM12x part."""
    recipe = model.recipe_for("0.6.11.post2")
    assert isinstance(recipe, model.Recipe)
    for m, n in ((256, 128), (128, 256)):
        for swap in ("true", "false"):
            t = model.tactic_of(
                "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120",
                ("half", str(m), str(n), "128", swap),
            )
            assert isinstance(t, model.Tactic)
            sc = model.stage_count(t, recipe)
            assert sc.stages == 2 and "StageCount<2>" in sc.formula
            assert model.kernel_shared_storage(t, 2).size == 111616
