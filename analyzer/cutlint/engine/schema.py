"""The rule file schema. A rule is data: what it predicts, when, and how it explains itself.

Conditions are plain data (`{metric = "smem.total", gt = {metric = "smem.limit"}}`), validated here
and interpreted by engine.evaluate; nothing in a rule file is ever passed to `eval`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cutlint.families.groups import RuleGroup
from cutlint.records import Severity, Verdict

RULE_ID = re.compile(r"CUT[0-9]{3}")
RULE_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")

Scalar = int | bool | str


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _empty() -> list[Any]:
    """A new empty list: a field's `default_factory` in place of `list`. pydantic asks
    inspect.signature whether a factory takes the validated data, which for `list` means
    tokenizing its text signature, and tokenize's first use compiles its large regular
    expression: 5 ms of a one-file check on the 2-core machine, for the rules' schema alone."""
    return []


class MetricRef(Strict):
    metric: str


Operand = MetricRef | Scalar


class Compare(Strict):
    """`metric <op> operand`, exactly one op set."""

    metric: str
    gt: Operand | None = None
    ge: Operand | None = None
    lt: Operand | None = None
    le: Operand | None = None
    eq: Operand | None = None
    ne: Operand | None = None

    @model_validator(mode="after")
    def _one_op(self) -> Compare:
        ops = [op for op in ("gt", "ge", "lt", "le", "eq", "ne") if getattr(self, op) is not None]
        if len(ops) != 1:
            raise ValueError(
                f"a comparison needs exactly one of gt/ge/lt/le/eq/ne, got {ops or 'none'}"
            )
        return self

    @property
    def op(self) -> str:
        return next(
            op for op in ("gt", "ge", "lt", "le", "eq", "ne") if getattr(self, op) is not None
        )

    @property
    def operand(self) -> Operand:
        value: Operand = getattr(self, self.op)
        return value


class All(Strict):
    all: list[Condition]


class Any_(Strict):
    any: list[Condition]


class Not(Strict):
    not_: Condition = Field(alias="not")


Condition = Annotated[Compare | All | Any_ | Not, Field(union_mode="left_to_right")]


class Kind(StrEnum):
    INPUT = "input"
    """Raised by the parser (CUT0xx); the rule file gives its severity, text and docs."""
    NOT_MODELED = "not-modeled"
    """Raised when the model cannot decide; the reason is the model's."""
    RESOURCE = "resource"
    """Evaluated on the model's Resources with `when`."""
    TARGET = "target"
    """Raised when the binary or the kernel cannot run on the target arch (failure class E); the
    reason is the engine's (the file's compile target) or the family's (the kernel's arch)."""
    CONTEXT = "context"
    """Raised instead of a failure verdict when the context it needs was guessed (cutlint.context);
    or when the GPU never loads the code (not for this GPU)."""
    MEASURED = "measured"
    """Raised by `cutlint tu` on libclang's own layout of a kernel a translation unit
    instantiates (engine/tu_judge.py): measured, not explained by a family model."""
    RUNNER = "runner"
    """Raised for a runner's tactic judged against the module's instantiations (a FlashInfer
    runner's table, runners/runner_tactics); the reason is the table's."""
    DISPATCH = "dispatch"
    """Raised on a source's dispatch by compute capability (engine/dispatch_gaps.py): the target
    GPU's capability is taken by no branch the build compiles (failure class B)."""


class FailsAt(StrEnum):
    PARSE = "parse"
    COMPILE = "compile"
    INITIALIZE = "initialize"
    DISPATCH = "dispatch"
    LOAD = "load"
    """The module's shared library names a symbol that none of its files defines."""
    RUN = "run"
    """Compiles, initializes and launches, then faults (e.g. tensor memory past its allocation)."""
    NEVER = "never"


class AppliesTo(Strict):
    """Where a rule holds: the rule groups and target arches it speaks of (empty: all).

    A rule selects families by the groups they join (cutlint.families.groups), never by name.
    `families` is read only so that a rule file written before groups still loads while it is
    ported; tests/engine/test_rule_groups.py forbids it in the shipped rules."""

    groups: list[RuleGroup] = Field(
        default_factory=_empty, description="rule groups (families.groups) whose members it checks"
    )
    families: list[str] = Field(
        default_factory=_empty, description="deprecated: family names; use groups"
    )
    arches: list[int] = Field(default_factory=_empty, description="target compute capabilities")

    def includes(self, family: str, joins: frozenset[RuleGroup], sm: int) -> bool:
        """Whether the rule speaks of a family named `family` that joins `joins`, on `sm`."""
        scoped = bool(self.groups or self.families)
        member = family in self.families or not joins.isdisjoint(self.groups)
        return (not scoped or member) and (not self.arches or sm in self.arches)


class Doc(Strict):
    what: str
    why: str
    example: str
    fix: str
    references: list[str] = Field(min_length=1)


class Rule(Strict):
    id: str
    name: str
    severity: Severity
    kind: Kind
    fails_at: FailsAt
    failure_class: Literal["A", "B", "C", "D", "E", "F", "G", "-"] = Field(
        description="the failure class, A-G (docs/failures.md)"
    )
    message: str
    why: str | None = Field(default=None, description="template of the one line of arithmetic")
    fix: str | None = Field(default=None, description="template of the concrete fix")
    when: Condition | None = None
    verdict: Verdict | None = Field(
        default=None, description="what a finding of this rule means for the tactic"
    )
    applies_to: AppliesTo = Field(
        default_factory=AppliesTo, description="the rule groups and arches the rule speaks of"
    )
    doc: Doc

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not RULE_ID.fullmatch(v):
            raise ValueError(f"rule id {v!r} is not CUTnnn")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not RULE_NAME.fullmatch(v):
            raise ValueError(f"rule name {v!r} is not kebab-case")
        return v

    @model_validator(mode="after")
    def _when(self) -> Rule:
        if (self.kind is Kind.RESOURCE) != (self.when is not None):
            raise ValueError("`when` is required for resource rules and only for them")
        return self

    @property
    def label(self) -> str:
        return f"{self.id} {self.name}"
