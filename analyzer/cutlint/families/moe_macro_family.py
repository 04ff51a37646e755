"""What the families built from `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM` share: claiming the
macro by its arch tag, typing its arguments against the release's parameter list, the `moe.*`
metrics, and the table columns. Each such family (SM90, SM100, SM120) adds its own model."""

from __future__ import annotations

from collections.abc import Mapping

from cutlint.families.base import Claim, Facts, InputField, Unreadable
from cutlint.model.context import ModelContext
from cutlint.producers.trtllm import moe_macro
from cutlint.records import (
    FormKind,
    Instantiation,
    MoeGemmArgs,
    MoeGemmRecipe,
    Recipe,
)

METRICS: Mapping[str, str] = {
    "moe.tile": "the CTA tile, MxNxK",
    "moe.swap_ab": "SwapAB",
    "moe.fusion": "the epilogue fusion (NONE, FINALIZE, ACTIVATION)",
    "moe.cluster.size": "CGA_M x CGA_N x CGA_K",
    "moe.cluster.shape": "the cluster as written, MxNxK",
    "moe.cluster.dynamic": "DYNAMIC_CGA",
}

METRIC_INPUTS: Mapping[str, tuple[str, ...]] = {
    "moe.tile": ("input.tile",),
    "moe.swap_ab": ("input.swap_ab",),
    "moe.fusion": ("input.fusion",),
    "moe.cluster.size": ("input.cluster",),
    "moe.cluster.shape": ("input.cluster",),
    "moe.cluster.dynamic": ("input.cluster",),
}

COLUMNS = ("tile", "cluster", "A x B -> D", "fusion", "SwapAB")


def parameters(ctx: ModelContext) -> tuple[str, ...]:
    """The macro's parameter list in the release that wrote the file (moe_macro.parameters_of)."""
    return moe_macro.parameters_of(ctx.flashinfer.macro_parameters if ctx.flashinfer else None)


def legacy_launcher(inst: Instantiation, ctx: ModelContext) -> bool:
    """Whether the call is read by FlashInfer 0.5.x's 14-parameter macro (no SWAP_AB), by its
    own #define or the release's list: a launcher that always builds the swapped problem
    (moe_macro's reading says SwapAB on) and another epilogue for FINALIZE
    (EpilogueMoeFusedFinalizeBuilder) and for Sm90 (PtrArrayNoSmemWarpSpecialized)."""
    params = parameters(ctx)
    if inst.parameters is not None:
        params = tuple(p.rstrip("_") for p in inst.parameters)
    return "SWAP_AB" not in params


def claim_macro(
    family: str, arch_sms: tuple[int, ...], inst: Instantiation, ctx: ModelContext
) -> Claim:
    """The family's recipe for a macro call whose arch tag is one of `arch_sms`."""
    if inst.form is not FormKind.MACRO_CALL or inst.name != moe_macro.MACRO or not inst.args:
        return None
    if moe_macro.arch_sm(inst.args[0]) not in arch_sms:
        return None
    return read(family, inst, ctx)


def read(family: str, inst: Instantiation, ctx: ModelContext) -> MoeGemmRecipe | Unreadable:
    """The call's recipe, its arguments read by the macro's own `#define` where the file, a
    header beside it or its build's include path has it (`inst.parameters`), else by the
    parameter list of the release that wrote the file."""
    params = parameters(ctx)
    if inst.parameters is not None:
        params = tuple(p.rstrip("_") for p in inst.parameters)
        unknown = [p for p in params if p not in moe_macro.PARAMETERS]
        if unknown:
            why = (
                f"`{inst.name}` is defined at {inst.defined_at} with parameters the launcher's "
                f"model does not have: {', '.join(unknown)}"
            )
            return Unreadable(problems=(), reason=why)
    arch = moe_macro.arch_problem(inst.args)
    if arch is not None:
        return Unreadable(problems=(arch,), reason=_UNREADABLE)
    arity = moe_macro.arity_problem(inst.args, params)
    if arity is not None:
        if inst.defined_at is not None:
            arity += f" (its #define: {inst.defined_at})"
        return Unreadable(problems=(("CUT004", arity),), reason=_UNREADABLE)
    rejected = moe_macro.compile_problems(inst.args, params)
    if rejected:
        return Unreadable(problems=tuple(rejected), reason=_UNREADABLE)
    args, unknown = moe_macro.typed(inst.args, params)
    problems = tuple(("CUT005", f"`{inst.name}` {u}") for u in unknown)
    if args is None or unknown:
        return Unreadable(problems=problems, reason=_UNREADABLE)
    return MoeGemmRecipe(family=family, args=args)


_UNREADABLE = "the macro's arguments could not be read (see the CUT0xx diagnostic)"


def args_of(recipe: Recipe) -> MoeGemmArgs:
    assert isinstance(recipe, MoeGemmRecipe), recipe
    return recipe.args


def facts(recipe: Recipe) -> Facts:
    a = args_of(recipe)
    c = a.cluster
    return {
        "moe.tile": str(a.cta_tile),
        "moe.swap_ab": a.swap_ab,
        "moe.fusion": a.fusion.value if a.fusion else "?",
        "moe.cluster.size": c.m * c.n * c.k,
        "moe.cluster.shape": str(c),
        "moe.cluster.dynamic": a.dynamic_cga,
    }


def describe(recipe: Recipe) -> tuple[str, ...]:
    a = args_of(recipe)
    types = f"{a.act_type or '?'} x {a.weight_type or '?'} -> {a.output_type or '?'}"
    return (
        str(a.cta_tile),
        str(a.cluster),
        types,
        a.fusion.value if a.fusion else "?",
        "on" if a.swap_ab else "off",
    )


def inputs(recipe: Recipe) -> tuple[InputField, ...]:
    a = args_of(recipe)
    arg = f"{moe_macro.MACRO} argument"
    names = [t.value if t else "?" for t in (a.act_type, a.weight_type, a.output_type)]
    types = f"{names[0]} x {names[1]} -> {names[2]}" + (", MXFPX" if a.mxfpx else "")
    return (
        InputField("input.tile", "CTA tile", str(a.cta_tile), f"{arg}s CTA_M, CTA_N, CTA_K"),
        InputField("input.cluster", "cluster", str(a.cluster), f"{arg}s CGA_M, CGA_N, CGA_K"),
        InputField(
            "input.types", "A x B -> D", types, f"{arg}s DataType, WeightType, OutputType, MXFPX"
        ),
        InputField(
            "input.fusion", "epilogue fusion", a.fusion.value if a.fusion else "?", f"{arg} FUSION"
        ),
        InputField("input.swap_ab", "SwapAB", "on" if a.swap_ab else "off", f"{arg} SWAP_AB"),
    )


def title(recipe: Recipe) -> str:
    """`e2m1 x e2m1 -> bf16, FINALIZE, 256x128x128, SwapAB off`."""
    a = args_of(recipe)
    names = [t.value if t else "?" for t in (a.act_type, a.weight_type, a.output_type)]
    fusion = a.fusion.value if a.fusion else "?"
    swap = "on" if a.swap_ab else "off"
    return f"{names[0]} x {names[1]} -> {names[2]}, {fusion}, {a.cta_tile}, SwapAB {swap}"
