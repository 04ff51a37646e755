"""What cutlint can say of a source form that no kernel family claims: which producer's form it is,
whether its arguments can be read at all (so that a bad call is an input error whatever its arch),
and the reason it is not modeled. Producer knowledge, so it lives here, not in a family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutlint.producers.trtllm import moe_macro
from cutlint.records import FormKind, Instantiation
from cutlint.sources.macro_names import PRODUCER_MACROS, misspelled

__all__ = ["PRODUCER_MACROS", "Unclaimed", "misspelled", "unclaimed"]

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


_UNREADABLE = "the macro's arguments could not be read (see the CUT0xx diagnostic)"
