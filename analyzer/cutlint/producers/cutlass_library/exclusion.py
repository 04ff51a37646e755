"""Names that make cutlass_library's generator skip exactly a given set of its kernels.

The generator takes `--ignore-kernels` (CMake's CUTLASS_LIBRARY_IGNORE_KERNELS, which acts only
when `--kernels`/CUTLASS_LIBRARY_KERNELS is set) and `--exclude-kernels`
(CUTLASS_LIBRARY_EXCLUDE_KERNELS, which always acts): comma-separated patterns, each matched
against a kernel's `procedural_name()` by `Manifest._filter_string_matches` (manifest.py): the
pattern is split at `*` and its pieces must occur in the name in that order. A pattern without
`*` therefore skips every kernel whose name *contains* it, not only the kernel it names.

So a kernel's own name skips it and every kernel whose name contains that name; and when a
kernel that must stay has a name containing it, no pattern can skip the one without the other
(whatever matches the shorter name in order matches the longer). Such a kernel is withheld, with
the kernel that keeps it, rather than written and taking that one down too.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SEPARATOR = ","
"""What separates the patterns (manifest.py: `args.ignore_kernels.split(',')`)."""
WILDCARD = "*"


def matches(pattern: str, name: str) -> bool:
    """Whether `pattern` selects `name`, as `Manifest._filter_string_matches` decides."""
    rest = name
    for piece in pattern.split(WILDCARD):
        at = rest.find(piece)
        if at < 0:
            return False
        rest = rest[at + len(piece) :]
    return True


@dataclass(frozen=True)
class Exclusion:
    patterns: tuple[str, ...]
    """The patterns to give the generator: the kernels' own names, in the generator's order."""
    withheld: tuple[tuple[str, str], ...]
    """(kernel, why) for each kernel to skip that no pattern can skip alone."""

    @property
    def text(self) -> str:
        """The patterns as `--ignore-kernels`/`--exclude-kernels` and CMake take them."""
        return SEPARATOR.join(self.patterns)


def exclusion(skip: Iterable[str], names: Sequence[str]) -> Exclusion:
    """The patterns that skip the kernels of `skip` and none of the other `names` (every kernel
    the generator enumerates for the same build): each kernel's own name, unless a kernel that
    stays has a name containing it."""
    wanted = set(skip)
    unknown = sorted(wanted.difference(names))
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not one of the enumerated kernels")
    kept = _Names([n for n in names if n not in wanted])
    patterns: list[str] = []
    withheld: list[tuple[str, str]] = []
    for name in (n for n in dict.fromkeys(names) if n in wanted):
        if SEPARATOR in name or WILDCARD in name:
            withheld.append((name, f"its name holds {SEPARATOR!r} or {WILDCARD!r}"))
            continue
        # `name` as a pattern selects exactly the kernels whose names contain it.
        keeps = kept.containing(name)
        if keeps is not None:
            withheld.append((name, f"{keeps} contains its name: no pattern skips one alone"))
        else:
            patterns.append(name)
    return Exclusion(patterns=tuple(patterns), withheld=tuple(withheld))


class _Names:
    """Names searched for one that contains a string: one joined text, one `str.find` per query
    (a 100a build enumerates 27,171 kernels; a name holds no newline)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.text = "\n".join(self.names)
        self.starts = list(itertools.accumulate((len(n) + 1 for n in self.names[:-1]), initial=0))

    def containing(self, part: str) -> str | None:
        at = self.text.find(part)
        return None if at < 0 else self.names[bisect.bisect_right(self.starts, at) - 1]


def selected(patterns: Iterable[str], names: Iterable[str]) -> list[str]:
    """The `names` the patterns skip (for checking an exclusion against an enumeration)."""
    ps = [p for p in patterns if p]
    return [n for n in names if any(matches(p, n) for p in ps)]
