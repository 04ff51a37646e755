"""Every registered family is whole: its folder, data file with a source for every constant,
fixtures, compiler truth rows, doc page, and namespaced metrics (docs/architecture.md)."""

from __future__ import annotations

import importlib
import json
from importlib import resources
from pathlib import Path

import pytest

from cutlint.engine.facts import CORE_METRICS
from cutlint.engine.loader import load_rules
from cutlint.engine.schema import Kind
from cutlint.families.base import family_data
from cutlint.families.groups import GROUPS, Role, groups_of
from cutlint.families.registry import FAMILIES, Family

ROOT = Path(__file__).parents[2]
IDS = [f.name for f in FAMILIES]


def test_names_are_unique_and_kebab_case() -> None:
    assert len(set(IDS)) == len(IDS)
    assert all(n == n.lower() and " " not in n and "_" not in n for n in IDS)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_a_data_file_with_a_source_for_every_constant(family: Family) -> None:
    data = family_data(family.package)
    assert data.title and data.producer and data.recipe_source
    assert set(data.constants) == set(data.sources)
    for name, source in data.sources.items():
        assert source.strip(), f"{family.name}: constant {name} has no source"
    toml = resources.files(family.package).joinpath("data", "family.toml").read_text()
    assert family.name in data.doc and family.name in data.fixtures, toml[:200]


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_fixtures(family: Family) -> None:
    """A modeled family asserts a number of its model in a fixture; a scaffolded one (its data
    file's `todo`) expects its not-modeled note there instead."""
    data = family_data(family.package)
    fixtures = sorted((ROOT / data.fixtures).glob("*.cu"))
    assert fixtures, f"{family.name}: no fixtures in {data.fixtures}"
    texts = [f.read_text() for f in fixtures]
    if data.todo is None:
        assert any("// model:" in t for t in texts), "no `// model:` expectation"
    else:
        assert any("[CUT010 not-modeled]" in t for t in texts), "no not-modeled expectation"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_compiler_truth_rows(family: Family) -> None:
    """A modeled family has compiler truth rows; a scaffolded one has none yet, and once it has
    some, its `todo` is stale (as semgrep's `todoruleid:` fails once the rule fires)."""
    data = family_data(family.package)
    rows = json.loads((ROOT / data.truth).read_text())["rows"]
    if data.todo is None:
        assert len(rows) > 0, f"{family.name}: {data.truth} holds no rows"
    else:
        assert not rows, f"{family.name}: truth rows recorded: take `todo` out of its data file"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_a_doc_page_that_names_it(family: Family) -> None:
    page = ROOT / family_data(family.package).doc
    assert page.is_file(), f"{family.name}: no doc page {page}"
    assert f"`{family.name}`" in page.read_text()


SHARED_LISTS = ("pyproject.toml", "docs/model.md", "docs/rules", "docs/architecture.md")
"""Places a new family once had to be added to by hand (or by regenerating them): none of them
lists families now, so that a family is its folder, its own pages and one registry line."""


def test_no_shared_list_names_the_families() -> None:
    names = {f.name for f in FAMILIES}
    for place in SHARED_LISTS:
        path = ROOT / place
        for page in sorted(path.rglob("*.md")) if path.is_dir() else [path]:
            named = {
                n for n in names if f"`{n}`" in page.read_text() or f'"{n}"' in page.read_text()
            }
            assert len(named) < 3, f"{page.relative_to(ROOT)} lists families: {sorted(named)}"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_metrics_are_namespaced_and_drawn(family: Family) -> None:
    for metric in family.metrics:
        assert "." in metric and metric not in CORE_METRICS, metric
        assert family.metric_inputs.get(metric), f"{metric}: no input node for explanations"


