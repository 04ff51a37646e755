"""Compiler truth of the SM90 TMA warp-specialized grouped GEMM (the MoE macro for `Sm90`): the
360 instantiations FlashInfer's generator emits for each of three releases, and every offset and
size the probe reported (kernel, mainloop and epilogue members, StagesC, StagesD, ReuseSmemC, the
alignments: families/data/moe_macro_probe_helpers.hpp)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel, cutlass_model, parse_version
from cutlint.families.sm90_tma_ws_grouped import model as sm90
from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, Truth, pick
from cutlint.producers.trtllm.moe_macro import typed

CUTLASS = {"0.6.3": "4.2.1", "0.7.2.post1": "4.5.0", "0.7.4": "4.5.0"}
"""The CUTLASS each recorded release bundles."""

LEGACY = {"0.5.2": "4.2.1"}
"""Recorded releases of the 14-parameter launcher (model.Tactic.legacy), with their CUTLASS;
their rows: tests/data/nvcc_sm90_052_truth.json."""

LEGACY_PARAMETERS = (
    "ArchTag", "DataType", "WeightType", "OutputType", "EpilogueTag", "FUSION",
    "CTA_M", "CTA_N", "CTA_K", "CGA_M", "CGA_N", "CGA_K", "MXFPX", "BIAS",
)  # fmt: skip
"""The 0.5.2 wheel's `#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(ArchTag_, ..., BIAS_)`
(moe_gemm_tma_ws_launcher.inl), without the names' trailing `_`."""


def cutlass_of(version: str) -> CutlassModel:
    return cutlass_model(parse_version({**CUTLASS, **LEGACY}[version]), "test")


def tactic(args: Sequence[str], version: str | None = None) -> sm90.Tactic | str:
    """The tactic of the macro's arguments as the release wrote them, or why the model has none."""
    legacy = version in LEGACY
    record, unknown = typed(list(args), LEGACY_PARAMETERS) if legacy else typed(list(args))
    if record is None or unknown:
        return f"unreadable arguments: {unknown}"
    return sm90.tactic_of(record, legacy=legacy)


def modeled(t: sm90.Tactic, cutlass: CutlassModel) -> dict[str, int]:
    stages = sm90.stage_count(t, cutlass).stages
    kernel = sm90.kernel_shared_storage(t, stages, cutlass)
    return {
        "stages": stages,
        "mainloop_smem": sm90.mainloop_shared_storage(t, stages, cutlass).size,
        "epilogue_smem": sm90.epilogue_shared_storage(t, cutlass).size,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "max_threads_per_block": sm90.max_threads_per_block(t),
    }


def extents(block: Block) -> dict[str, tuple[int, int]]:
    """Every member path of a laid-out block (leaves and the structs above them), with its offset
    and its size including its own tail padding."""
    out: dict[str, tuple[int, int]] = {}
    for piece in block.flat():
        parts = piece.name.split(".")[1:]  # drop the block's own name
        for depth in range(1, len(parts) + 1):
            path = ".".join(parts[:depth])
            if "(" in path:
                break
            start, end = out.get(path, (piece.offset, piece.offset))
            start, end = min(start, piece.offset), max(end, piece.offset + piece.size)
            out[path] = (start, end)
    return {k: (s, e - s) for k, (s, e) in out.items()}


def member_numbers(t: sm90.Tactic, cutlass: CutlassModel) -> dict[str, int]:
    """The model's numbers under the probe's member keys."""
    stages = sm90.stage_count(t, cutlass).stages
    blocks = {
        "kernel": sm90.kernel_shared_storage(t, stages, cutlass),
        "mainloop": sm90.mainloop_shared_storage(t, stages, cutlass),
        "epilogue": sm90.epilogue_shared_storage(t, cutlass),
    }
    out = {"kernel.sizeof": blocks["kernel"].size, "kernel.TileSchedulerStages": 8}
    if not t.legacy:  # the 0.5.x adapters have no StagesC, StagesD, ReuseSmemC
        e = sm90.epilogue_tile(t)
        out |= {
            "epilogue.StagesC": e.stages_c,
            "epilogue.StagesD": e.stages_d,
            "epilogue.ReuseSmemC": int(e.reuse_smem_c),
        }
    for scope, block in blocks.items():
        out[f"{scope}.align"] = block.align
        for path, (offset, size) in extents(block).items():
            # the probe names the fusion storage `tensors.thread`; the model adds what it holds
            path = re.sub(r"^tensors\.thread\..*", "tensors.thread", path)
            out.setdefault(f"{scope}.{path}.offset", offset)
            out.setdefault(f"{scope}.{path}.size", size)
    return out


def compare(row: Row) -> Comparison | str:
    t = tactic(row["args"], row["version"])
    if isinstance(t, str):
        return t
    cutlass = cutlass_of(row["version"])
    members: dict[str, int] = row["members"]
    mine = member_numbers(t, cutlass)
    got: dict[str, object] = {**modeled(t, cutlass)}
    got |= {f"members.{k}": mine.get(k, "(not modeled)") for k in members}
    return Comparison(
        got, pick(row, KERNEL_FIELDS) | {f"members.{k}": v for k, v in members.items()}
    )


TRUTH = Truth(compare, also=("tests/data/nvcc_sm90_052_truth.json",))
