"""From source forms to judged results: claim (family registry), model (the family), rules (scoped
to the family and arch), verdict. The per-run memo lives here too: a cache of 1,250 copies of one
file models each distinct tactic once, and its instantiations share one Resources record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from cutlint.engine.evaluate import diagnose
from cutlint.engine.facts import core_facts
from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import Kind, Rule
from cutlint.engine.selection import Selection
from cutlint.families.base import CannotRun, Facts, Family, Unreadable
from cutlint.families.registry import claim
from cutlint.identity import ByIdentity
from cutlint.model.context import ModelContext
from cutlint.model.occupancy import with_occupancy
from cutlint.producers.flashinfer.modules import compiled_out
from cutlint.producers.forms import unclaimed
from cutlint.producers.trtllm import moe_macro
from cutlint.records import (
    Diagnostic,
    FileResult,
    InputProblem,
    Instantiation,
    InstantiationResult,
    NotModeled,
    Recipe,
    Resources,
    Verdict,
)


@dataclass(frozen=True)
class Judgement:
    """What the family and the rules say about one tactic, before it has a place in a file."""

    recipe: Recipe | None
    resources: Resources | None
    not_modeled: NotModeled | None
    verdict: Verdict
    findings: tuple[Diagnostic, ...]
    """Diagnostics with a placeholder location; `placed` gives them the instantiation's."""


@dataclass(frozen=True)
class Pending:
    """A judgement the recipe memo holds for its first kernel, not yet checked for sharing."""

    judgement: Judgement
    kernel: str | None
    """The first kernel's name (its recipe's `kernel`), which `_shared` looks for."""


@dataclass
class Memo:
    """A run's judgements of equal instantiations, kept to judge each once."""

    calls: dict[tuple[object, ...], Judgement] = field(default_factory=dict)
    """By (form, name, arguments as written, alias chain, context). The chain is part of it:
    hand-written `using` kernels name their aliases alike in every file (`GemmKernel =
    GemmUniversal<Shape, CollectiveMainloop, CollectiveEpilogue>`), and only the chain says which
    builders those names stand for (tests/engine/test_memo.py)."""
    recipes: dict[tuple[object, ...], Judgement | Pending | None] = field(default_factory=dict)
    """By what decides a claimed instantiation's judgement (`recipe_key`), held without its
    recipe (a hit takes its own kernel's: `_judge`). cutlass_library writes
    one kernel per file, each under its own name (`cutlass3x_sm100_..._nnn_align8_1sm`), so
    `calls` never hits there; but the kernels of a build are far fewer distinct tactics, which
    the family models once each. None: a judgement that quotes the kernel's name (a message),
    which is never shared. Pending: the first kernel's judgement, checked (`_shared`: serialized
    and searched for the kernel's name) only when a second kernel has the key, as most keys of a
    build have one kernel (they differ in alignments and layouts)."""

    resources: dict[bytes, Resources] = field(default_factory=dict)
    """One record per distinct Resources (by its JSON's BLAKE2b digest, 128 bits), which the
    recipe memo's judgements share."""
    contexts: ByIdentity[ModelContext | str] = field(default_factory=lambda: ByIdentity(None))
    """Model contexts by (the build context's identity, the directory, the file's own #defines):
    engine/run.py context_for. Bounded by `bound`."""

    def bound(self, calls: int, recipes: int) -> None:
        """Forget what is over a bound: a worker lives as long as the run, and an unbounded memo
        would hold every kernel of a build (repeats sit near one another in a tree)."""
        if len(self.calls) > calls:
            self.calls.clear()
        if len(self.recipes) > recipes:
            self.recipes.clear()
            self.resources.clear()
        if len(self.contexts) > calls:
            self.contexts.clear()


RECIPE_MEMO = True
"""Whether the recipe memo is used (a test turns it off to hold its outputs to a run without)."""

VERDICT_PRIORITY = (
    Verdict.FAILS_COMPILE,
    Verdict.FAILS_INITIALIZE,
    Verdict.FAILS_RUN,
    Verdict.UNREACHABLE,
    Verdict.ZERO_SLACK,
)
"""The worst outcome first: a tactic that does not compile never reaches initialize()."""