def test_rules_select_groups_and_name_no_family() -> None:
    """A rule selects by group and arch; a `families` list (read during the transition from
    family lists) is not allowed in the shipped rules."""
    for rule in load_rules():
        assert not rule.applies_to.families, f"{rule.id}: applies_to lists families; use groups"
        assert set(rule.applies_to.groups) <= set(GROUPS), rule.id


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_is_in_exactly_one_capacity_group(family: Family) -> None:
    """A family outside every capacity group gets no shared-memory check at all: the bug that
    printed a 442,624 B TGV kernel as `fits` on sm_100."""
    assert family.joins <= set(GROUPS), family.name
    capacity = family.joins & groups_of(Role.CAPACITY)
    assert len(capacity) == 1, f"{family.name}: capacity groups {sorted(capacity)}"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_reporting_tmem_columns_is_in_the_tmem_group(family: Family) -> None:
    reports_tmem = any(m.endswith(".tmem.columns") for m in family.metrics)
    in_tmem = bool(family.joins & groups_of(Role.TMEM))
    assert reports_tmem == in_tmem, family.name


def test_every_group_has_a_rule_and_a_member() -> None:
    selected = {g for r in load_rules() for g in r.applies_to.groups}
    joined = {g for f in FAMILIES for g in f.joins}
    assert set(GROUPS) == selected == joined


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_gets_a_capacity_rule_on_the_arches_it_runs_on(family: Family) -> None:
    """Some resource rule of its capacity group holds on an arch the family models."""
    capacity_rules = [
        r
        for r in load_rules()
        if r.kind is Kind.RESOURCE
        and not family.joins.isdisjoint(r.applies_to.groups)
        and set(r.applies_to.groups) & groups_of(Role.CAPACITY)
    ]
    assert capacity_rules, f"{family.name}: no capacity rule"
    runs_on = getattr(family, "runs_on", None)
    if runs_on:
        assert any(
            r.applies_to.includes(family.name, family.joins, sm)
            for r in capacity_rules
            for sm in runs_on
        ), family.name


def test_each_registry_line_names_its_family() -> None:
    """The registry's (name, folder) lines import nothing until asked: each name is the name its
    folder's family gives itself, so a family is found by name without importing the others."""
    from cutlint.families.registry import REGISTRY, family_named

    for name, folder in REGISTRY:
        assert family_named(name).name == name and family_named(name).package.endswith(folder)


def test_claims_keep_out_only_what_the_family_never_claims() -> None:
    """`registry.CLAIMS` lets a check import only the families that may claim its forms: every
    form of every fixture that a family's entry rules out, the family itself does not claim
    (whatever the arch asked), so skipping it changes no claim."""
    from cutlint.families.registry import CLAIMS, family_named
    from cutlint.model.arch import arch_for
    from cutlint.model.context import ModelContext
    from cutlint.parse import parse_source
    from cutlint.producers import cutlass_version

    forms = [
        inst
        for path in sorted((ROOT / "fixtures").rglob("*.cu"))
        for inst in parse_source(str(path), path.read_bytes()).instantiations
    ]
    assert {i.form for i in forms} == {"macro_call", "explicit_instantiation", "type_alias"}
    contexts = [
        ModelContext(arch=arch_for(sm), cutlass=cutlass_version.resolve("4.2.0", None))
        for sm in (90, 100, 120)
    ]
    for name, ruled in CLAIMS.items():
        family = family_named(name)
        for inst in forms:
            if not ruled.may_claim(inst):
                for ctx in contexts:
                    assert family.claim(inst, ctx) is None, (name, inst.span)


def test_claims_name_what_each_family_claims() -> None:
    """A `Claims.names` is the family's own list of what it claims (said in the registry so that
    a check does not import a family to learn it): a JIT module family's `names()`, a launcher
    family's launcher names."""
    from cutlint.families.jit_module_family import JitModuleFamily
    from cutlint.families.registry import CLAIMS, family_named

    for name, ruled in CLAIMS.items():
        if ruled.names is None:
            continue
        family = family_named(name)
        if isinstance(family, JitModuleFamily):
            own = {n.rsplit("::", 1)[-1] for n in family.names()}
        else:
            model = importlib.import_module(f"{family.package}.model")
            own = set(getattr(model, "LAUNCHER_NAMES", (model.LAUNCHER_NAME,)))
        assert ruled.names == own, name
