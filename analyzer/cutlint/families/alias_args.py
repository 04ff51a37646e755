"""A `using`-chain kernel's template arguments as the families read them: whitespace folded, and
every alias of the chain an argument names (hand-written chains: `using ElementA =
cutlass::half_t;`, `using TB = GemmShape<...>;`) replaced by the type it names. Shared by the
CUTLASS 2.x families (cutlass2-gemm-universal, -conv, -gemm-grouped, -sparse-gemm)."""

from __future__ import annotations

import re

from cutlint.records import Instantiation, TypeAlias

_ALIAS_DEPTH = 8
"""How many rounds of alias substitution an argument gets (`using A = B; using B = half_t;`)."""


def _spelled(alias: TypeAlias) -> str:
    """The type an alias of the chain names, as written (`cutlass::gemm::GemmShape<128, 128, 32>`)."""
    args = f"<{', '.join(alias.args)}>" if alias.args is not None else ""
    member = f"::{alias.member}" if alias.member else ""
    return f"{alias.target}{args}{member}"


def resolved(arg: str, inst: Instantiation) -> str:
    """`arg` with every alias of the kernel's chain it names (hand-written chains: `using
    ElementA = cutlass::half_t;`, `using TB = GemmShape<...>;`) replaced by the type it names."""
    aliases = {a.name: _spelled(a) for a in inst.chain[1:]}
    if not aliases:
        return arg
    names = re.compile(
        r"(?<![\w:])("
        + "|".join(re.escape(n) for n in sorted(aliases, key=len, reverse=True))
        + r")(?!\w)"
    )
    for _ in range(_ALIAS_DEPTH):
        replaced = names.sub(lambda m: aliases[m[1]], arg)
        if replaced == arg:
            break
        arg = replaced
    return arg


def chain_arguments(inst: Instantiation) -> tuple[str, ...]:
    """`inst.args`, each with its whitespace folded and the chain's aliases resolved."""
    return tuple(resolved(" ".join(a.split()), inst) for a in inst.args)
