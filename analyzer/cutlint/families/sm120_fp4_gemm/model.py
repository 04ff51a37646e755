"""FlashInfer's dense FP4 (NVFP4) GEMM for SM120/SM121 (`INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER`).

The recipe is `DeviceGemmFp4GemmSm120_*` in `flashinfer/gemm/fp4_gemm_template_sm120.h`: a
block-scaled SM120 mainloop over `nv_float4_t<e2m1>` operands (`KernelTmaWarpSpecializedCooperative`,
`StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`), an SM120 TMA epilogue with
`ElementC = void` and D row-major (column-major when SwapAB), and two kernels on the SM90
cooperative shell that differ only in the tile scheduler: `GemmKernelDefault`
(`StaticPersistentScheduler`, no scheduler storage) and `GemmKernelStreamK` (`StreamKScheduler`,
the CLC scheduler's 144 B). The cluster arguments are ignored: the header fixes 1x1x1.

The headers of 0.5.0 - 0.6.7.post3 differ where a recipe in data/family.toml says so: the
mainloop's `StageCount<2>` (`fixed_stages`), the persistent kernel's scheduler `void`
(`default_scheduler`, the CLC scheduler on SM120), and before 0.6.4 one kernel per call
(`kernels = ["default"]`: the header's `GemmKernel`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.producers.trtllm import fp4_gemm as trtllm_fp4
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


def kernels() -> tuple[str, ...]:
    """The kernels each call defines, by label: `default`, `streamk`."""
    return tuple(family_data()["kernels"])


@dataclass(frozen=True)
class Recipe:
    """How a release's header builds the kernels where releases differ."""

    version: str
    """The modeled release whose header it is."""
    fixed_stages: int | None
    """`StageCount<N>` in the mainloop builder; None: StageCountAutoCarveout."""
    default_scheduler: str
    """The persistent kernel's scheduler tag (`void` before 0.6.8rc1)."""
    kernels: tuple[str, ...]
    """The kernels one call defines, by label."""
    cutlass: str
    """The CUTLASS the release bundles."""


TRTLLM = trtllm_fp4.RELEASE_PREFIX
"""The `release` of a TensorRT-LLM `_SM120` call: its header's recipe on the context's CUTLASS."""


def trtllm_release(cutlass: str) -> str:
    return trtllm_fp4.release(cutlass)


def recipe_for(version: str | None) -> Recipe | None:
    """The recipe of a release's header (its own or the one it shares), or None."""
    data = family_data()
    if version is not None and version.startswith(TRTLLM):
        (trtllm,) = data["defined_as"].values()
        return Recipe(
            version=version,
            fixed_stages=None,
            default_scheduler=trtllm["default_scheduler"],
            kernels=tuple(trtllm["kernels"]),
            cutlass=version[len(TRTLLM) :],
        )
    recipes: dict[str, Any] = data["recipes"]
    name = data.get("recipe_of", {}).get(version, version)
    r = recipes.get(name) if name is not None else None
    if r is None:
        return None
    return Recipe(
        version=name,
        fixed_stages=r.get("fixed_stages"),
        default_scheduler=r.get("default_scheduler", data["kernels"]["default"]["tile_scheduler"]),
        kernels=tuple(r.get("kernels", data["kernels"])),
        cutlass=r["cutlass"],
    )


def kernels_of(version: str | None) -> tuple[str, ...]:
    """The kernels one call defines under a release's header (both when the release is unknown:
    `evaluate` then says why not modeled)."""
    r = recipe_for(version)
    return kernels() if r is None else r.kernels


@dataclass(frozen=True)
class Tactic:
    """What one macro call instantiates (its arguments, typed)."""

    output: str
    """T as written: `half`, `__nv_bfloat16`."""
    tile: Shape3
    """CTA tile in elements (K in FP4 elements: 128 elements are 64 bytes)."""
    swap_ab: bool


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    if name != data["macro"] and name not in data["defined_as"]:
        return f"`{name}` is not {data['macro']}"
    if len(args) == len(data["parameters"]) - 1:
        args = (*args, "false")  # 0.6.8rc1 - 0.6.10.post1: no SWAP_AB_, D row-major
    if len(args) != len(data["parameters"]):
        return f"`{name}` takes {len(data['parameters'])} arguments; this call passes {len(args)}"
    out, m, n, k, _cm, _cn, _ck, xsm, swap = args
    if out not in data["output_bits"]:
        return f"output type `{out}`: the model covers {', '.join(data['output_bits'])}"
    if xsm != "_1SM":
        return f"XSM `{xsm}`: the SM120 header builds 1-SM kernels only"
    if swap not in ("true", "false"):
        return f"SWAP_AB `{swap}` is not `true` or `false`"
    try:
        tile = Shape3(m=int(m), n=int(n), k=int(k))
    except ValueError:
        return f"tile {m}x{n}x{k} is not three integers"
    if tile.m % mainloop.SF_BLOCK_MN or tile.n % 32 or tile.k % 128:
        return f"tile {tile}: the model covers M a multiple of 128, N of 32, K of 128"
    return Tactic(output=out, tile=tile, swap_ab=swap == "true")


