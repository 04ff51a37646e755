"""The shared CUTLASS parts (cutlint.cutlass.epilogue, fusion, scheduler, kernel) reproduce the
SM120 compiler truth too: the SM120 block-scaled recipe's kernel SharedStorage, laid out from its
own mainloop and epilogue tile and the shared ptr-array epilogue, fusion and shell, equals nvcc's
numbers on all 128 rows of tests/data/nvcc_sm120_truth.json. So the SM120 recipe can use them
instead of its own copies (docs/families/sm90_tma_ws_grouped.md)."""

from __future__ import annotations

from typing import Any

import pytest

from cutlint.cutlass import epilogue, fusion, kernel
from cutlint.cutlass.versions import cutlass_model
from cutlint.families.sm120_blockscaled_grouped import model as sm120
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.records import ElementType, Fusion, Shape3

TYPES = {"SafeFP4": ElementType.E2M1, "__nv_fp8_e4m3": ElementType.E4M3}
EPILOGUE_WARP_GROUPS = 2  # TmaWarpSpecialized on SM120: GetNumEpilogueWarpGroups defaults to 2


@pytest.mark.parametrize("index", range(128))
def test_sm120_through_the_shared_parts(nvcc_truth: list[dict[str, Any]], index: int) -> None:
    row = nvcc_truth[index]
    args = row["args"]
    cutlass = cutlass_model(flashinfer_releases()[row["version"]].cutlass, "test")
    operands = sm120.operands_for(TYPES[args[1]], TYPES[args[2]], args[13] == "true")
    assert operands is not None
    swap = args[16] == "true"
    tile = Shape3(m=int(args[7]), n=int(args[8]), k=int(args[9]))
    t = sm120.Tactic(tile, operands, 16, Fusion(args[6]), swap)
    stages = sm120.stage_count(t, cutlass).stages
    e = sm120.epilogue_shape(t, cutlass)
    thread = (
        fusion.finalize_scatter(tile.n, swap, 16)
        if t.fusion is Fusion.FINALIZE
        else fusion.linear_combination()
    )
    # SM120: ElementC = ElementD = the output type (16 bits); the D buffers are 16-bit either way.
    parts = kernel.ShellParts(
        mainloop_tensors=sm120.mainloop_tensor_storage(t, stages, cutlass),
        epilogue_tensors=epilogue.tensor_storage(e, 16, 16, thread),
        mainloop_pipeline=sm120.mainloop_pipeline(stages),
        epilogue_pipeline=epilogue.load_pipeline(e.stages_c),
        mainloop_tensormaps=sm120.mainloop_tensormaps(),
        epilogue_tensormaps=epilogue.tensormaps(EPILOGUE_WARP_GROUPS),
    )
    k = kernel.ptr_array_shared_storage(parts)
    carveout = epilogue.shared_storage(e, 16, 16, thread, EPILOGUE_WARP_GROUPS)
    assert (k.size, k.align, carveout.size) == (
        row["kernel_smem"],
        row["kernel_align"],
        row["epilogue_smem"],
    )
    assert kernel.max_threads_per_block(256) == row["max_threads_per_block"]
