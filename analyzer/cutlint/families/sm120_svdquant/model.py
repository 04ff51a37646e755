"""FlashInfer's SVDQuant fused NVFP4 GEMM for SM120/SM121 (`INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_*`).

The recipe is `SvdquantGemmConfigSm120<Shape<M,N,K>, SwapAB, Scheduler>` in
`flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h` (the header; data/family.toml names every
number's source). It builds CUTLASS's SM120 block-scaled mainloop with the CollectiveBuilder only
to take its types and stage count, and runs FlashInfer's own copies of the parts:

- the epilogue: CUTLASS's SM120 TMA epilogue (ElementC void, bf16 D, column-major when SwapAB,
  a per-column bias or, when SwapAB, a per-row bias), or for tiles up to 128x128 FlashInfer's
  LoRA-overlap copy of it, whose storage is the builder's verbatim;
- the stage count: the builder's `StageCountAutoCarveout<sizeof(epilogue SharedStorage) +
  LoRaSmemCarveoutBytes>` at a donor tile (128 rows for a 64-row tile), or `StageCount<4>` for
  the production row80 config (64x32x256, SwapAB, static scheduler);
- the mainloop `CollectiveMmaLoRaSm120`: the stock block-scaled collective's storage, with SFA
  padded to 128 rows for a 64-row tile; the row80 config's dedicated-TMA path adds its own bf16
  D/L1 buffers and a one-slot LoRA pipeline;
- the kernel `GemmUniversalLoRaSm120`: the SM90 cooperative shell's SharedStorage, 128 MMA
  threads for a 64-row tile (256 otherwise), and a class-scope
  `static_assert(GemmKernel::SharedStorageSize <= sm120_smem_capacity_bytes)`: an oversized
  tactic is a compile error of the whole module, not an `initialize()` failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import fusion
from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.headers import SM90_PIPELINE
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import BARRIER_BYTES, THREADS_PER_WARP_GROUP, pipeline_storage
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import RegisterPlan, Shape3, StageCount

HEADER = "flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h"
COLLECTIVE = "flashinfer/gemm/nvfp4_svdquant_gemm_collective_sm120.h"

_CONFIG = re.compile(r"Tactic([0-9]+)x([0-9]+)x([0-9]+)(Swap)?(Sk|Static)?Config")
_SCHEDULER = {
    None: "PersistentScheduler",
    "Sk": "StreamKScheduler",
    "Static": "StaticPersistentScheduler",
}
# The header's output type: OutElementType = cutlass::bfloat16_t (D and the bias)
_BF16_BITS = 16


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


def _constant(name: str) -> int:
    return int(family_data()["constants"][name]["value"])


def kernels() -> tuple[str, ...]:
    """The kernels the calls define, by label: `default` (GemmKernel) and `no_inline_down`."""
    return tuple(dict.fromkeys(family_data()["kernel_of"].values()))


@dataclass(frozen=True)
class Tactic:
    macro: str
    config: str
    tile: Shape3
    swap_ab: bool
    tile_scheduler: str

    @property
    def small_m(self) -> bool:
        """The header: SmallM = size<0>(MmaTileShape) == 64 (one consumer warpgroup)."""
        return self.tile.m == _constant("small_m_rows")

    @property
    def row80(self) -> bool:
        """The header: IsRow80 = SmallM && SwapAB && N == 32 && K == 256 && static scheduler;
        it is IsProductionRow80 and takes the dedicated-TMA LoRA path (kDedicatedTma)."""
        return (
            self.small_m
            and self.swap_ab
            and self.tile.n == 32
            and self.tile.k == 256
            and self.tile_scheduler == "StaticPersistentScheduler"
        )

    @property
    def donor(self) -> Shape3:
        """The header: DonorTileShape, the tile the mainloop builder is run at."""
        if self.small_m:
            return Shape3(m=_constant("donor_rows"), n=self.tile.n, k=self.tile.k)
        return self.tile


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    if name not in data["macros"]:
        return f"`{name}` is not one of {', '.join(data['macros'])}"
    if len(args) != 1:
        return f"`{name}` takes 1 argument; this call passes {len(args)}"
    m = _CONFIG.fullmatch(args[0])
    if m is None:
        return f"`{args[0]}` is not a config named {data['config_pattern']}"
    return Tactic(
        macro=name,
        config=args[0],
        tile=Shape3(m=int(m[1]), n=int(m[2]), k=int(m[3])),
        swap_ab=m[4] is not None,
        tile_scheduler=_SCHEDULER[m[5]],
    )


def epilogue_operands(t: Tactic) -> epilogue.EpilogueOperands:
    """The header: ElementC = void, OutElementType = bf16, LayoutC = SwapAB ? ColumnMajor : RowMajor."""
    return epilogue.EpilogueOperands(c_bits=0, d_bits=_BF16_BITS, d_column_major=t.swap_ab)


def fusion_storage(t: Tactic) -> Block:
    """The header: FusionOperation = SwapAB ? LinCombPerRowBias : LinCombPerColBias (bias bf16)."""
    if t.swap_ab:
        return fusion.per_row_bias()
    return fusion.per_col_bias(t.tile.n, _BF16_BITS)


def epilogue_shared_storage(t: Tactic) -> Block:
    """The builder's epilogue (CollectiveEpilogueBase) at the real tile; the LoRA-overlap copy
    used up to 128x128 keeps its SharedStorage verbatim."""
    return epilogue.shared_storage(t.tile, epilogue_operands(t), fusion_storage(t))


def lora_carveout(t: Tactic) -> int:
    """The header: LoRaSmemCarveoutBytes; zero on the byte-exact path (D/L1 overlay a residual
    stage), (M + N) * Row80SideSlotStorageK (= K * 4 / 16) * 2 + 128 on the row80 side slot."""
    if not t.row80:
        return 0
    storage_k = t.tile.k * 4 // _BF16_BITS
    return (t.tile.m + t.tile.n) * storage_k * _constant("lora_element_bytes") + _constant(
        "side_slot_carveout_round"
    )


def stage_count(t: Tactic) -> StageCount:
    """The block-scaled builder at the donor tile: StageCountAutoCarveout<epilogue + LoRA
    carveout>, or the row80 config's StageCount<4>."""
    fixed = _constant("row80_stages") if t.row80 else None
    carveout = epilogue_shared_storage(t).size + lora_carveout(t)
    return mainloop.stage_count(t.donor, mainloop.NVFP4, carveout, fixed=fixed)


