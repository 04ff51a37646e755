"""What a family tells `cutlint verify` about its compiler probe, in the family's own folder: the
header patches that turn a launcher's template header into a probe copy (`HeaderPatch`) and how
the compiler's printed template arguments read back (`template_arguments`).

`cutlint.verify` builds, runs and reads the probes; a family's `probe.py` imports this module,
never `cutlint.verify`, so the families stay below the runner that drives them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class HeaderPatch:
    """How to make the probe copy of one template header.

    The copy keeps the header up to the end of `keep_through`'s match, inserts `insert`, and
    resumes at `resume`'s match (kept), or, when `resume` is None, after the end of the
    `#define` that holds `keep_through` (its last backslash-continued line). `insert` then is
    the tail of that macro: continuation lines, the last without a backslash, and the patched
    macro is defined for the host pass only (`#ifndef __CUDA_ARCH__`; an empty variadic macro
    in the device pass). Every match of `keep_through` is patched (a header may define the
    macro once per #if branch)."""

    header: str
    """Relative to the wheel's `flashinfer/data/include`: `flashinfer/gemm/..._sm120.h`."""
    keep_through: re.Pattern[str] | None
    """None: the header is copied unchanged (a header that includes a patched one by a path
    relative to itself must live beside the copy)."""
    insert: str | Callable[[dict[str, str]], str]
    """C++ to insert; `$name` is replaced by the named group `name` of `keep_through`'s match (a
    group that did not take part: ""); or a function of the match's groups that writes it."""

    def text(self, m: re.Match[str]) -> str:
        groups = {k: v or "" for k, v in m.groupdict().items()}
        if callable(self.insert):
            return self.insert(groups)
        return string.Template(self.insert).substitute(groups)

    resume: re.Pattern[str] | None = None


_WITH = re.compile(r"\[with (.*)\]\s*$")


def template_arguments(pretty_function: str) -> dict[str, str]:
    """`... [with int M = 1; bool K = true; DTypeIn = cutlass::float_e4m3_t]` -> {M: 1, ...}:
    the enclosing function template's arguments, as the compiler prints them."""
    m = _WITH.search(pretty_function)
    if m is None:
        return {}
    out: dict[str, str] = {}
    for part in m.group(1).split("; "):
        name, _, value = part.partition(" = ")
        out[name.split()[-1]] = value.strip()
    return out
