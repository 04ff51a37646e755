"""ONE result for every output format, so that the formats cannot drift apart.

It is made by the real pipeline (cutlint.api.check) from the hand-written fixtures and holds
findings of every severity (CUT101 error, CUT104 and CUT005 warnings, CUT102 info, CUT010 and
CUT006 notes), not-modeled and inactive rows, file-level input problems with a line (CUT004) and
without one (CUT006, and CUT001 for a path outside the project root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint import api
from cutlint.records import CheckResult

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
SHARED_INPUTS = (
    "sm120-blockscaled-grouped/CUT101-headline-flashinfer-0.6.3.cu",
    "sm120-blockscaled-grouped/CUT101-headline-flashinfer-0.7.2.cu",
    "model/CUT010-not-modeled.cu",
    "input/CUT004-CUT005-bad-arguments.cu",
    "input/CUT006-no-instantiations.cu",
    "sm120-blockscaled-grouped/CUT202-tile-not-dispatched.cu",
)


@pytest.fixture(scope="session")
def missing_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("outside-root") / "missing.generated.cu"


@pytest.fixture(scope="session")
def shared_result(missing_path: Path) -> CheckResult:
    paths = [FIXTURES / p for p in SHARED_INPUTS] + [missing_path]
    options = api.CheckOptions(arch="sm_120", flashinfer_version="0.7.2.post1", root=REPO)
    return api.check(paths, options)
