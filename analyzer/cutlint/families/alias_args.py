"""A `using`-chain kernel's template arguments as the families read them: whitespace folded, and
every alias of the chain an argument names (hand-written chains: `using ElementA =
cutlass::half_t;`, `using TB = GemmShape<...>;`) replaced by the type it names; a CUTLASS 3.x
kernel's CollectiveBuilder aliases and static `cute::Shape`s. Shared by every family of
`using`-chain kernels (the CUTLASS 2.x ones and the SM90, SM100 and SM120 CollectiveBuilder ones)."""

from __future__ import annotations

import re
from functools import lru_cache

from cutlint.parse import literals
from cutlint.records import Instantiation, Shape3, TypeAlias

_ALIAS_DEPTH = 8
"""How many rounds of alias substitution an argument gets (`using A = B; using B = half_t;`)."""


def _spelled(alias: TypeAlias) -> str:
    """The type an alias of the chain names, as written (`cutlass::gemm::GemmShape<128, 128, 32>`)."""
    args = f"<{', '.join(alias.args)}>" if alias.args is not None else ""
    member = f"::{alias.member}" if alias.member else ""
    return f"{alias.target}{args}{member}"


_WORD = re.compile(r"(?<![\w:])(\w+)(?!\w)")
"""A whole word not qualified by a scope (`::`): the only places an alias of the chain can be
named. Compiled once: a pattern built from each chain's names (the kernel's own aliases differ
from kernel to kernel) cost a compilation per kernel, 6.6 s of a 7,100-kernel 90a build."""


def resolved(arg: str, inst: Instantiation) -> str:
    """`arg` with every alias of the kernel's chain it names (hand-written chains: `using
    ElementA = cutlass::half_t;`, `using TB = GemmShape<...>;`) replaced by the type it names."""
    aliases = {a.name: _spelled(a) for a in inst.chain[1:]}
    if not aliases:
        return arg

    def spelled(m: re.Match[str]) -> str:
        return aliases.get(m[1], m[1])

    for _ in range(_ALIAS_DEPTH):
        replaced = _WORD.sub(spelled, arg)
        if replaced == arg:
            break
        arg = replaced
    return arg


def chain_arguments(inst: Instantiation) -> tuple[str, ...]:
    """`inst.args`, each with its whitespace folded and the chain's aliases resolved."""
    return tuple(resolved(" ".join(a.split()), inst) for a in inst.args)


_STATIC_INT = re.compile(r"^(?:cute::)?(?:_([0-9]+)|Int<([0-9][0-9A-Za-z']*)>)$")
"""`cute::_128` or `cute::Int<N>`, N any integer literal C++ spells 128 with (`0x80`, `0200`,
`1'28`, `128u`): the same type, so the same numbers (issue 25, item 16)."""
_SHAPE = re.compile(r"^cute::Shape<(.*)>$")


def static_extents(arg: str) -> tuple[int, ...] | None:
    """`cute::Shape<cute::_128, cute::Int<64>>` -> (128, 64) (None: not all static)."""
    m = _SHAPE.match(arg.replace(" ", ""))
    if not m:
        return None
    values = []
    for part in m.group(1).split(","):
        v = _STATIC_INT.match(part)
        if not v:
            return None
        number = literals.integer(v.group(1) or v.group(2))
        if number is None or number.value is None or number.value > literals.INT_MAX:
            return None  # not a literal, or one no `int` holds: not read as a number
        values.append(number.value)
    return tuple(values)


@lru_cache(maxsize=1024)
def static_shape(arg: str) -> Shape3 | None:
    """`cute::Shape<cute::_128, cute::_256, cute::Int<64>>` -> 128x256x64 (None: not three static
    extents). Memoized by the text, all it reads: a build's kernels spell a few dozen shapes."""
    values = static_extents(arg)
    if values is None or len(values) != 3:
        return None
    return Shape3(m=values[0], n=values[1], k=values[2])


def split_template(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME<A, B<C, D>, E>` -> (`NAME`, (`A`, `B<C, D>`, `E`)), top-level commas only."""
    text = " ".join(text.split())
    open_at = text.find("<")
    if open_at < 0 or not text.endswith(">"):
        return text, ()
    name, inner = text[:open_at].strip(), text[open_at + 1 : -1]
    args: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(inner):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
    args.append(inner[start:].strip())
    return name, tuple(a for a in args if a)


def builder(inst: Instantiation, arg: str, target: str) -> TypeAlias | None:
    """The alias `arg` names when it is `typename <target><...>::CollectiveOp` (a mainloop or
    epilogue CollectiveBuilder of the kernel's chain), else None."""
    alias = inst.alias(arg)
    if alias is None or alias.target != target or alias.args is None:
        return None
    return alias if alias.member == "CollectiveOp" else None
