"""The input problems the parse stage reports: CUT001-CUT003, CUT006-CUT009, CUT011-CUT017, one
code per way an input can fail. (CUT004 and CUT005, arguments a producer's macro cannot take, are reported by the
family reader that types the arguments: cutlint.families, cutlint.producers.)

The parser never raises on bad input; it returns an `InputProblem` naming the file (and the line
where there is one) and goes on with the next file. The engine turns these into diagnostics; the
names here are the rule names it shows beside the codes (`CUT003 truncated-instantiation`).
"""

from __future__ import annotations

from cutlint.records import InputProblem

UNREADABLE_INPUT = "CUT001"
NOT_TEXT = "CUT002"
TRUNCATED_INSTANTIATION = "CUT003"
NO_INSTANTIATIONS = "CUT006"
PARSER_FAILURE = "CUT007"
UNREAD_INSTANTIATION = "CUT008"
ILL_FORMED_SOURCE = "CUT009"
INTEGER_OUT_OF_RANGE = "CUT011"
INTERNAL_ERROR = "CUT012"
UNBALANCED_TEMPLATE_BRACKETS = "CUT013"
NON_INTEGER_TEMPLATE_ARGUMENT = "CUT014"
UNEVALUATED_TEMPLATE_ARGUMENT = "CUT015"
SPLIT_IDENTIFIER = "CUT016"
UNKNOWN_ARCH_TAG = "CUT017"

PROBLEM_NAMES: dict[str, str] = {
    UNREADABLE_INPUT: "unreadable-input",
    NOT_TEXT: "not-text",
    TRUNCATED_INSTANTIATION: "truncated-instantiation",
    NO_INSTANTIATIONS: "no-instantiations",
    PARSER_FAILURE: "parser-failure",
    UNREAD_INSTANTIATION: "unread-instantiation",
    ILL_FORMED_SOURCE: "ill-formed-source",
    INTEGER_OUT_OF_RANGE: "integer-out-of-range",
    INTERNAL_ERROR: "internal-error",
    UNBALANCED_TEMPLATE_BRACKETS: "unbalanced-template-brackets",
    NON_INTEGER_TEMPLATE_ARGUMENT: "non-integer-template-argument",
    UNEVALUATED_TEMPLATE_ARGUMENT: "unevaluated-template-argument",
    SPLIT_IDENTIFIER: "split-identifier",
    UNKNOWN_ARCH_TAG: "unknown-arch-tag",
}
"""CUT0xx code -> rule name, for the engine's `CUT003 truncated-instantiation` headings."""


def problem(
    code: str, path: str, message: str, line: int | None = None, guard: str | None = None
) -> InputProblem:
    if code not in PROBLEM_NAMES:
        raise ValueError(f"not an input-problem code: {code}")
    return InputProblem(code=code, path=path, line=line, message=message, guard=guard)
