"""FlashInfer's dense SM100 GEMMs of the JIT modules (FP4, MXFP8, FP8, BF16): one macro call, one
`GemmUniversal` on the one-problem SM100 kernel shell.

Each header builds, per macro call, an SM100 UMMA mainloop (block-scaled NVF4 or MXF8F6F4 for FP4
and MXFP8, dense for FP8 and BF16) from CollectiveBuilder with
`StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`, the SM100 TMA epilogue
(`TmaWarpSpecialized{1,2}Sm`) and the CLC persistent scheduler. The MMA tile is the CTA tile with M
doubled for `_2SM` (`SMTypeAdapter<_2SM>::Scale`). FP4 and MXFP8 take a dynamic cluster
(`Shape<int, int, _1>`): their CGA arguments change nothing the compiler lays out. The CUTLASS
parts are cutlint.cutlass.sm100_mainloop / sm100_epilogue / sm100_kernel with `ptr_array=False`;
this module only decides, as the headers do, which parts a call selects. Each constant's source is
in data/family.toml.

Two more headers build on the same parts: the SM103 FP4 module's ultra kernels
(fp4_gemm_template_sm103.h: the one-problem SM103 block-scaled mainloop with its AB and SF stage
counts, the one-problem no-smem epilogue, the one-problem SM103 shell) and the SVDQuant NVFP4
kernels (nvfp4_svdquant_gemm_template_sm100.h: the SM100 NVF4 mainloop, whose LoRA operands
overlay its A/B stages, and the TMA epilogue with LinCombPerColBias's row broadcast).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_kernel as kernel
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel, cutlass_model, parse_version
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.producers.trtllm import fp4_gemm as trtllm_fp4
from cutlint.records import EpilogueTile, Shape3, StageCount


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


def _constant(name: str) -> int:
    return int(family_data()["constants"][name]["value"])


@dataclass(frozen=True)
class Tactic:
    """What one macro call instantiates, as CUTLASS parts."""

    name: str
    kind: str
    """`nvfp4`, `mxfp8`, `fp8` or `bf16` (family.toml [macros])."""
    output: str
    cta_tile: Shape3
    two_sm: bool
    mainloop: ml.Mainloop
    epilogue: epi.Epilogue

    @property
    def ptr_array(self) -> bool:
        """A grouped kernel on the ptr-array shell (sm100_gemm_array_tma_warpspecialized.hpp)."""
        return self.mainloop.ptr_array


def _epilogue_override(kind: str, tile: Shape3) -> tuple[int, int] | None:
    if kind not in ("nvfp4", "mxfp8", "nvfp4-ultra"):
        return None
    cta = (_constant("epilogue_tile_cta_m"), _constant("epilogue_tile_cta_n"))
    k = _constant("ultra_epilogue_tile_cta_k" if kind == "nvfp4-ultra" else "epilogue_tile_cta_k")
    if (tile.m, tile.n, tile.k) != (*cta, k):
        return None
    return _constant("epilogue_tile_m"), _constant("epilogue_tile_n")


def tactic_of(
    name: str,
    args: tuple[str, ...],
    cutlass: CutlassModel | None = None,
    variant: str | None = None,
) -> Tactic | str:
    """The parts the header builds for one call (under a file's `variant`, family.toml
    [variants]), or why the model does not cover it."""
    data = family_data()
    if name in data["launchers"]:
        if data["launchers"][name]["kind"].startswith("blockwise"):
            return _blockwise_tactic_of(name, args, cutlass)
        return _group_tactic_of(name, args, cutlass)
    macro = data["macros"].get(name)
    if macro is None:
        return f"`{name}` is not one of {', '.join([*data['macros'], *data['launchers']])}"
    if macro["kind"] == "nvfp4-svdquant":
        return _svdquant_tactic_of(name, args, cutlass)
    if len(args) != len(data["parameters"]):
        return f"`{name}` takes {len(data['parameters'])} arguments; this call passes {len(args)}"
    out, m, n, k, cm, cn, ck, xsm = args
    if out not in data["output_bits"]:
        return f"output type `{out}`: the model covers {', '.join(data['output_bits'])}"
    xsms: dict[str, bool] = macro.get("two_sm", data["two_sm"])
    if xsm not in xsms:
        return f"XSM `{xsm}`: the header's SMTypeAdapter has {', '.join(xsms)}"
    try:
        tile = Shape3(m=int(m), n=int(n), k=int(k))
        cluster = (int(cm), int(cn), int(ck))
    except ValueError:
        return f"tile {m}x{n}x{k}, cluster {cm}x{cn}x{ck}: not integers"
    two_sm = xsms[xsm]
    if macro["kind"] == "nvfp4-ultra":
        return _ultra_tactic_of(name, macro, out, tile, two_sm, cutlass)
    if macro["static_cluster"] and (cluster[0] % (2 if two_sm else 1) or cluster[2] != 1):
        return f"cluster {cm}x{cn}x{ck} with {xsm}: the 2-SM MMA needs an even cluster M, K = 1"
    if out == "float" and macro["kind"] != "bf16":
        return f"output `float`: only the BF16 module instantiates it ({macro['source']})"
    mma = Shape3(m=tile.m * (2 if two_sm else 1), n=tile.n, k=tile.k)
    kind = ml.UmmaKind.DENSE if macro["sf_vector"] == 0 else ml.UmmaKind.BLOCKSCALED
    mainloop = ml.Mainloop(
        kind,
        mma.m,
        mma.n,
        mma.k,
        two_sm,
        macro["a_bits"],
        macro["a_bits"],
        sf_vector=macro["sf_vector"],
        tensormaps=4 if kind is ml.UmmaKind.BLOCKSCALED else 2,
        ptr_array=False,
    )
    d_bits = int(data["output_bits"][out])
    n_divides = cutlass.has("sm100_epilogue_tile_n_divides") if cutlass is not None else True
    no_smem = variant is not None and data["variants"][variant]["epilogue"] == "no-smem"
    if variant is not None and name not in data["variants"][variant]["macros"]:
        return f"`{name}` is not built differently under {variant}"
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.NO_SMEM if no_smem else epi.EpilogueKind.TMA,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=None if macro["c_void"] else d_bits,
        d_bits=d_bits,
        d_void=False,
        d_m_major=macro["d_column_major"],
        # the epilogue builder is given OpClassTensorOp by every header (the block-scaled class
        # is the mainloop's only)
        blockscaled=False,
        tile_override=_epilogue_override(macro["kind"], tile),
        n_divides=n_divides,
        # FP4 / MXFP8 name LinearCombination<Out, float, void, float> to the builder
        fusion_operation=macro["c_void"],
        ptr_array=False,
    )
    return Tactic(name, macro["kind"], out, tile, two_sm, mainloop, epilogue)


def _ultra_tactic_of(
    name: str,
    macro: dict[str, Any],
    out: str,
    tile: Shape3,
    two_sm: bool,
    cutlass: CutlassModel | None,
) -> Tactic | str:
    """The SM103 ultra FP4 kernel's parts (fp4_gemm_template_sm103.h): the one-problem SM103
    block-scaled mainloop (KernelTmaWarpSpecialized{1,2}SmBlockScaledMxNvf4UltraVs16Sm103, its
    own builder and stage counts) and the one-problem no-smem epilogue (NoSmemWarpSpecialized
    {1,2}Sm) on the one-problem SM103 shell."""
    if out == "float":
        return f"output `float`: only the BF16 module instantiates it ({macro['source']})"
    if tile.k != macro["tile_k"] or tile.n not in macro["tile_n"] or tile.m != macro["cta_m"]:
        return (
            f"CTA {tile.m}x{tile.n}x{tile.k}: the SM103 builder takes CTA M {macro['cta_m']}, "
            f"N in {macro['tile_n']} and K {macro['tile_k']} ({macro['source']})"
        )
    mma = Shape3(m=tile.m * (2 if two_sm else 1), n=tile.n, k=tile.k)
    mainloop = ml.Mainloop(
        ml.UmmaKind.SM103_BLOCKSCALED,
        mma.m,
        mma.n,
        mma.k,
        two_sm,
        macro["a_bits"],
        macro["a_bits"],
        sf_vector=macro["sf_vector"],
        tensormaps=4,
        ptr_array=False,
    )
    d_bits = int(family_data()["output_bits"][out])
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.NO_SMEM,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=None,
        d_bits=d_bits,
        d_void=False,
        d_m_major=False,
        blockscaled=False,
        tile_override=_epilogue_override(macro["kind"], tile),
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides") if cutlass is not None else True,
        # a FusionOperation is named (LinearCombination, from 0.7.2 sm103_epilogue::
        # LinearCombinationF32x2Operation): the fusion-callbacks collective
        fusion_operation=True,
        ptr_array=False,
    )
    return Tactic(name, macro["kind"], out, tile, two_sm, mainloop, epilogue)


def _svdquant_tactic_of(
    name: str, args: tuple[str, ...], cutlass: CutlassModel | None
) -> Tactic | str:
    """The SVDQuant NVFP4 kernel of one `SvdquantGemmConfig` (nvfp4_svdquant_gemm_template_sm100.h):
    the one-problem SM100 block-scaled NVF4 mainloop (CollectiveMmaLoRA keeps the builder's
    SharedStorage: its LoRA operands overlay the A/B stages) and the SM100 TMA epilogue with
    LinCombPerColBias (a row broadcast of the bf16 bias)."""
    data = family_data()
    macro = data["macros"][name]
    if len(args) != len(macro["parameters"]):
        return f"`{name}` takes {len(macro['parameters'])} argument; this call passes {len(args)}"
    config = data["svdquant_configs"].get(args[0])
    if config is None:
        return f"`{args[0]}`: the header defines {', '.join(data['svdquant_configs'])}"
    mma = Shape3(m=config["mma_tile"][0], n=config["mma_tile"][1], k=config["mma_tile"][2])
    two_sm: bool = config["two_sm"]
    mainloop = ml.Mainloop(
        ml.UmmaKind.BLOCKSCALED,
        mma.m,
        mma.n,
        mma.k,
        two_sm,
        macro["a_bits"],
        macro["a_bits"],
        sf_vector=macro["sf_vector"],
        tensormaps=4,
        ptr_array=False,
    )
    d_bits = int(macro["d_bits"])
    override = config.get("epilogue_tile")
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.TMA,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=None,
        d_bits=d_bits,
        d_void=False,
        d_m_major=False,
        blockscaled=False,
        tile_override=(override[0], override[1]) if override else None,
        fusion=epi.FusionStorage.ROW_BROADCAST_BIAS,
        fusion_bits=int(macro["bias_bits"]),
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides") if cutlass is not None else True,
        fusion_operation=True,
        ptr_array=False,
    )
    tile = Shape3(m=mma.m // (2 if two_sm else 1), n=mma.n, k=mma.k)
    return Tactic(name, macro["kind"], "cutlass::bfloat16_t", tile, two_sm, mainloop, epilogue)


def _group_tactic_of(
    name: str, args: tuple[str, ...], cutlass: CutlassModel | None
) -> Tactic | str:
    """The grouped MXFP4 launcher's parts (family.toml [launchers]): a ptr-array block-scaled
    MXF8F6F4 mainloop (A and B as uint8_t in shared memory) and the ptr-array TMA epilogue."""
    launcher = family_data()["launchers"][name]
    if len(args) != len(launcher["parameters"]):
        return f"`{name}` takes {len(launcher['parameters'])} template arguments; this passes {len(args)}"
    tm, tn, tk, mma_sm, swap, a, b, sfa, sfb, out = args
    outputs: dict[str, int] = family_data()["output_types"]
    if a not in launcher["operands"] or b not in launcher["operands"]:
        return f"operands {a} x {b}: the model covers {', '.join(launcher['operands'])}"
    if sfa not in launcher["scale_factors"] or sfb not in launcher["scale_factors"]:
        return (
            f"scale factors {sfa}, {sfb}: the model covers {', '.join(launcher['scale_factors'])}"
        )
    if out not in outputs:
        return f"output {out}: the model covers {', '.join(outputs)}"
    if mma_sm not in ("1", "2") or swap not in ("true", "false"):
        return f"MmaSM {mma_sm}, SwapAB {swap}: the launcher takes 1 or 2, true or false"
    try:
        tile = Shape3(m=int(tm), n=int(tn), k=int(tk))
    except ValueError:
        return f"tile {tm}x{tn}x{tk} is not three integers"
    two_sm = mma_sm == "2"
    mma = Shape3(m=tile.m * int(mma_sm), n=tile.n, k=tile.k)
    bits = int(launcher["smem_bits"])
    mainloop = ml.Mainloop(
        ml.UmmaKind.BLOCKSCALED,
        mma.m,
        mma.n,
        mma.k,
        two_sm,
        bits,
        bits,
        sf_vector=int(launcher["sf_vector"]),
        tensormaps=4,
    )
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.TMA,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=None,
        d_bits=outputs[out],
        d_void=False,
        d_m_major=swap == "true",
        blockscaled=False,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides") if cutlass is not None else True,
    )
    return Tactic(name, launcher["kind"], out, tile, two_sm, mainloop, epilogue)


def _blockwise_tactic_of(
    name: str, args: tuple[str, ...], cutlass: CutlassModel | None
) -> Tactic | str:
    """The blockwise-scaled launchers' parts (family.toml [launchers]): the one-problem blockwise
    mainloop on the MMA-transform shell, the SM100 TMA epilogue."""
    launcher = family_data()["launchers"][name]
    if len(args) != len(launcher["parameters"]):
        return f"`{name}` takes {len(launcher['parameters'])} template arguments; this passes {len(args)}"
    gm, gn, gk, _major_k, mma_sm, dtype_in, out = args
    outputs: dict[str, int] = family_data()["output_types"]
    if dtype_in not in launcher["operands"]:
        return f"operand {dtype_in}: the model covers {', '.join(launcher['operands'])}"
    if out not in outputs:
        return f"output {out}: the model covers {', '.join(outputs)}"
    try:
        granularity = (int(gm), int(gn), int(gk))
        sm_count = int(mma_sm)
    except ValueError:
        return f"granularity {gm}, {gn}, {gk} or MmaSM {mma_sm} is not an integer"
    low_latency = launcher["kind"] == "blockwise-low-latency"
    grouped = launcher["kind"] == "blockwise-group"
    if low_latency:
        # D^T = B^T A^T: the scale configuration swaps M and N
        granularity = (granularity[1], granularity[0], granularity[2])
        two_sm, mma = False, Shape3(m=128, n=16, k=128)
    elif sm_count in (1, 2):
        two_sm, mma = sm_count == 2, Shape3(m=128 * sm_count, n=128, k=128)
    else:
        return f"MmaSM {mma_sm}: the launcher takes 1 or 2"
    bits = int(launcher["smem_bits"])
    mainloop = ml.Mainloop(
        ml.UmmaKind.BLOCKWISE,
        mma.m,
        mma.n,
        mma.k,
        two_sm,
        bits,
        bits,
        ptr_array=grouped,
        scale_granularity=granularity,
    )
    d_bits = outputs[out]
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.TMA,
        mma_m=mma.m,
        mma_n=mma.n,
        # EpilogueScheduleAuto: 2-SM for a static even cluster M and an MMA M of 128 or 256;
        # grouped: PtrArrayTmaWarpSpecialized{1,2}Sm by MmaSM
        two_sm=two_sm,
        c_bits=None if low_latency or grouped else d_bits,
        d_bits=d_bits,
        d_void=False,
        d_m_major=low_latency,
        blockscaled=False,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides") if cutlass is not None else True,
        ptr_array=grouped,
    )
    tile = Shape3(m=mma.m // (2 if two_sm else 1), n=mma.n, k=mma.k)
    return Tactic(name, launcher["kind"], out, tile, two_sm, mainloop, epilogue)


def variant_of(defines: Collection[str]) -> str | None:
    """The header configuration the macros defined for a file select (family.toml [variants]:
    the rendered file's own #defines before its #include); None: the header as is."""
    for name, v in family_data()["variants"].items():
        if v["define"] in defines:
            return str(name)
    return None


def trtllm_reading(
    name: str, arch: str, args: tuple[str, ...]
) -> tuple[str | None, tuple[str, ...]]:
    """A TensorRT-LLM call of arch tag `arch` (its `ARCH_`), its other arguments `args` in the
    modeled header's order: the macro whose recipe it builds (None: `name`'s own) and the
    arguments in that macro's order (family.toml [trtllm_arch]: Sm103's MMA K is 3 x CTA_K_)."""
    how: dict[str, Any] = family_data()["trtllm_arch"].get(arch, {})
    modeled_as: str | None = how.get("modeled_as")
    if modeled_as is None or modeled_as == name or len(args) != len(family_data()["parameters"]):
        return None, args
    out, m, n, k, cm, cn, ck, xsm = args
    try:
        k = str(int(k) * int(how.get("cta_k_scale", 1)))
    except ValueError:
        pass  # not an integer: tactic_of says so
    xsms: dict[str, str] = how.get("xsm", {})
    return modeled_as, (out, m, n, k, cm, cn, ck, xsms.get(xsm, xsm))


def cutlass_of(version: str | None) -> CutlassModel | str:
    """The CUTLASS release of a FlashInfer release's wheel (or of a TensorRT-LLM call's build),
    or why not modeled."""
    trtllm = trtllm_fp4.cutlass_of(version)
    if trtllm is not None:
        return cutlass_model(parse_version(trtllm), "TensorRT-LLM's build (its context)")
    data = family_data()
    recipes: dict[str, Any] = data["recipes"]
    same: str | None = data.get("recipe_of", {}).get(version) if version is not None else None
    key = same or version
    if key is None or key not in recipes:
        known = ", ".join(recipes)
        return f"FlashInfer {version or '(unknown release)'}: the recipe is known for {known}"
    label = recipes[key]["cutlass"]
    return cutlass_model(parse_version(label), f"the FlashInfer {version} wheel")


def epilogue_shared_storage(t: Tactic) -> Block:
    return epi.shared_storage(t.epilogue)


def epilogue_shape(t: Tactic) -> EpilogueTile:
    return epi.tile_shape(t.epilogue)


def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    return ml.stage_count(t.mainloop, epilogue_shared_storage(t).size, cutlass)


def shell(t: Tactic, cutlass: CutlassModel) -> kernel.KernelShell:
    blockwise = t.mainloop.kind is ml.UmmaKind.BLOCKWISE
    return kernel.shell(
        t.mainloop.kind is ml.UmmaKind.SM103_BLOCKSCALED,
        ml.accumulator_stages(t.mainloop),
        cutlass,
        ptr_array=t.ptr_array,
        scheduler_stages=ml.scheduler_stages(t.mainloop) if blockwise else None,
        mma_transform=blockwise,
        no_smem_epilogue=t.epilogue.kind is epi.EpilogueKind.NO_SMEM,
    )


def sf_stages(t: Tactic) -> int | None:
    """The SM103 mainloop's scale-factor stages (LoadSFPipelineStageCount); None elsewhere (the
    scale factors share the AB stages)."""
    if t.mainloop.kind is not ml.UmmaKind.SM103_BLOCKSCALED:
        return None
    return ml.sm103_sf_stages(t.mainloop, epilogue_shared_storage(t).size)


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return ml.shared_storage(t.mainloop, stages, sf_stages(t))


def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` (sm100_kernel.shared_storage_members: the one-problem shell,
    or the ptr-array one for the grouped launcher)."""
    k = shell(t, cutlass)
    e = t.epilogue
    sf = sf_stages(t)
    members = kernel.shared_storage_members(
        k,
        mainloop_tensors=ml.tensor_storage(t.mainloop, stages, sf),
        mainloop_maps=ml.tensormap_storage(t.mainloop),  # a member of the ptr-array shell only
        mainloop_pipeline=ml.pipeline(t.mainloop, stages, sf),
        epilogue_tensors=epi.tensor_storage(e),
        epilogue_maps=epi.tensormap_storage(e),  # a member of the ptr-array shell only
        epi_load_pipeline=epi.pipeline(e),
    )
    return kernel.shared_storage(members, k)


def tmem_columns(t: Tactic) -> ml.TmemColumns | None:
    return ml.tmem_columns(t.mainloop, epilogue_shape(t).n)


def evaluate(
    name: str,
    args: tuple[str, ...],
    version: str | None,
    kernel_label: str = "default",
    variant: str | None = None,
) -> KernelNumbers | str:
    """The numbers of one call's kernel under a release's headers (and a file's variant), or why
    not modeled."""
    cutlass = cutlass_of(version)
    if isinstance(cutlass, str):
        return cutlass
    t = tactic_of(name, args, cutlass, variant)
    if isinstance(t, str):
        return t
    if kernel_label != "default":
        return f"`{name}` builds one kernel, `default`, not `{kernel_label}`"
    sc = stage_count(t, cutlass)
    return KernelNumbers(
        family=family_data()["name"],
        kernel="default",
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages, cutlass),
        max_threads_per_block=kernel.max_threads_per_block(shell(t, cutlass)),
    )
