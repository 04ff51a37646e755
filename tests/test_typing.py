"""`mypy --strict` over the whole package (slow: run with `pytest -m slow`).

analyzer/ is the source root (`mypy_path` in pyproject.toml), so mypy resolves `cutlint` as the
interpreter does, without a symlink.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


@pytest.mark.slow
def test_mypy_strict(tmp_path: Path) -> None:
    if (
        shutil.which("mypy") is None
        and subprocess.run(
            [sys.executable, "-m", "mypy", "--version"], capture_output=True
        ).returncode
    ):
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    (tmp_path / "cutlint").symlink_to(ROOT / "analyzer")
    env = dict(os.environ, MYPYPATH=str(ROOT / "analyzer"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "-p",
            "cutlint",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:]