def _stage_bytes(t: Tactic) -> mainloop.StageBytes:
    """The collective: A and B over the real tile; SFA over TileShapeSFA (128 rows when M < 128),
    SFB over max(N, 128) as the builder's atom pads it."""
    real = mainloop.stage_bytes(t.tile, mainloop.NVFP4)
    return mainloop.StageBytes(
        a=real.a, b=real.b, sfa=mainloop.stage_bytes(t.donor, mainloop.NVFP4).sfa, sfb=real.sfb
    )


def _side_slot(t: Tactic) -> list[Block]:
    """SharedStorageDedicatedTma's bf16 D[M, K/4] and L1[N, K/4] (one stage of SmemLayoutD/L1)."""
    if not t.row80:
        return []
    storage_k = t.tile.k * 4 // _BF16_BITS
    size = _constant("lora_element_bytes") * storage_k
    align = _constant("lora_buffer_align")
    return [
        array(
            "smem_D",
            t.tile.m * size,
            align,
            f"{COLLECTIVE}: alignas(128) ArrayEngine<bfloat16_t, cosize_v<SmemLayoutDDedicated>> smem_D",
            ("input.call",),
        ),
        array(
            "smem_L1",
            t.tile.n * size,
            align,
            f"{COLLECTIVE}: alignas(128) ArrayEngine<bfloat16_t, cosize_v<SmemLayoutL1Dedicated>> smem_L1",
            ("input.call",),
        ),
    ]


def mainloop_tensor_storage(t: Tactic, stages: int) -> Block:
    return mainloop.mainloop_tensor_storage(
        t.tile,
        mainloop.NVFP4,
        stages,
        per_stage=_stage_bytes(t),
        extra=_side_slot(t),
        collective=f"{COLLECTIVE}: CollectiveMmaLoRaSm120",
    )


def mainloop_pipeline(t: Tactic, stages: int) -> Block:
    """The collective's PipelineStorage: PipelineTmaAsync<Stages>'s barriers, or on the row80
    side slot a struct of them and the one-slot LoRA pipeline's."""
    if not t.row80:
        return mainloop.mainloop_pipeline(stages)
    lora = _constant("lora_pipeline_stages")
    return struct(
        "mainloop",
        [
            mainloop.mainloop_pipeline(stages).at("mainloop", 16),
            array(
                "lora",
                pipeline_storage(lora),
                BARRIER_BYTES,
                f"{SM90_PIPELINE}: PipelineTmaAsync<{lora}>::SharedStorage (LoRaPipeline)",
            ).at("lora", 16),
        ],
        f"{COLLECTIVE}: SharedStorageDedicatedTma::PipelineStorage : cute::aligned_struct<16, _0>",
        base_align=16,
    )


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(t, stages).at("tensors"),
            mainloop_pipeline(t, stages).at("pipeline_storage", 16),
        ],
        f"{COLLECTIVE}: CollectiveMmaLoRaSm120::SharedStorage"
        + ("DedicatedTma" if t.row80 else "ByteExact"),
    )