def verdict_of(diags: Sequence[Diagnostic], rules: Mapping[str, Rule]) -> Verdict:
    """The worst outcome the findings imply (each rule file names its `verdict`)."""
    implied = {rules[d.rule].verdict for d in diags}
    return next((v for v in VERDICT_PRIORITY if v in implied), Verdict.FITS)


def facts_for(family: Family, recipe: Recipe, res: Resources) -> Facts:
    return {**core_facts(res), **family.facts(recipe, res)}


def rules_for(family: Family, sm: int) -> tuple[Rule, ...]:
    """The resource rules that speak of `family` (by the groups it joins) on arch `sm`."""
    global _SCOPED
    rules = rules_by_id()
    if _SCOPED is None or _SCOPED[0] is not rules:
        _SCOPED = (rules, {})
    # Complete: the selection reads the rule table (by identity, kept alive here; a new table
    # starts a new memo), the family's name and groups, and the arch.
    key = (family.name, family.joins, sm)
    scoped = _SCOPED[1].get(key)
    if scoped is None:
        scoped = _SCOPED[1][key] = tuple(
            r
            for r in rules.values()
            if r.kind is Kind.RESOURCE and r.applies_to.includes(family.name, family.joins, sm)
        )
    return scoped


_SCOPED: tuple[Mapping[str, Rule], dict[tuple[object, ...], tuple[Rule, ...]]] | None = None


def _diagnostic(code: str, message: str, inst: Instantiation) -> Diagnostic:
    rule = rules_by_id()[code]
    return Diagnostic(
        rule=rule.id,
        name=rule.name,
        severity=rule.severity,
        path=inst.span.path,
        line=inst.span.line,
        message=message,
    )


@cache
def _release_arities() -> frozenset[int]:
    """The parameter counts the fused-MoE macro has had in some FlashInfer release."""
    from cutlint.producers.flashinfer.releases import flashinfer_releases, macro_parameters

    return frozenset(len(macro_parameters(v)) for v in flashinfer_releases())


def _not_modeled(
    inst: Instantiation,
    reason: str,
    problems: Sequence[tuple[str, str]],
    recipe: Recipe | None,
    selection: Selection,
    ctx: ModelContext | None = None,
) -> Judgement:
    if ctx is not None and ctx.flashinfer is None and inst.name == moe_macro.MACRO:
        arity = [m for code, m in problems if code == "CUT004"]
        if arity and len(inst.args) in _release_arities():
            # The macro's parameter list is the release's (14 in FlashInfer 0.5.2, 17 from
            # 0.5.3): with no release known, a call of some release's arity is not decided.
            rule = _context_rule(Verdict.CONTEXT_UNKNOWN)
            why = (
                f"{arity[0]}: the macro of the newest release modeled is assumed, as no release "
                "is known (--flashinfer-version or -p BUILD_DIR settles it)"
            )
            note = _diagnostic(rule.id, f"{rule.message}: {why}", inst)
            shown = (note,) if selection.wants(note.rule) else ()
            return Judgement(recipe, None, NotModeled(reason=why), Verdict.CONTEXT_UNKNOWN, shown)
    rule = next(r for r in rules_by_id().values() if r.kind is Kind.NOT_MODELED)
    diags = [_diagnostic(code, message, inst) for code, message in problems]
    diags.append(_diagnostic(rule.id, f"{rule.message}: {reason}", inst))
    wanted = tuple(d for d in diags if selection.wants(d.rule))
    return Judgement(recipe, None, NotModeled(reason=reason), Verdict.NOT_MODELED, wanted)


def _cannot_run(
    inst: Instantiation, reason: str, recipe: Recipe | None, selection: Selection
) -> Judgement:
    """Failure class E: no code the target can run (CUT204), whatever the model would say."""
    rule = next(r for r in rules_by_id().values() if r.kind is Kind.TARGET)
    diag = _diagnostic(rule.id, f"{rule.message}: {reason}", inst)
    wanted = (diag,) if selection.wants(diag.rule) else ()
    return Judgement(recipe, None, NotModeled(reason=reason), Verdict.FAILS_RUN, wanted)


FAILURES = frozenset(
    {Verdict.FAILS_COMPILE, Verdict.FAILS_INITIALIZE, Verdict.FAILS_RUN, Verdict.UNREACHABLE}
)
"""The verdicts a guessed context cannot give (cutlint.context: they become "context unknown")."""


