"""Compiler truth of the SM100/SM103 TMA warp-specialized grouped GEMM (the MoE macro for `Sm100`
and `Sm103`): every call FlashInfer 0.6.3 and 0.7.4 generate and the files `cutlint verify`
compiled for 0.5.2 and 0.6.8.post1, compared on every column the probe reported (a row's empty
column is one the probe did not report for its kernel)."""

from __future__ import annotations

from typing import Any

from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import member_offsets
from cutlint.cutlass.storage import pipeline_storage
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_tma_ws_grouped import model as sm100
from cutlint.families.sm100_tma_ws_grouped.family import LEGACY_RELEASES
from cutlint.families.truth import Comparison, Row, Truth
from cutlint.producers.flashinfer.releases import macro_parameters
from cutlint.producers.trtllm import moe_macro


def model_numbers(row: Row) -> dict[str, Any] | str:
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
    if args is None or unknown:
        return f"unreadable arguments: {row['args']}"
    cutlass = cutlass_model(parse_version(row["cutlass"]), "test")
    t = sm100.tactic(args, cutlass, legacy)
    if not isinstance(t, sm100.Tactic):
        return str(t)
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


def compare(row: Row) -> Comparison | str:
    got = model_numbers(row)
    if isinstance(got, str):
        return got
    reported = [k for k in got if row.get(k) is not None]
    return Comparison({k: got[k] for k in reported}, {k: row[k] for k in reported})


TRUTH = Truth(compare)
