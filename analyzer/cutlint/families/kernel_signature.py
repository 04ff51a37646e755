"""What an instantiation's kernel type must say: the features a measured kernel is matched by.

A build's binaries and ptxas's report name kernels by their mangled type; cutlint.binaries reads
back the stage count, the CTA tile, the output element and its major-ness
(cutlint.binaries.kernel_type). This module says the same four of an instantiation, from its
recipe and the model's stage count, each None where the recipe does not decide it (a None is no
constraint). The SwapAB tactics of FlashInfer's and TensorRT-LLM's SM90+ launchers compute D^T =
B^T A^T and write D column-major (moe_gemm_tma_ws_launcher.inl: `LayoutD = SwapAB ? ColumnMajor
: RowMajor`; fp4_gemm_template_sm120.h and the groupwise headers alike), so SwapAB on is a
column-major output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cutlint.families.registry import family_of
from cutlint.producers.trtllm.moe_macro import ELEMENT_TYPES
from cutlint.records import MoeGemmRecipe, Recipe, Resources

_TILE = (("CTA_M_", "TileM"), ("CTA_N_", "TileN"), ("CTA_K_", "TileK"))
_SWAP = ("SWAP_AB_", "SwapAB")
_OUTPUT = ("T", "DTypeOut")


def _by_name(recipe: Recipe) -> Mapping[str, str]:
    """A JIT macro call's arguments by its modeled header's parameter names."""
    args = getattr(recipe, "args", None)
    if not isinstance(args, tuple):
        return {}
    model: Any = getattr(family_of(recipe), "model", None)
    data = model.family_data() if model is not None and hasattr(model, "family_data") else {}
    names = data.get("parameters") or ()
    return dict(zip(names, args, strict=False)) if len(names) == len(args) else {}


def _first(args: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    return next((args[n].strip() for n in names if n in args), None)


def signature(recipe: Recipe, res: Resources) -> dict[str, Any]:
    """{stages, tile, output, output_major}: what the kernel's type must hold."""
    tile: tuple[int, int, int] | None = None
    swap: bool | None = None
    output: str | None = None
    if isinstance(recipe, MoeGemmRecipe):
        a = recipe.args
        # a family whose kernel type names another tile than the CTA's says which (the SM100
        # launcher's MMA tile: M doubled for a 2-SM cluster)
        own = getattr(family_of(recipe), "kernel_tile", None)
        tile = (own(recipe) if own is not None else None) or (
            a.cta_tile.m,
            a.cta_tile.n,
            a.cta_tile.k,
        )
        swap = a.swap_ab
        output = a.output_type.value if a.output_type else None
    else:
        named = _by_name(recipe)
        dims = [_first(named, n) for n in _TILE]
        if all(d is not None and d.isdigit() for d in dims):
            tile = (int(dims[0] or 0), int(dims[1] or 0), int(dims[2] or 0))
        flag = _first(named, _SWAP)
        swap = {"true": True, "false": False}.get(flag or "")
        spelled = _first(named, _OUTPUT)
        element = ELEMENT_TYPES.get(spelled or "")
        output = element.value if element else None
    return {
        "stages": res.stage_count.stages,
        "tile": tile,
        "output": output,
        "output_major": None if swap is None else ("column" if swap else "row"),
    }
