"""The log messages' page (docs/log-messages.md), rendered from the grammars (logs/data/*.toml).

    python -m cutlint.logs.doc docs/log-messages.md

tests/logs/test_log_grammar.py fails when the page is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cutlint.logs.grammar import PRODUCERS, cuda_errors, messages

BANNER = (
    "*Generated from `analyzer/cutlint/logs/data/` by `python -m cutlint.logs.doc "
    "docs/log-messages.md`; do not edit.*\n\n"
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def page() -> str:
    """Every message `cutlint explain --log` reads, by producer: its kind, the class the line
    alone gives (docs/failures.md), and the line of the producer's code that prints it."""
    out = [
        "# The log lines cutlint reads\n\n",
        BANNER,
        "Each producer's messages, in the order they are tried (`rank`). `kind` is the event the "
        "line makes (`hint` and `context`: read as no failure); `class` is the failure class the "
        "line alone gives ([failures.md](failures.md)), empty where the line does not decide "
        "it. A line with an error word that none of these reads is shown as logged and counted "
        "as **not recognized**.\n",
    ]
    by_producer: dict[str, list[str]] = {}
    for m in messages():
        row = (
            f"| `{m.id}` | {m.kind} | {m.failure_class or ''} | {_cell(m.means)} | "
            f"{_cell(m.source)} |\n"
        )
        by_producer.setdefault(m.producer, []).append(row)
    names = [*dict.fromkeys(m.producer for m in messages())]
    order = sorted(names, key=lambda n: (n == "CUDA runtime", n))
    for name in order:
        out.append(
            f"\n## {name}\n\n| id | kind | class | means | source |\n|---|---|---|---|---|\n"
        )
        out += by_producer[name]
    out.append(
        "\n## CUDA runtime errors (`cuda.toml`)\n\n"
        "| number | name | text | class | means | source |\n|---|---|---|---|---|---|\n"
    )
    for e in cuda_errors():
        out.append(
            f"| {e.number} | `{e.name}`{f' / `{e.driver}`' if e.driver else ''} | {e.text} | "
            f"{e.failure_class or ''} | {_cell(e.means)} | {e.source} |\n"
        )
    assert len(PRODUCERS) + 1 == len(order)  # every data file has a section
    return "".join(out)


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/log-messages.md")
    target.write_text(page())


if __name__ == "__main__":
    main()
