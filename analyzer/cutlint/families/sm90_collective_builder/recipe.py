"""Reading an SM90 CollectiveBuilder chain into a typed recipe, and the recipe into the model's
Tactic (or the precise reason it is outside what the model computes exactly).

The chain is the parser's (cutlint.parse.aliases): the kernel alias
`GemmUniversal<ProblemShape, Mainloop, Epilogue[, TileScheduler]>`, whose Mainloop and Epilogue
arguments name aliases of `CollectiveBuilder<...>::CollectiveOp`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from cutlint.cutlass import sm90_evt
from cutlint.cutlass.sm90_blockwise import Granularity
from cutlint.cutlass.sm90_epilogue_builder import COOPERATIVE_EPI_M, WARP_SPECIALIZED_EPI_M
from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.families.alias_args import (
    builder,
    resolved,
    split_template,
    static_extents,
    static_shape,
)
from cutlint.families.base import family_toml
from cutlint.families.sm90_collective_builder import lookup_table, model
from cutlint.families.sm90_collective_builder.model import (
    EVT_ELEMENT_BYTES,
    EpilogueKind,
    StagePolicy,
    Tactic,
)
from cutlint.records import Instantiation, Recipe, Shape3

NAME = "sm90-collective-builder"
GEMM_UNIVERSAL = "cutlass::gemm::kernel::GemmUniversal"
MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder"
SM90 = "cutlass::arch::Sm90"
MAINLOOP_ARGS = 13
EPILOGUE_ARGS = 15

_CARVEOUT_SIZEOF = re.compile(
    r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*static_cast<int>\(\s*sizeof\(\s*"
    r"(?:typename\s+)?(\w+)::SharedStorage\s*\)\s*\)\s*>$"
)
_CARVEOUT_INT = re.compile(r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*([0-9]+)\s*>$")
_STAGE_COUNT = re.compile(r"^cutlass::gemm::collective::StageCount<\s*([0-9]+)\s*>$")
_STAGE_AUTO = "cutlass::gemm::collective::StageCountAuto"


class Sm90CollectiveBuilderRecipe(Recipe):
    """A `GemmUniversal` whose mainloop is an SM90 CollectiveBuilder, as the chain writes it."""

    kernel: str = Field(description="the kernel alias (cutlass_library: <name>_base)")
    problem_shape: str
    tile_scheduler: str = Field(description="GemmUniversal's 4th argument, `void` if absent")
    mainloop: tuple[str, ...] = Field(description="the mainloop builder's 13 arguments")
    epilogue_alias: str = Field(description="the epilogue builder's alias name")
    epilogue: tuple[str, ...] = Field(description="the epilogue builder's 15 arguments")
    tile: Shape3
    cluster: Shape3
    layout_a: str = Field(
        default="",
        description="A's layout tag; for a reordered (shuffled) cute layout of the mixed-input "
        "GEMMs, the tag of the stride it tiles, as `reordered <tag>`",
    )
    block_scale: tuple[int, int, int] | None = Field(
        default=None,
        description="SFVecSizeM/N/K of a blockwise-scaled mainloop's `cute::tuple<LayoutTag, "
        "LayoutSF>` A and B layouts (their `Sm90BlockwiseScaleConfig<M, N, K>`); None: plain tags",
    )


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


def claim(inst: Instantiation) -> Sm90CollectiveBuilderRecipe | str | None:
    """The recipe, a reason the chain cannot be read (str), or None: not an SM90 builder kernel."""
    if inst.name != GEMM_UNIVERSAL or len(inst.args) not in (3, 4):
        return None
    mainloop = builder(inst, inst.args[1], MAINLOOP_BUILDER)
    if mainloop is None or mainloop.args is None or not mainloop.args:
        return None
    if mainloop.args[0] != SM90:
        return None
    if len(mainloop.args) != MAINLOOP_ARGS:
        return f"the SM90 mainloop CollectiveBuilder takes {MAINLOOP_ARGS} arguments, found {len(mainloop.args)}"
    epilogue = builder(inst, inst.args[2], EPILOGUE_BUILDER)
    if epilogue is None or epilogue.args is None:
        return f"GemmUniversal's epilogue `{inst.args[2]}` is not an alias of an epilogue CollectiveBuilder in this file"
    if len(epilogue.args) != EPILOGUE_ARGS:
        return f"the epilogue CollectiveBuilder takes {EPILOGUE_ARGS} arguments, found {len(epilogue.args)}"
    tile = static_shape(mainloop.args[9])
    cluster = static_shape(mainloop.args[10])
    if tile is None or cluster is None or min(tile.m, tile.n, tile.k, cluster.m, cluster.n) < 1:
        return f"tile `{mainloop.args[9]}` and cluster `{mainloop.args[10]}` must be static cute::Shape<cute::_N, ...>"
    return Sm90CollectiveBuilderRecipe(
        family=NAME,
        block_scale=_block_scale(inst, mainloop.args[3], mainloop.args[6]),
        layout_a=_layout_tag(inst, mainloop.args[3]),
        kernel=inst.chain[0].name if inst.chain else "",
        problem_shape=inst.args[0],
        tile_scheduler=inst.args[3] if len(inst.args) == 4 else "void",
        mainloop=mainloop.args,
        epilogue_alias=epilogue.name,
        epilogue=epilogue.args,
        tile=tile,
        cluster=cluster,
    )


_SCALE_CONFIG = re.compile(
    r"^decltype\(cutlass::detail::Sm90BlockwiseScaleConfig<([0-9]+),([0-9]+),([0-9]+)>::deduce_layoutSF([AB])\(\)\)$"
)


def _block_scale(inst: Instantiation, layout_a: str, layout_b: str) -> tuple[int, int, int] | None:
    """GB (FP8Blockwise): ScaleGranularityM = size<0,0>(LayoutSFA), N = size<0,0>(LayoutSFB),
    K = size<1,0>(LayoutSFA), read from cutlass_library's `tuple<Tag, decltype(ScaleConfig::
    deduce_layoutSFA())>` (the default MN-major scale layouts only; None otherwise)."""
    parts = [_tuple_parts(arg) for arg in (layout_a, layout_b)]
    if any(len(p) != 2 for p in parts):
        return None
    # a grouped GEMM passes pointers (`LayoutSFA*`)
    configs = [_SCALE_CONFIG.match(resolved(_tag(p[1]), inst).replace(" ", "")) for p in parts]
    sfa, sfb = configs
    if sfa is None or sfb is None or sfa[4] != "A" or sfb[4] != "B":
        return None
    return int(sfa[1]), int(sfb[2]), int(sfa[3])


_TILE_TO_SHAPE = re.compile(
    r"^decltype\(cute::tile_to_shape\(\s*\w+\{\}\s*,\s*cute::Layout<\s*cute::Shape<int,int,int>\s*,"
    r"\s*(\w+)\s*>\{\}\s*\)\)$"
)


def _layout_tag(inst: Instantiation, arg: str) -> str:
    """A's layout tag as written, or for a reordered layout (cutlass_library's `_shfl` mixed-input
    kernels: `tile_to_shape(LayoutAtomQuant{}, Layout<Shape<int,int,int>, StrideNarrow>{})`, the
    builder reading only its stride, GB: get_stride) the tag of its `TagToStrideA_t<Tag>` stride
    (a grouped kernel passes a pointer to it: `LayoutA_Reordered*`)."""
    alias = inst.alias(arg.rstrip("* "))
    if alias is None:
        return arg
    m = _TILE_TO_SHAPE.match(alias.target.replace(" ", ""))
    if not m:
        return arg
    stride = inst.alias(m.group(1))
    if stride is None or stride.target != "cutlass::detail::TagToStrideA_t" or not stride.args:
        return arg
    return f"reordered {stride.args[0]}"


# --- the recipe's Tactic -----------------------------------------------------------------------


def _elements() -> dict[str, Any]:
    data: dict[str, Any] = family_toml(model.PACKAGE)["elements"]
    return data


def _bits(element: str) -> int | None:
    e = _elements().get(element)
    return None if e is None else int(e["bits"])


_SCHEDULES = {
    "KernelTmaWarpSpecializedCooperative": (Shell.TMA_COOPERATIVE, False),
    "KernelTmaWarpSpecializedCooperativeFP8FastAccum": (Shell.TMA_COOPERATIVE, True),
    "KernelTmaWarpSpecializedPingpong": (Shell.TMA_PINGPONG, False),
    "KernelTmaWarpSpecializedPingpongFP8FastAccum": (Shell.TMA_PINGPONG, True),
    "KernelTmaWarpSpecialized": (Shell.TMA_BASIC, False),
    "KernelTmaWarpSpecializedFP8FastAccum": (Shell.TMA_BASIC, True),
    "KernelCpAsyncWarpSpecializedCooperative": (Shell.CP_ASYNC_COOPERATIVE, False),
    "KernelCpAsyncWarpSpecialized": (Shell.CP_ASYNC_BASIC, False),
    "KernelTmaWarpSpecializedCooperativeFP8Blockwise": (Shell.TMA_COOPERATIVE, False),
}
_SPARSE = "cutlass::arch::OpClassSparseTensorOp"
_OP_CLASSES = ("cutlass::arch::OpClassTensorOp", _SPARSE)
_SPARSE_SHELLS = (Shell.TMA_COOPERATIVE, Shell.TMA_PINGPONG, Shell.TMA_BASIC)
"""sm90_sparse_gmma_builder.inl: the TMA SS schedules (and their FP8FastAccum forms); its
KernelScheduleAuto picks Pingpong for tile M 64, else Cooperative."""
_PTR_ARRAY_SCHEDULES = {
    "KernelPtrArrayTmaWarpSpecializedCooperative": (Shell.TMA_COOPERATIVE, False),
    "KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum": (Shell.TMA_COOPERATIVE, True),
    "KernelPtrArrayTmaWarpSpecializedPingpong": (Shell.TMA_PINGPONG, False),
    "KernelPtrArrayTmaWarpSpecializedPingpongFP8FastAccum": (Shell.TMA_PINGPONG, True),
    "KernelPtrArrayTmaWarpSpecializedCooperativeFP8Blockwise": (Shell.TMA_COOPERATIVE, False),
}
"""GB: the ptr-array (grouped) SS schedules, with a GroupProblemShape: the ptr-array shells
(sm90_gemm_array_tma_warpspecialized_{cooperative,pingpong}.hpp)."""
_GROUP_PROBLEM_SHAPE = "cutlass::gemm::GroupProblemShape<cute::Shape<int,int,int>>"
_BLOCKWISE = (
    "KernelTmaWarpSpecializedCooperativeFP8Blockwise",
    "KernelPtrArrayTmaWarpSpecializedCooperativeFP8Blockwise",
)
"""GB: the blockwise-scaled FP8 builder's cooperative schedules that cutlass_library 4.2.0 builds
and the compiler truth covers, one-problem and ptr-array (its layouts are tuples of a tag and a
scale-factor layout; the pingpong forms are not modeled)."""
_SCHEDULERS = {
    "void": Sm90Scheduler.PERSISTENT,
    "cutlass::gemm::PersistentScheduler": Sm90Scheduler.PERSISTENT,
    "cutlass::gemm::StreamKScheduler": Sm90Scheduler.STREAM_K,
}
_PROBLEM_SHAPES = ("cute::Shape<int,int,int,int>", "cute::Shape<int,int,int>")
_ROW = "cutlass::layout::RowMajor"
TMA = model.TMA_ALIGNMENT_BYTES
CP_ASYNC = model.CP_ASYNC_MIN_ALIGNMENT_BYTES
_COL = "cutlass::layout::ColumnMajor"


def _literal(arg: str) -> int | None:
    return int(arg) if arg.isascii() and arg.isdigit() else None


def _aligned(bits: int, alignment: int, need_bytes: int) -> bool:
    return bits * alignment % (need_bytes * 8) == 0


def _shell(r: Sm90CollectiveBuilderRecipe, a_bits: int, b_bits: int) -> tuple[Shell, bool] | str:
    schedule = _short(r.mainloop[12])
    align_a, align_b = _literal(r.mainloop[4]), _literal(r.mainloop[7])
    if align_a is None or align_b is None:
        return f"A/B alignment `{r.mainloop[4]}`/`{r.mainloop[7]}` is not an integer literal"
    tma_ok = _aligned(a_bits, align_a, TMA) and _aligned(b_bits, align_b, TMA)
    if schedule == "KernelScheduleAuto":
        # GB: KernelScheduleAuto: TMA-compatible -> (M == 64 ? Pingpong : Cooperative), else
        # KernelCpAsyncWarpSpecialized (nvcc >= 12.1)
        if not tma_ok:
            return Shell.CP_ASYNC_BASIC, False
        if r.tile.m == model.AUTO_PINGPONG_TILE_M:
            return Shell.TMA_PINGPONG, False
        return Shell.TMA_COOPERATIVE, False
    picked = _SCHEDULES.get(schedule) or _PTR_ARRAY_SCHEDULES.get(schedule)
    if picked is None:
        return f"kernel schedule {schedule} is not modeled"
    shell, fast = picked
    if shell.tma and not tma_ok:
        # modeled as written, and reported by CUT301 (the builder's static_assert): tma_misaligned
        return shell, fast
    if not shell.tma and not (
        _aligned(a_bits, align_a, CP_ASYNC) and _aligned(b_bits, align_b, CP_ASYNC)
    ):
        return f"A/B alignment below cp.async's {CP_ASYNC} B (a static_assert; not modeled)"
    return shell, fast


def _tma_misaligned(r: Sm90CollectiveBuilderRecipe, shell: Shell, a_bits: int, b_bits: int) -> str:
    """The TMA builders' alignment static_assert this chain fails, in words (empty: none).

    GB (sm90_gmma_builder.inl): static_assert(detail::is_aligned<ElementA, AlignmentA, ElementB,
    AlignmentB, detail::tma_alignment_bytes>(), "Should meet TMA alignment requirement"):
    sizeof(Element) x Alignment must be a multiple of 16 B for A and for B, because TMA's global
    strides and addresses are 16-byte aligned (cuTensorMapEncodeTiled: globalStrides a multiple
    of 16, globalAddress 16-byte aligned) and the alignment is all the kernel promises of them."""
    align_a, align_b = _literal(r.mainloop[4]), _literal(r.mainloop[7])
    if not shell.tma or align_a is None or align_b is None:
        return ""
    bad = [
        f"{name} {bits * align // 8} B ({align} x {bits} bits)"
        for name, bits, align in (("A", a_bits, align_a), ("B", b_bits, align_b))
        if not _aligned(bits, align, TMA)
    ]
    return "" if not bad else f"{' and '.join(bad)} not a multiple of TMA's {TMA} B"


def _stage_policy(r: Sm90CollectiveBuilderRecipe) -> tuple[StagePolicy, int] | str:
    arg = r.mainloop[11]
    if arg == _STAGE_AUTO:
        return StagePolicy.CARVEOUT, 0
    m = _CARVEOUT_SIZEOF.match(arg)
    if m:
        if m.group(1) != r.epilogue_alias:
            return f"stage carveout of `{m.group(1)}`, not of this kernel's epilogue: not modeled"
        return StagePolicy.EPILOGUE_CARVEOUT, 0
    m = _CARVEOUT_INT.match(arg)
    if m:
        return StagePolicy.CARVEOUT, int(m.group(1))
    m = _STAGE_COUNT.match(arg)
    if m:
        return StagePolicy.FIXED, int(m.group(1))
    return f"stage policy `{arg}` is not modeled"


def tactic_of(r: Sm90CollectiveBuilderRecipe) -> Tactic | str:
    """The Tactic the builders make of this recipe, or why it is outside the model."""
    ml, ep = r.mainloop, r.epilogue
    if ml[1] not in _OP_CLASSES or ep[1] != ml[1]:
        return (
            f"operator class {_short(ml[1])} / {_short(ep[1])}: the model covers OpClassTensorOp "
            "and OpClassSparseTensorOp (the same in both builders)"
        )
    is_sparse = ml[1] == _SPARSE
    if "Blockwise" in ml[12] and _short(ml[12]) not in _BLOCKWISE:
        return (
            f"kernel schedule {_short(ml[12])}: of the blockwise-scaled FP8 mainloops the model "
            "covers the cooperative ones (the pingpong schedules are not modeled)"
        )
    blockwise = _short(ml[12]) in _BLOCKWISE
    grouped = _short(ml[12]) in _PTR_ARRAY_SCHEDULES
    # a grouped GEMM passes pointers to its layout tags (`cutlass::layout::RowMajor*`)
    tag_a, tag_b = _tag(ml[3]), _tag(ml[6])
    if blockwise:
        # GB (FP8Blockwise): GmemLayoutATag = get<0>(GmemLayoutPairA), likewise B
        if r.block_scale is None:
            return (
                f"blockwise scale layouts {ml[3]} / {ml[6]}: the model covers cutlass_library's "
                "tuple<Tag, decltype(Sm90BlockwiseScaleConfig<M, N, K>::deduce_layoutSF*())>"
            )
        tag_a, tag_b = _tag(_tuple_parts(ml[3])[0]), _tag(_tuple_parts(ml[6])[0])
    elif r.block_scale is not None:
        return f"scale-factor layouts with kernel schedule {_short(ml[12])} are not modeled"
    operands = _operands(r, tag_a, tag_b)
    if isinstance(operands, str):
        return operands
    a_bits, b_bits, fp8, mixed = operands
    if blockwise and not fp8:
        return "a blockwise-scaled schedule with non-FP8 inputs (a static_assert; not modeled)"
    # sm90_common.inl: A is K-major when row-major, B when column-major (a reordered A layout:
    # the major of its stride)
    a_k_major = tag_a == _ROW or r.layout_a == f"reordered {_ROW}"
    b_k_major = tag_b == _COL
    if is_sparse and (
        blockwise or mixed is not None or (a_bits != 16 and not (a_k_major and b_k_major))
    ):
        return (
            "sparse A with scales, mixed input or a register-sourced (non-K-major 8-/32-bit) "
            "operand: sm90_sparse_gmma_builder.inl has no such mainloop (not modeled)"
        )
    # GB (GMMA_TMA_WS_RS): a 32-bit MN-major B swaps A and B (is_swapAB) or transposes B in the
    # warp-specialized kernel (is_warpspecialized_transpose_B); either way the TensorStorage keeps
    # A (M x K) and B (N x K) with their own rs_smem_selector atoms, the model's RS layout
    acc_bits = _bits(ml[8])
    if acc_bits is None or ml[8] not in ("float", "cutlass::half_t", "int32_t"):
        return f"accumulator {ml[8]} is not modeled"
    shell = _shell(r, a_bits, b_bits)
    if isinstance(shell, str):
        return shell
    kind, fast = shell
    if is_sparse and _short(ml[12]) == "KernelScheduleAuto":
        # SB: KernelScheduleAuto -> M == 64 ? Pingpong : Cooperative (nvcc >= 12.1), no cp.async
        kind = Shell.TMA_PINGPONG if tile_m_is_64(r) else Shell.TMA_COOPERATIVE
    if is_sparse and kind not in _SPARSE_SHELLS:
        return f"a sparse GEMM with the {kind.value} kernel is not modeled"
    if fast and not fp8:
        return "an FP8FastAccum schedule with non-FP8 inputs (a static_assert; not modeled)"
    policy = _stage_policy(r)
    if isinstance(policy, str):
        return policy
    scheduler = _SCHEDULERS.get(r.tile_scheduler)
    if scheduler is None:
        return f"tile scheduler {r.tile_scheduler} is not modeled"
    if scheduler is Sm90Scheduler.STREAM_K and kind in (Shell.TMA_BASIC, Shell.CP_ASYNC_BASIC):
        return f"a stream-K scheduler with the non-persistent {kind.value} kernel is not modeled"
    if grouped != (r.problem_shape.replace(" ", "") == _GROUP_PROBLEM_SHAPE):
        return (
            f"problem shape {r.problem_shape} with kernel schedule {_short(ml[12])}: the model "
            "covers GroupProblemShape<Shape<int,int,int>> with the ptr-array schedules, one "
            "problem with the others"
        )
    if grouped and (scheduler is not Sm90Scheduler.PERSISTENT or is_sparse):
        return "a grouped GEMM with a stream-K scheduler or sparse A is not modeled"
    if not grouped and r.problem_shape.replace(" ", "") not in _PROBLEM_SHAPES:
        return f"problem shape {r.problem_shape}: the model covers cute::Shape<int,int,int[,int]>"
    tile = r.tile
    # a mixed-input A narrower than 8 bits has 32- or 16-byte K rows (SW32 or INTER atoms,
    # cutlint.cutlass.epilogue.swizzle_align); every other operand whole 64-byte rows
    narrow_a = mixed is not None and tile.k * a_bits % 128 == 0 and tile.k * b_bits % 512 == 0
    if (
        tile.m % model.GMMA_M
        or tile.n % 16
        or (tile.k * min(a_bits, b_bits) % 512 and not narrow_a)
    ):
        return (
            f"tile {tile}: the model covers M a multiple of 64, N a multiple of 16 and K a whole "
            "number of 64-byte rows (16-byte rows for a mixed-input A)"
        )
    if kind is Shell.TMA_COOPERATIVE and tile.m < model.COOPERATIVE_MIN_TILE_M:
        return f"tile M {tile.m} < 128 with a cooperative schedule (a static_assert; not modeled)"
    if static_shape(ep[2]) != tile or static_shape(ep[3]) != r.cluster:
        return "the epilogue builder's tile or cluster differs from the mainloop's: not modeled"
    epilogue = _epilogue(r, kind)
    if isinstance(epilogue, str):
        return epilogue
    epi_kind, c_bits, d_bits, epi_tile, bias_bits, evt = epilogue
    granularity = None if r.block_scale is None else Granularity(*r.block_scale)
    if granularity is not None and (why := granularity.outside(tile)):
        return why
    return Tactic(
        shell=kind,
        tma_misaligned=_tma_misaligned(r, kind, a_bits, b_bits),
        fp8_fast_accum=fast,
        tile=tile,
        cluster=r.cluster,
        a_bits=a_bits,
        b_bits=b_bits,
        accumulator_bits=acc_bits,
        stage_policy=policy[0],
        stage_value=policy[1],
        epilogue=epi_kind,
        c_bits=c_bits,
        d_bits=d_bits,
        c_m_major=_tag(ep[8]) == _COL,
        d_m_major=_tag(ep[11]) == _COL,
        scheduler=scheduler,
        mixed_input=mixed is not None,
        scale_bits=0 if mixed is None else mixed[0],
        zero_bits=0 if mixed is None else mixed[1],
        register_sourced=a_bits == b_bits == 32 and not (a_k_major and b_k_major),
        a_k_major=a_k_major,
        b_k_major=b_k_major,
        epilogue_tile_mn=epi_tile,
        bias_bits=bias_bits,
        evt=evt,
        block_scale=granularity,
        sparse=is_sparse,
        fp8=fp8,
        grouped=grouped,
    )


_FLOAT_MMA = "cutlass::tfloat32_t"


def _tag(layout: str) -> str:
    return layout.replace(" ", "").removesuffix("*")


def _mma_type(element: str) -> str:
    """GB, sm90_sparse_gmma_builder.inl: "For fp32 types, map to tf32 MMA value type"
    (ElementAMma = is_same_v<ElementA, float> ? tfloat32_t : ElementA; likewise B)."""
    return _FLOAT_MMA if element == "float" else element


def tile_m_is_64(r: Sm90CollectiveBuilderRecipe) -> bool:
    return r.tile.m == model.AUTO_PINGPONG_TILE_M


def _operands(
    r: Sm90CollectiveBuilderRecipe, tag_a: str, tag_b: str
) -> tuple[int, int, bool, tuple[int, int] | None] | str:
    """(A bits, B bits, both FP8, (scale bits, zero bits) of a mixed-input A or None); `tag_a`,
    `tag_b`: the A and B layout tags (of a blockwise mainloop's tuples)."""
    ml = r.mainloop
    elements = _elements()
    a_parts = _tuple_parts(ml[2])
    b = elements.get(_mma_type(ml[5]))
    a = elements.get(_mma_type(a_parts[0]))
    if ml[5].startswith("cute::tuple<") or a is None or b is None:
        return (
            f"A/B {ml[2]} x {ml[5]}: the model covers f16, bf16, e4m3, e5m2, tf32 and int8 operands, and "
            "scales only on a narrow A"
        )
    if not a["operand"] or not b["operand"]:
        return (
            f"A/B {ml[2]} x {ml[5]}: the model covers f16, bf16, e4m3, e5m2, tf32 and int8 operands"
        )
    a_bits, b_bits = int(a["bits"]), int(b["bits"])
    k_major = tag_a == _ROW and tag_b == _COL
    if a_bits == b_bits and len(a_parts) == 1:
        if a_bits == 8 and not k_major:
            return (
                "8-bit A/B not both K-major: the builder takes the register-sourced (RS) "
                "mainloop (sm90_common.inl: is_use_rmem_A), not modeled"
            )
        if ml[8] == "int32_t" and ml[2] not in ("int8_t", "uint8_t"):
            return f"an int32_t accumulator with {ml[2]} operands is not modeled"
        return a_bits, b_bits, bool(a.get("fp8") and b.get("fp8")), None
    # GB (GMMA_TMA_WS_RS): a tuple or a narrower A is the mixed-input mainloop
    # (MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput), A converted in registers, no swap.
    if a_bits >= b_bits:
        return f"{ml[2]} x {ml[5]}: a mixed-input B (the builder swaps A and B) is not modeled"
    # GB: get_stride(GmemLayoutATag_): a reordered A layout is as major as its stride; its smem
    # layout (rs_smem_selector) and storage are those of the plain tag (nvcc agrees on the `_shfl`
    # kernels of tests/data/nvcc_sm90_collective_builder_truth.json)
    if r.layout_a == f"reordered {_ROW}":
        k_major = _tag(ml[6]) == _COL
    if not k_major:
        return (
            f"mixed input with A layout `{ml[3]}`, B layout `{ml[6]}`: the model covers K-major "
            "RowMajor A (or a reordered layout of its stride) and ColumnMajor B"
        )
    lut = lookup_table.scale_bits(a_parts[1], a_parts[0], _bits) if len(a_parts) == 2 else None
    if isinstance(lut, str):
        return lut
    widths = [lut] if lut is not None else [_bits(part) or 0 for part in a_parts[1:]]
    if 0 in widths or len(widths) > 2:
        return f"mixed-input scale/zero types {a_parts[1:]} are not modeled"
    scale_bits, zero_bits = [*widths, 0, 0][:2]
    if scale_bits * r.tile.m % (128 * 8) or zero_bits * r.tile.m % (128 * 8):
        return (
            "mixed-input scale bytes per stage not a multiple of 128: the builder's static_assert "
            "'Scale bytes must be a multiple of 128' (does not compile; not modeled)"
        )
    # GB (GMMA_TMA_WS_RS): KernelPtrArrayTmaWarpSpecializedCooperative is the mixed-input
    # ptr-array mainloop (MainloopSm90ArrayTmaGmmaWarpSpecializedMixedInput); its pingpong form
    # has no compiler row here, so it stays unmodeled
    if _short(ml[12]) not in (
        "KernelTmaWarpSpecializedCooperative",
        "KernelTmaWarpSpecializedPingpong",
        "KernelTmaWarpSpecialized",
        "KernelPtrArrayTmaWarpSpecializedCooperative",
    ):
        return f"mixed input with kernel schedule {_short(ml[12])} is not modeled"
    return a_bits, b_bits, False, (scale_bits, zero_bits)


def _mixed_tuple(r: Sm90CollectiveBuilderRecipe) -> bool:
    """A is a `cute::tuple<narrow, scale...>`: the mixed-input mainloop."""
    return len(_tuple_parts(r.mainloop[2])) > 1


def _tuple_parts(arg: str) -> list[str]:
    """`cute::tuple<A, S, Z>` -> [A, S, Z] (top-level commas: a lookup-table scale
    `cutlass::Array<E, 8>` is one part); a plain type -> [type]."""
    return lookup_table.tuple_parts(arg)


_FUSION = "cutlass::epilogue::fusion::"
_EPI_TILE_AUTO = "cutlass::epilogue::collective::EpilogueTileAuto"


def _fusion_bias_bits(fusion: str) -> int | str:
    """0 for `LinearCombination`, ElementBias's width for `LinCombPerColBias` (operations.hpp:
    LinCombPerColBias<ElementOutput, ElementCompute, ElementBias = ElementOutput, ...>), or why
    the fusion is not modeled."""
    name, args = split_template(fusion)
    if name == f"{_FUSION}LinearCombination":
        return 0
    if name == f"{_FUSION}LinCombPerColBias" and len(args) >= 2:
        bias = args[2] if len(args) > 2 else args[0]
        bits = _bits(bias)
        if bits is None or bias not in ("cutlass::half_t", "cutlass::bfloat16_t", "float"):
            return f"epilogue fusion {fusion}: bias element {bias} is not modeled"
        return bits
    return f"epilogue fusion {fusion}: the model covers LinearCombination and LinCombPerColBias"


def _epilogue_tile(r: Sm90CollectiveBuilderRecipe, shell: Shell) -> tuple[int, int] | str | None:
    """None for EpilogueTileAuto, (M, N) of an explicit `cute::Shape<_M, _N>`, or why not."""
    arg = r.epilogue[4]
    if arg == _EPI_TILE_AUTO:
        return None
    extents = static_extents(arg)
    if extents is None or len(extents) != 2:
        return f"epilogue tile {arg}: the model covers EpilogueTileAuto and a static cute::Shape<_M, _N>"
    m, n = extents
    # EB: sm90_compute_tile_shape_or_override: static_assert(M == 64 && warp-specialized || M ==
    # 128 && cooperative, "Unsupported tile shape"), static_assert(N % 16 == 0)
    wanted_m = COOPERATIVE_EPI_M if shell is Shell.TMA_COOPERATIVE else WARP_SPECIALIZED_EPI_M
    if m != wanted_m or n % 16:
        return (
            f"epilogue tile {m}x{n} with the {shell.value} kernel: the builder's static_assert "
            "'Unsupported tile shape' (does not compile; not modeled)"
        )
    if r.tile.m % m or r.tile.n % n:
        return f"epilogue tile {m}x{n} does not divide the CTA tile {r.tile}: not modeled"
    return m, n


def _epilogue(
    r: Sm90CollectiveBuilderRecipe, shell: Shell
) -> tuple[EpilogueKind, int | None, int, tuple[int, int] | None, int, str] | str:
    """(kind, C bits or None, D bits, the explicit epilogue tile or None, the bias's bits or 0,
    the visitor tree given as the fusion or "")."""
    ep = r.epilogue
    schedule = _short(ep[13])
    evt = ep[14] if ep[14].startswith(f"{_FUSION}Sm90TreeVisitor<") else ""
    bias_bits = 0 if evt else _fusion_bias_bits(ep[14])
    if isinstance(bias_bits, str):
        return bias_bits
    if evt and r.tile is not None:
        tree = sm90_evt.storage(evt, r.tile.n, EVT_ELEMENT_BYTES)
        if isinstance(tree, str):
            return f"epilogue fusion {evt}: {tree}"
    d_bits = _bits(ep[10])
    c_bits = None if ep[7] == "void" else _bits(ep[7])
    if d_bits is None or (ep[7] != "void" and c_bits is None):
        return f"ElementC/ElementD {ep[7]}/{ep[10]} is not modeled"
    grouped = _short(r.mainloop[12]) in _PTR_ARRAY_SCHEDULES
    for layout in (ep[8], ep[11]):
        if (_tag(layout) if grouped else layout) not in (_ROW, _COL):
            return f"C/D layout {layout} is not modeled"
    # a visitor tree is the ptr-array epilogue's FusionCallbacks as given (its SharedStorage the
    # TensorStorage's `thread` member, as on one problem); modeled with the mixed-input ptr-array
    # mainloop, whose rows (vLLM's W4A8 MoE GEMMs) nvcc checks
    grouped_evt = evt and _short(r.mainloop[12]) == "KernelPtrArrayTmaWarpSpecializedCooperative"
    if grouped and (bias_bits or (evt and not (grouped_evt and _mixed_tuple(r)))):
        return f"epilogue fusion {ep[14]} on a grouped (ptr-array) kernel is not modeled"
    if grouped and schedule == "PtrArrayNoSmemWarpSpecialized":
        return EpilogueKind.NO_SMEM, c_bits, d_bits, None, 0, ""
    if not grouped and schedule in (
        "NoSmemWarpSpecialized",
        "EpilogueScheduleAuto",
        "EpilogueTransposed",
    ):
        # EB: EpilogueScheduleAuto picks NoSmemWarpSpecialized (which ignores the epilogue tile);
        # EpilogueTransposed (the swapped-AB tf32 kernels' schedule) is the same
        # Sm90TmaWarpSpecializedAdapter<DefaultEpilogue>
        if bias_bits or evt:
            return (
                f"epilogue fusion {ep[14]} with {schedule}: EB builds NoSmemWarpSpecialized for "
                "LinearCombination only (does not compile; not modeled)"
            )
        return EpilogueKind.NO_SMEM, c_bits, d_bits, None, 0, ""
    expected = (
        {
            Shell.TMA_COOPERATIVE: "PtrArrayTmaWarpSpecializedCooperative",
            Shell.TMA_PINGPONG: "PtrArrayTmaWarpSpecializedPingpong",
        }
        if grouped
        else {
            Shell.TMA_COOPERATIVE: "TmaWarpSpecializedCooperative",
            Shell.TMA_PINGPONG: "TmaWarpSpecialized",
            Shell.TMA_BASIC: "TmaWarpSpecialized",
        }
    ).get(shell)
    if schedule != expected:
        return f"epilogue schedule {schedule} with the {shell.value} kernel is not modeled"
    align_c, align_d = _literal(ep[9]), _literal(ep[12])
    if align_c is None or align_d is None:
        return f"C/D alignment `{ep[9]}`/`{ep[12]}` is not an integer literal"
    for bits, align in ((c_bits, align_c), (d_bits, align_d)):
        if bits is not None and not _aligned(bits, align, TMA):
            return (
                "C/D alignment below TMA's 16 B: the epilogue builder's static_assert 'C/D Should "
                "meet TMA alignment requirement' (does not compile; not modeled)"
            )
    epi_tile = _epilogue_tile(r, shell)
    if isinstance(epi_tile, str):
        return epi_tile
    if grouped and epi_tile is not None:
        return f"epilogue tile {r.epilogue[4]} on a grouped (ptr-array) kernel is not modeled"
    return EpilogueKind.TMA, c_bits, d_bits, epi_tile, bias_bits, evt
