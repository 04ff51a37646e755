"""The wheel ships every package: pyproject.toml lists them all (see the comment there)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    src = ROOT / "analyzer"
    found = {
        ".".join(init.parent.relative_to(src).parts)
        for init in src.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set(), "add these packages to [tool.setuptools] packages"
    assert listed - found - {"cutlint.rules"} == set(), "listed but not found"
