"""The wheel ships every package: setuptools finds them under analyzer/ (pyproject.toml's
`packages.find`), so a new family is a new folder and no list to edit; the rule files of rules/
ship as cutlint.rules through the link analyzer/cutlint/rules."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def test_the_rule_files_ship_as_cutlint_rules() -> None:
    link = ROOT / "analyzer" / "cutlint" / "rules"
    assert link.is_symlink() and link.resolve() == (ROOT / "rules").resolve()


def test_every_package_folder_is_found() -> None:
    setuptools = pytest.importorskip("setuptools")
    found = set(setuptools.find_packages(str(ROOT / "analyzer"), include=["cutlint*"]))
    src = ROOT / "analyzer"
    folders = {
        ".".join(init.parent.relative_to(src).parts)
        for init in src.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert folders - found == set()
    assert "cutlint.rules" in found
    assert any(p.startswith("cutlint.families.") for p in found)
