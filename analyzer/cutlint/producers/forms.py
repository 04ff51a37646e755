"""What cutlint can say of a source form that no kernel family claims: which producer's form it is,
whether its arguments can be read at all (so that a bad call is an input error whatever its arch),
and the reason it is not modeled. Producer knowledge, so it lives here, not in a family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutlint.producers.trtllm import moe_macro
from cutlint.records import FormKind, Instantiation

if TYPE_CHECKING:
    from cutlint.producers.flashinfer.releases import FlashInferRelease


@dataclass(frozen=True)
class Unclaimed:
    problems: tuple[tuple[str, str], ...]
    """(rule code, message): the form's arguments that cannot be read."""
    reason: str


def unclaimed(inst: Instantiation, release: FlashInferRelease | None) -> Unclaimed:
    """Why no family models `inst`, for a file `release` wrote (None: unknown)."""
    if inst.form is FormKind.EXPLICIT_INSTANTIATION:
        return Unclaimed(
            (), f"explicit launcher instantiation `{inst.name}`: no kernel family models it yet"
        )
    if inst.form is FormKind.TYPE_ALIAS:
        # The template, not the kernel's name: one reason for every kernel of a kind, so that a
        # build's not-modeled kernels collapse into a line per kind.
        return Unclaimed((), f"a `{inst.name}<...>` kernel: no kernel family models it yet")
    if inst.name == moe_macro.MACRO:
        params = moe_macro.parameters_of(release.macro_parameters if release else None)
        arch = moe_macro.arch_problem(inst.args)
        if arch is not None:
            return Unclaimed((arch,), _UNREADABLE)
        arity = moe_macro.arity_problem(inst.args, params)
        if arity is not None:
            return Unclaimed((("CUT004", arity),), _UNREADABLE)
        rejected = moe_macro.compile_problems(inst.args, params)
        if rejected:
            return Unclaimed(tuple(rejected), _UNREADABLE)
        args, unknown = moe_macro.typed(inst.args, params)
        if args is None or unknown:
            return Unclaimed(tuple(("CUT005", f"`{inst.name}` {u}") for u in unknown), _UNREADABLE)
        return Unclaimed(
            (), f"{args.arch_tag} TMA warp-specialized grouped GEMM: no kernel family models it yet"
        )
    near = misspelled(inst.name) if inst.defined_at is None else None
    if near is not None:
        message = (
            f"`{inst.name}` is no producer's macro and no `#define` of it was found; one "
            f"character away is `{near}`"
        )
        return Unclaimed((("CUT018", message),), _UNREADABLE)
    return Unclaimed((), f"`{inst.name}(...)`: no kernel family claims this macro")


PRODUCER_MACROS = (
    # TensorRT-LLM's fused-MoE launcher macro, as FlashInfer's generator writes it
    # (moe_gemm_tma_ws_launcher.inl); FlashInfer's JIT-rendered GEMM modules
    # (flashinfer/data/csrc/*.jinja, gemm/*_template_sm1xx.h); TensorRT-LLM's FP4 launchers.
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",
    "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER_SM120",
    "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120",
    "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120",
    "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC",
    "INSTANTIATE_TGV_GEMM_HOST_BF16_BF16",
    "INSTANTIATE_TGV_GEMM_HOST_FP16_FP16",
    "INSTANCE_BF16_GEMM_TEMPLATE_SM100",
    "INSTANCE_FP8_GEMM_TEMPLATE_SM100",
)
"""The instantiation macros the producers cutlint reads define: a call one character away from
one of them, with no `#define` of its own in sight, is a misspelling (CUT018)."""


def misspelled(name: str) -> str | None:
    """The producer macro `name` is one edit (a character changed, added or dropped) away from,
    when it is not one itself; as clang's typo correction offers "did you mean"."""
    if name in PRODUCER_MACROS:
        return None
    for known in PRODUCER_MACROS:
        if _one_edit(name, known):
            return known
    return None


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


_UNREADABLE = "the macro's arguments could not be read (see the CUT0xx diagnostic)"
