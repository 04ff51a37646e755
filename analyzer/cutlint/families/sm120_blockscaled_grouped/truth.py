"""Compiler truth of the SM120 block-scaled grouped GEMM (the MoE macro for `Sm120`): the
instantiations FlashInfer 0.6.3 and 0.7.2.post1 generate, and the member offsets and sizes the
probe reported where it reported them."""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.cutlass.versions import cutlass_model
from cutlint.families.sm120_blockscaled_grouped import model as sm120
from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, Truth, pick
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.records import ElementType, Fusion, Shape3

TYPES = {"SafeFP4": ElementType.E2M1, "__nv_fp8_e4m3": ElementType.E4M3}
TENSORS = ("smem_A", "smem_B", "smem_SFA", "smem_SFB")
KERNEL_MEMBERS = ("pipelines", "scheduler_response", "tensormaps")


def tactic(args: Sequence[str]) -> sm120.Tactic | str:
    """The tactic of the macro's arguments as the generator writes them."""
    operands = sm120.operands_for(TYPES[args[1]], TYPES[args[2]], args[13] == "true")
    if operands is None:
        return f"no operands for {args[1]} x {args[2]}"
    tile = Shape3(m=int(args[7]), n=int(args[8]), k=int(args[9]))
    return sm120.Tactic(tile, operands, 16, Fusion(args[6]), args[16] == "true")


def compare(row: Row) -> Comparison | str:
    cutlass = cutlass_model(flashinfer_releases()[row["version"]].cutlass, "test")
    t = tactic(row["args"])
    if isinstance(t, str):
        return t
    stages = sm120.stage_count(t, cutlass).stages
    kernel = sm120.kernel_shared_storage(t, stages, cutlass)
    got: dict[str, object] = {
        "stages": stages,
        "mainloop_smem": sm120.mainloop_shared_storage(t, stages, cutlass).size,
        "epilogue_smem": sm120.epilogue_shared_storage(t, cutlass).size,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "max_threads_per_block": sm120.max_threads_per_block(),
    }
    want = pick(row, KERNEL_FIELDS)
    # where the probe reported offsetof/sizeof of kernel members, the layout agrees
    blocks = {p.name.removeprefix("SharedStorage."): p for p in kernel.flat()}
    members = row["members"]
    for name in TENSORS:
        key = f"mainloop.tensors.{name}"
        if f"{key}.size" in members:
            block = blocks[f"tensors.mainloop.{name}"]
            got |= {f"{key}.size": block.size, f"{key}.offset": block.offset}
            want |= {
                f"{key}.size": members[f"{key}.size"],
                f"{key}.offset": members[f"{key}.offset"],
            }
    for name in KERNEL_MEMBERS:
        key = f"kernel.{name}.offset"
        if key in members:
            got[key] = min(
                p.offset for k, p in blocks.items() if k.startswith(f"{name}.") or k == name
            )
            want[key] = members[key]
    return Comparison(got, want)


TRUTH = Truth(compare)
