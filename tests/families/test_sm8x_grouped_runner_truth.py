"""MoeGemmRunner's CUTLASS 2.x grouped kernels against the compiler: every row of
tests/data/nvcc_sm8x_grouped_truth.json (nvcc on the real dispatch header of 0.6.3, 0.6.4,
0.7.2.post1 and 0.7.4), and the runner's verdicts built on those numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.model.arch import arch_for
from cutlint.records import Shape3
from cutlint.runners.sm8x_grouped import model
from cutlint.runners.sm8x_grouped.tactics import RunnerKind, runner_tactics

TRUTH = json.loads(
    (Path(__file__).parent.parent / "data" / "nvcc_sm8x_grouped_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
SET_ATTRIBUTE_ABOVE = 48 << 10  # base_grouped.h maximum_active_blocks: `smem_size > (48 << 10)`


def kernel(row: dict[str, Any]) -> model.GroupedKernel:
    c = row["config"]
    return model.GroupedKernel(
        RunnerKind(c["element"]),
        model.Output(c["output"]),
        c["arch"],
        Shape3(m=c["threadblock"][0], n=c["threadblock"][1], k=c["threadblock"][2]),
        Shape3(m=c["warp"][0], n=c["warp"][1], k=c["warp"][2]),
        c["stages"],
    )


def test_truth_covers_every_kernel_of_every_release() -> None:
    assert len(ROWS) == 60
    assert all(r["versions"] == ["0.6.3", "0.6.4", "0.7.2.post1", "0.7.4"] for r in ROWS)
    wanted = set()
    for kind, sms in ((RunnerKind.FP8, (89, 120)), (RunnerKind.F16, (80, 89, 120))):
        for sm in sms:
            for t in runner_tactics(sm, kind):
                wanted.add((t.config.tile.threadblock, t.config.stages))
    assert wanted <= {(kernel(r).threadblock, kernel(r).stages) for r in ROWS}


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int) -> None:
    row, k = ROWS[index], kernel(ROWS[index])
    m = row["members"]
    whole = model.kernel_shared_storage(k)
    mma = model.mma_shared_storage(k)
    epi = model.epilogue_shared_storage(k)
    parts = {p.name.rsplit(".", 1)[-1]: p for p in mma.flat()}
    assert whole.size == row["kernel_smem"] == m["kernel.sizeof"]
    assert whole.align == m["kernel.alignof"]
    assert model.threads_per_block(k) == row["threads_per_block"]
    assert (mma.size, mma.align) == (m["mma.sizeof"], m["mma.alignof"])
    for name in ("operand_A", "operand_B"):
        assert (parts[name].offset, parts[name].size) == (
            m[f"mma.{name}.offset"],
            m[f"mma.{name}.size"],
        )
    assert m["mma.element_a_bits"] == m["mma.element_b_bits"] == 8 * k.kind.element_bytes
    assert m["mma.kStages"] == k.stages
    assert (epi.size, epi.align) == (m["epilogue.sizeof"], m["epilogue.alignof"])
    assert m["epilogue.kPartitionsK"] == k.warp_count.k
    rows = m["epilogue.StorageShape.kRow"]
    assert rows == m["epilogue.Shape.kRow"] * model.fragments_per_iteration(k)
    assert row["mma"] == "cutlass::gemm::threadblock::" + model.mainloop_class(k)


@pytest.mark.parametrize("arch", ["sm_120", "sm_89", "sm_80"])
@pytest.mark.parametrize("index", range(len(ROWS)))
def test_verdict_is_the_runners_condition(index: int, arch: str) -> None:
    smem = ROWS[index]["kernel_smem"]
    limits = arch_for(arch)
    v = model.grouped_verdict(model.kernel_shared_storage(kernel(ROWS[index])).size, limits)
    assert v.fits == (smem <= SET_ATTRIBUTE_ABOVE or smem <= limits.smem_optin)
    if not v.fits:
        assert v.message == "GPU lacks the shared memory resources to run GroupedGEMM kernel"


def failing(
    version: str, sm: int, kind: RunnerKind, gated: bool = False
) -> tuple[list[int], list[int]]:
    """(tactics that fail when run, those of them the release's pre-filter lets through)."""
    tactics = runner_tactics(sm, kind)
    out = model.Output.BF16 if kind is RunnerKind.BF16 else model.Output.F16
    verdicts = [model.verdict(version, t, kind, out, arch_for(sm), gated) for t in tactics]
    fail = [v.tactic.tactic for v in verdicts if not v.run.fits]
    kept = [
        i
        for gemm in (1, 2)
        for i in model.prefilter_keeps([v for v in verdicts if v.tactic.gemm == gemm])
    ]
    return fail, [i for i in fail if i in kept]


def test_fp8_on_sm120_two_tactics_per_gemm_fail_and_no_release_filters_them() -> None:
    """16x256x128 with 3 and 4 stages: 104,448 and 139,264 B. 0.6.x has no pre-filter; in 0.7.x
    every FP8 query throws at the `alpha_scales` check and get_valid_tactics falls back to all."""
    for version in ("0.6.3", "0.6.4", "0.7.2.post1", "0.7.4"):
        for sm in (120, 121):
            assert failing(version, sm, RunnerKind.FP8) == ([19, 20, 40, 41], [19, 20, 40, 41])
    # on Ada the same tile fails too (3 and 4 stages are its only ones), in each of the 3 copies
    fail, _ = failing("0.7.4", 89, RunnerKind.FP8)
    assert fail == [12, 13, 26, 27, 40, 41, 54, 55, 68, 69, 82, 83]


def test_16bit_on_sm120_the_prefilter_asks_about_the_unfused_kernel() -> None:
    # the unfused GemmGrouped: only 128x128x64 with 4 stages (131,072 B) fails; 0.7.x drops it
    assert failing("0.6.4", 120, RunnerKind.BF16) == ([8, 17], [8, 17])
    assert failing("0.7.4", 120, RunnerKind.BF16) == ([8, 17], [])
    # GEMM 1 of a gated MoE runs the fused kernel: 64x128x64/4 (106,496 B) and 128x128x64/3
    # (114,688 B) pass the 0.7.x pre-filter (98,304 B unfused) and then throw
    assert failing("0.7.4", 120, RunnerKind.F16, gated=True) == ([5, 7, 8, 17], [5, 7])
    assert failing("0.6.4", 120, RunnerKind.F16, gated=True) == ([5, 7, 8, 17], [5, 7, 8, 17])


def test_a100_runs_every_tactic() -> None:
    for kind in (RunnerKind.F16, RunnerKind.BF16):
        assert failing("0.7.4", 80, kind, gated=True) == ([], [])
