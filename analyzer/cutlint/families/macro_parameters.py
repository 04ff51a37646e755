"""A macro call's arguments read by its own `#define`: the parser records the definition's
parameter names (`Instantiation.parameters`); a family maps them onto the parameters its model
reads, by name, so that two producers' macros of one name and different parameter lists
(TensorRT-LLM's `INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, ...)`, FlashInfer's `(T, ...)`)
are each read right, or not claimed.

A family's `data/family.toml` says what it reads:

- `parameters` (or `[macros.<NAME>] parameters`): the modeled header's parameter names, in the
  order its model reads the arguments;
- `[parameter_aliases]`: another header's name for one of them (`RET_TYPE = "T"`);
- `[fixed_parameters]`: a parameter the modeled header does not have, and the values for which
  another header's macro builds the modeled recipe (`ARCH_ = ["Sm100"]`);
- `[defined_as.<NAME>]`: another macro of the same recipe, with `defaults` for the parameters
  its definition does not have (`XSM_ = "_1SM"`) and the `source` of its parameter list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cutlint.families.base import Unreadable

_UNREADABLE = "the call's arguments cannot be read by its macro's definition"


def _expected(data: Mapping[str, Any], name: str) -> tuple[list[str], dict[str, str]]:
    """The parameters the model reads for `name`, in order, and defaults for those a definition
    may lack."""
    also = data.get("defined_as", {}).get(name, {})
    macros = data.get("macros", {})
    # `macros` is a table per macro, or (a family whose macros share one reading) their names
    macro = macros.get(name, {}) if isinstance(macros, dict) else {}
    names: list[str] = list(macro.get("parameters", data.get("parameters", ())))
    defaults = {**data.get("parameter_defaults", {}), **also.get("defaults", {})}
    return names, defaults


def by_parameter_name(
    data: Mapping[str, Any],
    name: str,
    parameters: tuple[str, ...],
    args: tuple[str, ...],
    defined_at: str | None = None,
) -> tuple[str, ...] | Unreadable | None:
    """The call's arguments in the order the family's model reads them; None when the definition
    is not one the family models (a parameter it lacks, or one it does not know); Unreadable
    when it is, and the call does not fit it."""
    expected, defaults = _expected(data, name)
    if not expected:
        return args
    aliases: dict[str, str] = data.get("parameter_aliases", {})
    fixed: dict[str, list[str]] = data.get("fixed_parameters", {})
    defined = [aliases.get(p, p) for p in parameters]
    if any(p not in defined and p not in defaults for p in expected):
        return None
    if any(p not in expected and p not in fixed for p in defined):
        return None
    if len(args) != len(parameters):
        at = f" by its #define at {defined_at}" if defined_at else ""
        message = (
            f"`{name}` takes {len(parameters)} arguments ({', '.join(parameters)}){at}; "
            f"this call passes {len(args)}"
        )
        return Unreadable(problems=(("CUT004", message),), reason=_UNREADABLE)
    given = dict(zip(defined, args, strict=True))
    wrong = [
        f"`{name}` {p} = `{given[p]}`: the modeled recipe is built for {', '.join(fixed[p])}"
        for p in defined
        if p in fixed and given[p] not in fixed[p]
    ]
    if wrong:
        return Unreadable(problems=tuple(("CUT005", w) for w in wrong), reason=_UNREADABLE)
    return tuple(given.get(p, defaults.get(p, "")) for p in expected)


__all__ = ["by_parameter_name"]
