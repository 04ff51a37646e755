"""Finding the INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM calls in a generated file.

Arguments are split and normalized the way the preprocessor does, so they compare equal to the
``#``-stringized arguments the probe executable prints (probe_output pairs the two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cutlint.verify.probe_records import ProbeError

MACRO_NAME = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"


@dataclass(frozen=True)
class MacroCall:
    line: int
    args: tuple[str, ...]


def normalize_arg(text: str) -> str:
    """Collapse whitespace the way the preprocessor's # operator does."""
    return " ".join(text.split())


def _split_top_level(text: str) -> list[str]:
    """Split macro arguments at commas outside parentheses (the preprocessor ignores <>)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _strip_comments(text: str) -> str:
    """Blank out comments but keep newlines, so offsets still map to line numbers."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.DOTALL)


def find_macro_calls(source: str) -> list[MacroCall]:
    """All INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(...) calls, with the line of the name."""
    text = _strip_comments(source)
    calls: list[MacroCall] = []
    for m in re.finditer(rf"\b{MACRO_NAME}\s*\(", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start : m.start()].lstrip().startswith("#"):
            continue  # a #define, not a call
        depth = 1
        i = m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth:
            raise ProbeError(f"unbalanced parentheses in {MACRO_NAME} call at offset {m.start()}")
        args = tuple(normalize_arg(a) for a in _split_top_level(text[m.end() : i - 1]))
        calls.append(MacroCall(line=text.count("\n", 0, m.start()) + 1, args=args))
    return calls


__all__ = ["MACRO_NAME", "MacroCall", "find_macro_calls", "normalize_arg"]