def _context_rule(verdict: Verdict) -> Rule:
    return next(
        r for r in rules_by_id().values() if r.kind is Kind.CONTEXT and r.verdict is verdict
    )


def _not_for_gpu(
    inst: Instantiation, reason: str, recipe: Recipe | None, selection: Selection
) -> Judgement:
    """The GPU never runs this code (CUT021): not judged for it, never a failure."""
    rule = _context_rule(Verdict.NOT_FOR_GPU)
    diag = _diagnostic(rule.id, f"{rule.message}: {reason}", inst)
    wanted = (diag,) if selection.wants(diag.rule) else ()
    return Judgement(recipe, None, NotModeled(reason=reason), Verdict.NOT_FOR_GPU, wanted)


def _unless_guessed(
    j: Judgement, inst: Instantiation, ctx: ModelContext, sel: Selection
) -> Judgement:
    """A failure that rests on a guessed context is a note (CUT020) that says what was assumed
    and which flag settles it, with the model's numbers kept; never a failure."""
    # A kernel that cannot run on the GPU (class E) does so whatever CUTLASS built it; only a
    # launcher's dispatch (CUT202, CUT203, CUT208: "never dispatched") rests on the release's
    # own tables.
    target_only = j.resources is None and j.verdict is Verdict.FAILS_RUN
    dispatch = j.verdict is Verdict.UNREACHABLE
    guesses = [
        text
        for field, text in ctx.guessed
        if field == "gpu"
        or (field == "cutlass" and not target_only)
        or (field == "release" and dispatch)
    ]
    if j.verdict not in FAILURES or not guesses:
        return j
    rule = _context_rule(Verdict.CONTEXT_UNKNOWN)
    codes = ",".join(sorted({d.rule for d in j.findings})) or "-"
    why = f"{j.verdict.value} [{codes}] only if {'; '.join(guesses)}"
    diag = _diagnostic(rule.id, f"{rule.message}: {why}", inst)
    wanted = (diag,) if sel.wants(diag.rule) else ()
    return Judgement(j.recipe, j.resources, NotModeled(reason=why), Verdict.CONTEXT_UNKNOWN, wanted)


def judge(
    inst: Instantiation,
    ctx: ModelContext,
    selection: Selection,
    memo: Memo | None = None,
) -> Judgement:
    return _unless_guessed(_judge(inst, ctx, selection, memo), inst, ctx, selection)


def recipe_key(family: Family, recipe: Recipe, ctx: ModelContext) -> tuple[object, ...]:
    """What decides a claimed instantiation's judgement: its family, its recipe as JSON with the
    kernel's own name (the `kernel` alias, less `Operation_`/`_base`) replaced by a mark, and
    the context. The name is only what the generator called the kernel: the recipe's other
    fields are the types it is built from, read through the aliases. The JSON is held as its
    BLAKE2b digest (128 bits), not its 1 to 2 KB: the memo holds 16,384 keys in each process."""
    text = recipe.model_dump_json()
    kernel = getattr(recipe, "kernel", None)
    stem = (
        kernel.removeprefix("Operation_").removesuffix("_base") if isinstance(kernel, str) else ""
    )
    if len(stem) >= MIN_STEM:
        text = text.replace(stem, "\x00")
    return (family.name, type(recipe).__name__, _digest(text), ctx.key)


def _digest(text: str) -> bytes:
    """What the memo keys a JSON text by: its BLAKE2b digest, 128 bits."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


MIN_STEM = 8
"""A shorter kernel name (`Gemm`, `Kernel`) is not replaced: it could stand inside a type name."""


def _shared(
    j: Judgement, kernel: str | None, resources: dict[bytes, Resources]
) -> Judgement | None:
    """`j` to keep in the recipe memo, its Resources the one equal record the run already holds
    (`resources`, by its JSON: a build's kernels have far fewer distinct resources than recipes,
    and every result holds its own until the report is written); None when the judgement quotes
    the kernel's own name anywhere (a message), so is not shared."""
    dumped = j.resources.model_dump_json() if j.resources is not None else ""
    if j.resources is not None:
        j = replace(j, resources=resources.setdefault(_digest(dumped), j.resources))
    if kernel is None:
        return j
    stem = kernel.removeprefix("Operation_").removesuffix("_base")
    texts = [dumped, *(d.message for d in j.findings)]
    if j.not_modeled is not None:
        texts.append(j.not_modeled.model_dump_json())
    return None if any(stem in t for t in texts) else j


