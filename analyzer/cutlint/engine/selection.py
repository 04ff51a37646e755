"""`--select` / `--ignore`: which rules' findings are shown, as ruff reads its selectors.

A selector is a rule id (`CUT101`), an id prefix (`CUT1` is CUT100-CUT199, `CUT` every rule),
a rule name (`smem-exceeds-optin`) or `ALL`, in any case, and a value may hold several separated
by commas (`--select CUT101,CUT104`). A selector that names no rule is an error that lists the
known ones: ruff, mypy and semgrep reject an unknown code, because a typo that selects nothing
would turn the check off in silence.

Selection decides what is shown, never what is true: every rule is evaluated, the verdict comes
from all of them (cutlint.engine.judge), and only the findings are filtered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cutlint.engine.schema import Rule

ID_PREFIX = re.compile(r"CUT[0-9]{0,3}")


class UnknownSelector(ValueError):
    """A selector that names no rule; the message lists the known ids and names."""


def _rules() -> tuple[Rule, ...]:
    from cutlint.engine.loader import load_rules

    return load_rules()


def _split(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(s.strip() for v in values for s in v.split(",") if s.strip())


def known_selectors(rules: Sequence[Rule]) -> str:
    """The ids and names a selector may use, for an error message."""
    listed = ", ".join(f"{r.id} {r.name}" for r in rules)
    return f"{listed}; or an id prefix (CUT1), or ALL (see `cutlint rules`)"


def rules_selected(selector: str, rules: Sequence[Rule], option: str = "--select") -> set[str]:
    """The ids one selector names. Raises UnknownSelector when it names none."""
    text = selector.strip()
    upper = text.upper()
    if upper == "ALL":
        return {r.id for r in rules}
    by_name = {r.name: r.id for r in rules}
    if text.lower() in by_name:
        return {by_name[text.lower()]}
    if ID_PREFIX.fullmatch(upper):
        found = {r.id for r in rules if r.id.startswith(upper)}
        if found:
            return found
    words = [r.id for r in rules] + [r.name for r in rules]
    import difflib  # only for a selector that is not known: a usage error

    close = difflib.get_close_matches(text.lower(), [w.lower() for w in words], n=1, cutoff=0.75)
    hint = ""
    if close:
        hint = " (did you mean " + next(w for w in words if w.lower() == close[0]) + "?)"
    raise UnknownSelector(
        f"{option} {selector!r}".strip() + f" names no rule{hint}. Known: {known_selectors(rules)}"
    )


def check_selectors(
    values: Iterable[str], option: str = "--select", rules: Sequence[Rule] | None = None
) -> tuple[str, ...]:
    """The selectors of `values` (commas split), each checked; raises UnknownSelector."""
    selectors = _split(values)
    if selectors:
        known = rules if rules is not None else _rules()
        for s in selectors:
            rules_selected(s, known, option)
    return selectors


@dataclass(frozen=True)
class Selection:
    """Which rules' findings are shown: `select` (empty: every rule), less `ignore`.

    Built from the selectors as given; an unknown one raises UnknownSelector here, so neither the
    command line, nor `[tool.cutlint]`, nor the Python API can select nothing by a typo.
    """

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    _shown: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        select, ignore = _split(self.select), _split(self.ignore)
        object.__setattr__(self, "select", select)
        object.__setattr__(self, "ignore", ignore)
        if not select and not ignore:
            return  # every rule: nothing to look up (and no rule file read at import time)
        rules = _rules()
        chosen: set[str] = set()
        for s in select or ("ALL",):
            chosen |= rules_selected(s, rules, "--select")
        for s in ignore:
            chosen -= rules_selected(s, rules, "--ignore")
        object.__setattr__(self, "_shown", frozenset(chosen))

    def wants(self, rule_id: str) -> bool:
        """Whether findings of `rule_id` are shown."""
        return self._shown is None or rule_id in self._shown
