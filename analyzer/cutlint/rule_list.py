"""`cutlint rules`: the rules as a table that fits the terminal.

The last column, what a rule predicts, is wrapped to the terminal's width (the COLUMNS variable,
else the terminal's, else 100), never cut: the first sentence of the rule's `[doc] what`, whole.
Where the fixed columns leave less than `MIN_WHAT` characters, it goes on lines of its own below
the row.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Sequence

from cutlint.engine.schema import Rule
from cutlint.report.text import table

HEADERS = ("id", "name", "severity", "fails at", "class", "what")
MIN_WHAT = 30
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def first_sentence(text: str) -> str:
    """Up to the end of the first sentence (`e.g.` and `sizeof(...)` do not end one)."""
    text = " ".join(text.split())
    for m in _SENTENCE_END.finditer(text):
        before = text[: m.start()]
        if not re.search(r"\b(?:e\.g|i\.e|vs|etc)\.$", before):
            return before
    return text


def render(rules: Sequence[Rule], width: int | None = None) -> str:
    width = width or shutil.get_terminal_size(fallback=(100, 24)).columns
    fixed = [[r.id, r.name, r.severity.value, r.fails_at.value, r.failure_class] for r in rules]
    whats = [first_sentence(r.doc.what) for r in rules]
    widths = [max(len(h) + 2, *(len(row[i]) for row in fixed)) for i, h in enumerate(HEADERS[:-1])]
    indent = sum(widths) + 2 * len(widths)
    room = width - indent
    if room >= MIN_WHAT:
        head = table([[*row, ""] for row in fixed], HEADERS, ("left",) * len(HEADERS)).splitlines()[
            :2
        ]
        lines = [head[0], head[1][: indent + room].rstrip()]
        for row, what in zip(fixed, whats, strict=True):
            cells = "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
            wrapped = textwrap.wrap(what, room, break_on_hyphens=False) or [""]
            lines.append(f"{cells}  {wrapped[0]}")
            lines.extend(" " * indent + more for more in wrapped[1:])
        return "\n".join(lines) + "\n"
    body = table(fixed, HEADERS[:-1], ("left",) * (len(HEADERS) - 1)).splitlines()
    lines = body[:2]
    for line, what in zip(body[2:], whats, strict=True):
        lines.append(line)
        lines.extend("    " + w for w in textwrap.wrap(what, max(width - 4, 20)))
    return "\n".join(lines) + "\n"
