"""`--select` / `--ignore`: which findings are shown (never which verdicts are reached)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Selection:
    """Rule ids or id prefixes (`CUT1` selects CUT100-CUT199)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def wants(self, rule_id: str) -> bool:
        if self.select and not any(rule_id.startswith(s) for s in self.select):
            return False
        return not any(rule_id.startswith(s) for s in self.ignore)
