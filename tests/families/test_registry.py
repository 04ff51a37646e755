"""Every registered family is whole: its folder, data file with a source for every constant,
fixtures, compiler truth rows, doc page, and namespaced metrics (docs/architecture.md)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from cutlint.engine.facts import CORE_METRICS
from cutlint.engine.loader import load_rules
from cutlint.families.base import family_data
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
    folder = ROOT / family_data(family.package).fixtures
    fixtures = sorted(folder.glob("*.cu"))
    assert fixtures, f"{family.name}: no fixtures in {folder}"
    assert any("// model:" in f.read_text() for f in fixtures), "no `// model:` expectation"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_compiler_truth_rows(family: Family) -> None:
    truth = ROOT / family_data(family.package).truth
    rows = json.loads(truth.read_text())["rows"]
    assert len(rows) > 0, f"{family.name}: {truth} holds no rows"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_has_a_doc_page_that_names_it(family: Family) -> None:
    page = ROOT / family_data(family.package).doc
    assert page.is_file(), f"{family.name}: no doc page {page}"
    assert f"`{family.name}`" in page.read_text()
    assert f"families/{family.name}.md" in (ROOT / "docs" / "model.md").read_text()


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_family_metrics_are_namespaced_and_drawn(family: Family) -> None:
    for metric in family.metrics:
        assert "." in metric and metric not in CORE_METRICS, metric
        assert family.metric_inputs.get(metric), f"{metric}: no input node for explanations"


def test_rules_name_only_registered_families() -> None:
    for rule in load_rules():
        assert set(rule.applies_to.families) <= set(IDS), rule.id


def test_each_registry_line_names_its_family() -> None:
    """The registry's (name, folder) lines import nothing until asked: each name is the name its
    folder's family gives itself, so a family is found by name without importing the others."""
    from cutlint.families.registry import REGISTRY, family_named

    for name, folder in REGISTRY:
        assert family_named(name).name == name and family_named(name).package.endswith(folder)