def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    """GemmUniversalLoRaSm120::SharedStorage: the SM90 cooperative shell's members and order."""
    ops = epilogue_operands(t)
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop_tensor_storage(t, stages),
        mainloop_pipeline=mainloop_pipeline(t, stages),
        epilogue_tensors=epilogue.tensor_storage(t.tile, ops, fusion_storage(t)),
        epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
        scheduler=shell.scheduler_for(t.tile_scheduler),
    )


def mma_threads(t: Tactic) -> int:
    """The header: TiledMma = SmallM ? a 2x2 atom layout (128 threads) : the donor's 4x2 (256)."""
    return THREADS_PER_WARP_GROUP if t.small_m else shell.COOPERATIVE_MMA_THREADS


def max_threads_per_block(t: Tactic) -> int:
    """The collective: GemmUniversalLoRaSm120::MaxThreadsPerBlock = NumMMAThreads + 128."""
    return shell.max_threads_per_block(mma_threads(t))


def register_plan(t: Tactic) -> RegisterPlan:
    return shell.register_plan(t.tile, sm120_blockscaled=True, mma_threads=mma_threads(t))


def capacity() -> int:
    """cutlass::arch::sm120_smem_capacity_bytes, which the header static_asserts against."""
    return int(family_data()["capacity"]["value"])


def _proven_small_m(t: Tactic) -> bool:
    """The header: IsProvenSmallM = !SwapAB && N == 128 && K in {128, 256} && a persistent or
    static scheduler (the 64-row tiles the single-consumer-warpgroup driver is proven on)."""
    return (
        not t.swap_ab
        and t.tile.n == 128
        and t.tile.k in (128, 256)
        and t.tile_scheduler in ("PersistentScheduler", "StaticPersistentScheduler")
    )


def static_assert(t: Tactic, smem: int) -> str:
    """The first of the header's static_asserts (data/family.toml [static_asserts]) that rejects
    this config, with where it is and why, or "" when none does. `smem`: the kernel's
    SharedStorageSize."""
    asserts: dict[str, Any] = family_data()["static_asserts"]
    failed: list[tuple[str, str]] = []
    if t.small_m and not (_proven_small_m(t) or t.row80):
        failed.append(("small_m", f"a {t.tile} tile is neither a proven 64-row tile nor row80"))
    lora_rank = asserts["lora_rank"]["rank"]
    if t.tile.k * 4 // _BF16_BITS < lora_rank:
        failed.append(
            (
                "lora_rank",
                f"one K{t.tile.k} stage spans {t.tile.k * 4 // _BF16_BITS} bf16 columns, "
                f"fewer than the LoRA rank {lora_rank}",
            )
        )
    if smem > capacity():
        failed.append(
            (
                "capacity",
                f"SharedStorageSize {smem:,} B > sm120_smem_capacity_bytes {capacity():,} B",
            )
        )
    if not failed:
        return ""
    key, why = failed[0]
    a = asserts[key]
    return f'{why}: {a["where"]} static_assert(..., "{a["message"]}")'


def release_known(version: str | None) -> str | None:
    """None when the release's header builds this recipe, else why not modeled."""
    recipes: dict[str, Any] = family_data()["recipes"]
    if version in recipes:
        return None
    known = ", ".join(recipes)
    if version is None:
        return f"unknown FlashInfer release: the recipe is known for {known}"
    return f"FlashInfer {version}: the recipe is known for {known}"


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "default"
) -> KernelNumbers | str:
    """The numbers of the kernel one call instantiates under a release's header, or why not
    modeled. Each macro builds one kernel (data/family.toml [kernel_of]); `kernel` names which
    label the caller asks for: `default` always means the call's own kernel."""
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    why = release_known(version)
    if why is not None:
        return why
    own = family_data()["kernel_of"][name]
    if kernel not in ("default", own):
        return f"`{name}` builds the kernel `{own}`, not `{kernel}`"
    sc = stage_count(t)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=own,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages),
        max_threads_per_block=max_threads_per_block(t),
    )