def _judge(
    inst: Instantiation,
    ctx: ModelContext,
    selection: Selection,
    memo: Memo | None = None,
) -> Judgement:
    # Before claiming: an instantiation whose launcher body the module compiles out holds no
    # kernel, whichever family would model it; a file whose binary the target cannot load runs
    # none of its kernels.
    command = ctx.build.defines.where if ctx.build and ctx.build.defines else None
    out = compiled_out(inst, ctx.flashinfer, ctx.module, ctx.defines, command)
    if out is not None:
        return Judgement(None, None, NotModeled(reason=out), Verdict.INACTIVE, ())
    if ctx.not_for_gpu is not None:
        return _not_for_gpu(inst, ctx.not_for_gpu, None, selection)
    if ctx.cannot_load is not None:
        return _cannot_run(inst, ctx.cannot_load, None, selection)
    claimed = claim(inst, ctx)
    if claimed is None:
        u = unclaimed(inst, ctx.flashinfer)
        return _not_modeled(inst, u.reason, u.problems, None, selection, ctx)
    family, recipe = claimed
    if isinstance(recipe, Unreadable):
        return _not_modeled(inst, recipe.reason, recipe.problems, None, selection, ctx)
    assert recipe is not None
    if memo is None or not RECIPE_MEMO:
        return _modeled(inst, family, recipe, ctx, selection)
    key = recipe_key(family, recipe, ctx)
    shared = memo.recipes.get(key)
    if isinstance(shared, Pending):
        # a second kernel of the key: now the first one's judgement is worth checking
        shared = memo.recipes[key] = _shared(shared.judgement, shared.kernel, memo.resources)
    if shared is not None:
        # the findings keep the first kernel's place until `placed` gives them this one's
        return replace(shared, recipe=recipe)
    judged = _modeled(inst, family, recipe, ctx, selection)
    if key not in memo.recipes:
        kernel = getattr(recipe, "kernel", None)
        memo.recipes[key] = Pending(
            replace(judged, recipe=None), kernel if isinstance(kernel, str) else None
        )
    return judged


def _modeled(
    inst: Instantiation, family: Family, recipe: Recipe, ctx: ModelContext, selection: Selection
) -> Judgement:
    """A claimed instantiation's judgement: what the family covers, models and the rules say."""
    reason = family.covers(recipe, ctx)
    if isinstance(reason, CannotRun) and ctx.arch_assumed:
        why = (
            f"{reason} (the target {ctx.arch.name} is assumed: pass --arch for the part it runs on)"
        )
        return _not_modeled(inst, why, (), recipe, selection)
    if isinstance(reason, CannotRun) and not ctx.binary_for_gpu:
        # The build does not say this file's binary is for the GPU: in a multi-arch build the
        # launcher dispatches another arch's kernel only on that arch.
        why = f"{reason}; the build is not known to load it on {ctx.arch.name}"
        return _not_for_gpu(inst, why, recipe, selection)
    if isinstance(reason, CannotRun):
        return _cannot_run(inst, reason, recipe, selection)
    if reason is not None:
        return _not_modeled(inst, reason, (), recipe, selection)
    res = with_occupancy(family.name, family.resources(recipe, ctx))
    rules = rules_for(family, ctx.arch.sm)
    diags, verdict = _diagnosed(rules, facts_for(family, recipe, res), inst)
    # The verdict comes from every finding; the selection only decides which are shown.
    shown = tuple(d for d in diags if selection.wants(d.rule))
    return Judgement(recipe, res, None, verdict, shown)


_DIAGNOSED: dict[tuple[object, ...], tuple[tuple[Rule, ...], tuple[Diagnostic, ...], Verdict]] = {}
DIAGNOSED_MEMO = 4096
"""Distinct (rules, facts) whose findings are kept: a build's kernels have far fewer distinct
facts than kernels (the facts are numbers and spellings of the tactic, not names)."""


