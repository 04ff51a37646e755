"""The scaffolder writes a complete family: in a copy of the repository, a scaffolded family of
each kind passes the registry test, the truth and fixture harnesses, the import contracts and
the linters, with no other edit: of the files already there, it changes the registry and nothing
else (cutlint.testing.new_family)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cutlint.testing.new_family import main

ROOT = Path(__file__).parents[2]
COPIED = ("analyzer", "tests", "fixtures", "docs", "rules", "pyproject.toml")


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, root / name)
    return root


def _contents(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.mark.parametrize(
    ("name", "kind", "capacity"),
    [
        ("sm120-scaffold-gemm", "macro", "smem-at-initialize"),
        ("sm90-scaffold-launcher", "launcher", "smem-launcher-occupancy"),
    ],
)
def test_a_scaffolded_family_is_complete(copy: Path, name: str, kind: str, capacity: str) -> None:
    before = _contents(copy)
    assert main([name, "--kind", kind, "--capacity", capacity, "--root", str(copy)]) == 0
    after = _contents(copy)
    changed = sorted(p for p in before if after.get(p) != before[p])
    assert changed == ["analyzer/cutlint/families/registry.py"]
    folder = name.replace("-", "_")
    registry = (copy / "analyzer/cutlint/families/registry.py").read_text()
    assert f'("{name}", "{folder}"),' in registry
    env = {**os.environ, "PYTHONPATH": str(copy / "analyzer")}
    tests = [
        "tests/families/test_registry.py",
        "tests/families/test_truth.py::test_every_family_has_its_truth_here_or_is_a_known_gap",
        f"tests/test_fixtures.py::test_fixture[{name}/{name}.cu]",
        "tests/test_architecture.py",
        "tests/test_packaging.py::test_every_package_folder_is_found",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *tests],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert f"[{name}]" not in run.stdout  # nothing failed for it
    written = [str(p) for p in (copy / "analyzer/cutlint/families" / folder).rglob("*.py")]
    for check in (["check"], ["format", "--check"]):
        lint = subprocess.run(
            [sys.executable, "-m", "ruff", *check, *written],
            cwd=copy,
            capture_output=True,
            text=True,
            check=False,
        )
        assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_taken_name_is_refused(copy: Path) -> None:
    with pytest.raises(FileExistsError):
        main(["sm100-tgv-gemm", "--kind", "macro", "--root", str(copy)])
    with pytest.raises(ValueError, match="kebab-case"):
        main(["Foo_Gemm", "--kind", "macro", "--root", str(copy)])
