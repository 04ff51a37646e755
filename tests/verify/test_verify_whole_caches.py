"""Every instantiation of every cache FlashInfer 0.6.3 and 0.7.4 write for the datacenter and
SM120 arches, through `cutlint verify`: each one cutlint models either agrees with nvcc or is
inactive in its module; none disagrees, none fails to compile, and none is left without a
compiler backend.

`slow`, and long: a cache is 100 to 320 files with active instantiations, 25-55 s of one core each (docs/validation.md,
"Whole caches": 0.7.4's sm_103 cache alone is 2.3 hours of one core, 10 minutes on 16). Split it
across machines with the same sharding `verify` has:

    CUTLINT_VERIFY_SHARD=K/N pytest -m slow tests/verify/test_verify_whole_caches.py

runs the K-th of N parts of every cache on one machine ($CUTLINT_TEST_VERIFY_CACHE keeps the
compiler's answers across sessions). Without nvcc or the wheels the tests are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.producers.flashinfer.jit_modules import render_modules
from cutlint.producers.flashinfer.wheel import generate_cache

RELEASES = ("0.6.3", "0.7.4")
ARCHES = (90, 100, 103, 110, 120)


@pytest.mark.slow
@pytest.mark.parametrize("sm", ARCHES)
@pytest.mark.parametrize("version", RELEASES)
def test_whole_cache_agrees_with_nvcc(
    version: str,
    sm: int,
    nvcc: str,
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    root = flashinfer_root(version)
    written = generate_cache(root, version, tmp_path, sm)
    render_modules(root, version, tmp_path, sm)
    release = next(p for p in written.parents if p.name == "generated").parents[1]
    cache = os.environ.get("CUTLINT_TEST_VERIFY_CACHE") or str(tmp_path / "verify-cache")
    shard = os.environ.get("CUTLINT_VERIFY_SHARD")
    args = ["verify", str(release), "--headers", str(root), "--cache-dir", cache]
    args += ["--format", "json", "--jobs", str(os.cpu_count() or 1)]
    result = CliRunner().invoke(main, [*args, *(("--shard", shard) if shard else ())])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    by_status = json.loads(result.stdout)["summary"]["by_status"]
    assert set(by_status) <= {"agree", "inactive (#if)"}, (by_status, result.stderr[-3000:])
    assert result.exit_code == 0, result.stderr[-3000:]
