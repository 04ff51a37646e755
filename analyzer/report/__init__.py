"""Reporters: one module per output format, each `render(result) -> str`."""

from collections.abc import Callable

from cutlint.records import CheckResult
from cutlint.report import github, json, sarif, text

REPORTERS: dict[str, Callable[[CheckResult], str]] = {
    "text": text.render,
    "json": json.render,
    "sarif": sarif.render,
    "github": github.render,
}