def epilogue_operands(t: Tactic) -> epilogue.EpilogueOperands:
    return epilogue.EpilogueOperands(
        c_bits=0, d_bits=family_data()["output_bits"][t.output], d_column_major=t.swap_ab
    )


def epilogue_shape(t: Tactic) -> EpilogueTile:
    return epilogue.shape(t.tile, epilogue_operands(t))


def epilogue_shared_storage(t: Tactic) -> Block:
    return epilogue.shared_storage(
        t.tile, epilogue_operands(t), epilogue.linear_combination_storage()
    )


def stage_count(t: Tactic, recipe: Recipe | None = None) -> StageCount:
    """The builder's StageCountAutoCarveout, or the header's StageCount<2> (0.5.0 - 0.6.7.post3)."""
    fixed = recipe.fixed_stages if recipe is not None else None
    if fixed is not None:
        return mainloop.stage_count(t.tile, mainloop.NVFP4, None, fixed)
    return mainloop.stage_count(t.tile, mainloop.NVFP4, epilogue_shared_storage(t).size)


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mainloop.mainloop_shared_storage(t.tile, mainloop.NVFP4, stages)


def kernel_shared_storage(
    t: Tactic, stages: int, kernel: str = "default", recipe: Recipe | None = None
) -> Block:
    ops = epilogue_operands(t)
    tag = family_data()["kernels"][kernel]["tile_scheduler"]
    if recipe is not None and kernel == "default":
        tag = recipe.default_scheduler
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop.mainloop_tensor_storage(t.tile, mainloop.NVFP4, stages),
        mainloop_pipeline=mainloop.mainloop_pipeline(stages),
        epilogue_tensors=epilogue.tensor_storage(
            t.tile, ops, epilogue.linear_combination_storage()
        ),
        epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
        scheduler=shell.scheduler_for(tag),
    )


def max_threads_per_block() -> int:
    return shell.max_threads_per_block()


def register_plan(t: Tactic, recipe: Recipe | None = None) -> RegisterPlan:
    """The kernel's register split; before CUTLASS 4.4.0 the SM120 block-scaled kernel used the
    generic threshold (knob `sm120_heavy_register_pressure`). No recipe: CUTLASS 4.5.0."""
    if recipe is None:
        return shell.register_plan(t.tile, sm120_blockscaled=True)
    cutlass = cutlass_model(parse_version(recipe.cutlass), f"FlashInfer {recipe.version}")
    return shell.register_plan(t.tile, cutlass.has("sm120_heavy_register_pressure"))


def release_known(version: str | None) -> str | None:
    """None when the release's header builds this recipe, else why not modeled."""
    recipes: dict[str, Any] = family_data()["recipes"]
    if recipe_for(version) is not None:
        return None
    known = ", ".join(recipes)
    if version is None:
        return f"unknown FlashInfer release: the recipe is known for {known}"
    return f"FlashInfer {version}: the recipe is known for {known}"


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "default"
) -> KernelNumbers | str:
    """The numbers of one instantiation's kernel (`default` or `streamk`) under a release's
    header, or why not modeled."""
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    other = family_data()["defined_as"].get(name)
    if other is not None and not (version or "").startswith(TRTLLM):
        return str(other["not_modeled"])  # TensorRT-LLM's macro needs its own recipe
    if other is None and (version or "").startswith(TRTLLM):
        return f"`{name}` is FlashInfer's macro: no TensorRT-LLM recipe"
    why = release_known(version)
    if why is not None:
        return why
    recipe = recipe_for(version)
    assert recipe is not None
    if kernel not in recipe.kernels:
        return f"`{name}` builds the kernels {', '.join(recipe.kernels)}, not `{kernel}`"
    sc = stage_count(t, recipe)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=kernel,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages, kernel, recipe),
        max_threads_per_block=max_threads_per_block(),
    )