def _diagnosed(
    rules: tuple[Rule, ...], facts: Facts, inst: Instantiation
) -> tuple[tuple[Diagnostic, ...], Verdict]:
    """The findings of `rules` on `facts` (placed at the first instantiation that had them:
    `placed` moves them) and their verdict, computed once per distinct (rules, facts). The key
    is complete: diagnose reads the rules (by identity, kept alive with the answer) and the
    facts (every metric with its value's type and value), the verdict the rules' table."""
    try:
        key: tuple[object, ...] | None = (
            id(rules),
            tuple((m, type(v), v) for m, v in facts.items()),
        )
        hash(key)
    except TypeError:  # a fact with no hash (none today): not kept
        key = None
    kept = _DIAGNOSED.get(key) if key is not None else None
    if kept is not None and kept[0] is rules:
        return kept[1], kept[2]
    diags = tuple(diagnose(rules, facts, inst.span.path, inst.span.line))
    verdict = verdict_of(diags, rules_by_id())
    if key is not None:
        if len(_DIAGNOSED) >= DIAGNOSED_MEMO:
            _DIAGNOSED.clear()
        _DIAGNOSED[key] = (rules, diags, verdict)
    return diags, verdict


def _judged_or_bug(
    inst: Instantiation, ctx: ModelContext, selection: Selection, memo: Memo | None = None
) -> Judgement:
    """`judge`, or, when cutlint fails on this one instantiation, a not-modeled row that says so
    with CUT012: a bug must cost one instantiation's verdict, never its file's other ones."""
    try:
        return judge(inst, ctx, selection, memo)
    except (ArithmeticError, LookupError, ValueError, TypeError, AssertionError) as err:
        why = f"internal error while judging: {type(err).__name__}: {err}"[:500]
        return _not_modeled(inst, why, (("CUT012", why),), None, selection)


def placed(d: Diagnostic, inst: Instantiation) -> Diagnostic:
    if (d.path, d.line) == (inst.span.path, inst.span.line):
        return d
    return d.model_copy(update={"path": inst.span.path, "line": inst.span.line})


def evaluate_instantiation(
    inst: Instantiation, ctx: ModelContext, selection: Selection, memo: Memo | None = None
) -> InstantiationResult:
    """Claim, model and judge one instantiation (inactive ones are reported, not judged)."""
    if inst.guard is not None and not inst.guard.active:
        nm = NotModeled(reason=f"inactive under the define set: #if {inst.guard.text}")
        return InstantiationResult(
            instantiation=inst, resources=None, verdict=Verdict.INACTIVE, not_modeled=nm
        )
    # the #define a call is read by is part of what it is (two headers, one macro name)
    key = (inst.form, inst.name, inst.args, inst.parameters, inst.chain, ctx.key)
    judged = memo.calls.get(key) if memo is not None else None
    if judged is None:
        judged = _judged_or_bug(inst, ctx, selection, memo)
        if memo is not None:
            memo.calls[key] = judged
    return InstantiationResult(
        instantiation=inst,
        recipe=judged.recipe,
        resources=judged.resources,
        verdict=judged.verdict,
        not_modeled=judged.not_modeled,
        diagnostics=tuple(placed(d, inst) for d in judged.findings),
    )


def input_diagnostic(p: InputProblem) -> Diagnostic:
    rule = rules_by_id()[p.code]
    return Diagnostic(
        rule=rule.id,
        name=rule.name,
        severity=rule.severity,
        path=p.path,
        line=p.line,
        message=p.message,
    )


def evaluate_file(
    path: str,
    instantiations: Sequence[Instantiation],
    problems: Sequence[InputProblem],
    ctx: ModelContext | None,
    selection: Selection,
    memo: Memo | None = None,
) -> FileResult:
    """One file's result: its input problems and its judged instantiations (`ctx` may be None
    only when there are none)."""
    results: list[InstantiationResult] = []
    if instantiations:
        assert ctx is not None
        results = [evaluate_instantiation(i, ctx, selection, memo) for i in instantiations]
    diags = [input_diagnostic(p) for p in problems]
    return FileResult(
        path=path,
        instantiations=tuple(results),
        diagnostics=tuple(d for d in diags if selection.wants(d.rule)),
    )
