"""Text for findings on a runner's tactics (records.TacticFinding, CUT207), one form for
`explain --log` and `pregen`."""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.records import TacticFinding

IDS_SHOWN = 8
KEYS_SHOWN = 2


def keys_text(keys: Sequence[str]) -> str:
    """Blocklist keys, the first few named (svdquant_linear's runners have 14 op names)."""
    shown = ", ".join(keys[:KEYS_SHOWN]) or "-"
    more = len(keys) - KEYS_SHOWN
    return shown + (f" and {more} more (JSON lists all)" if more > 0 else "")


def _ids(ids: Sequence[int]) -> str:
    shown = ", ".join(map(str, ids[:IDS_SHOWN]))
    return shown + (f", ... ({len(ids)} ids)" if len(ids) > IDS_SHOWN else "")


def render_tactic_findings(findings: Sequence[TacticFinding]) -> list[str]:
    """A block per finding: rule, message, where, the ids and keys to block."""
    out: list[str] = []
    for f in findings:
        out += [
            f"{f.path}: {f.severity.value}: [{f.rule} {f.name}] {f.message}",
            f"  why: {f.why}",
            f"  block: {_ids(f.ids)} under {keys_text(f.keys)}",
        ]
    return out
