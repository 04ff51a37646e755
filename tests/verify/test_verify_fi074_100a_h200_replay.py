"""The model against the record of one whole-cache verify: FlashInfer 0.7.4's 100a cache (the
fused-MoE SM100 and SM80 launchers, the fpA_intB files and every JIT GEMM module), 2,423
instantiations, compiled by nvcc 13.0.88 through Dask on the H200 host's 16 cores in one run
(tests/data/verify_fi074_100a_h200.json, docs/validation.md "The whole 100a cache on 16 cores").

The cache is generated again here from the release's wheel and checked (no compiler): every
instantiation check finds has a row and every row an instantiation, each row that agreed then
agrees now, field by field, and each instantiation compiled out then is inactive now. A model
change that moves a number fails here, in the default run, without nvcc."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.producers.flashinfer.jit_modules import render_modules
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.records import Verdict
from cutlint.verify.result import Numbers

RECORD = Path(__file__).parents[1] / "data" / "verify_fi074_100a_h200.json"
FIELDS = (
    "stages",
    "smem_bytes",
    "mainloop_smem_bytes",
    "epilogue_smem_bytes",
    "max_threads_per_block",
)


@cache
def record() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text())
    return data


def rows() -> dict[tuple[str, int], dict[str, Any]]:
    r = record()
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for values in r["rows"]:
        row = dict(zip(r["columns"], values, strict=True))
        row["file"] = r["files"][row["file"]]
        out[row["file"], row["line"]] = row
    return out


def test_the_record_says_what_the_run_found() -> None:
    r = record()
    statuses = Counter(row["status"] for row in rows().values())
    assert statuses == Counter(r["summary"]["by_status"])
    assert statuses == {"agree": 2045, "inactive (#if)": 378}  # none disagrees, none failed
    assert r["summary"]["files_compiled"] == 315 and r["run"]["translation_units"] == 238
    families = Counter(row["family"] for row in rows().values() if row["status"] == "agree")
    assert families == {
        "sm100-tma-ws-grouped": 1476,
        "sm100-jit-gemm": 487,
        "sm80-fused-moe": 60,
        "sm100-tgv-gemm": 22,
    }


@pytest.fixture(scope="module")
def checked(
    flashinfer_root: Callable[[str], Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, api.CheckResult]:
    base = tmp_path_factory.mktemp("fi074-100a")
    root = flashinfer_root("0.7.4")
    generate_cache(root, "0.7.4", base, 100)
    render_modules(root, "0.7.4", base, 100)
    release = base / "flashinfer" / "0.7.4" / "100a"
    return base, api.check(release, api.CheckOptions(jobs=2, flashinfer_version="0.7.4"))


def test_the_model_gives_the_compilers_numbers_for_every_recorded_instantiation(
    checked: tuple[Path, api.CheckResult],
) -> None:
    base, result = checked
    recorded = rows()
    seen: set[tuple[str, int]] = set()
    wrong: list[str] = []
    compared = 0
    for f in result.files:
        path = Path(f.path).relative_to(base).as_posix()
        for r in f.instantiations:
            key = (path, r.instantiation.span.line)
            seen.add(key)
            row = recorded.get(key)
            if row is None:
                wrong.append(f"{path}:{key[1]}: not in the record")
            elif row["status"] == "inactive (#if)":
                if r.verdict is not Verdict.INACTIVE:
                    wrong.append(f"{path}:{key[1]}: compiled out in the run, {r.verdict} now")
            elif r.resources is None:
                wrong.append(f"{path}:{key[1]}: agreed in the run, not modeled now")
            else:
                model = Numbers.of_model(r.resources)
                compared += 1
                for field in FIELDS:
                    if row[field] is not None and getattr(model, field) != row[field]:
                        wrong.append(
                            f"{path}:{key[1]}: {field} model {getattr(model, field)}, "
                            f"nvcc {row[field]}"
                        )
    missing = sorted(set(recorded) - seen)
    assert not wrong, "\n".join(wrong[:20])
    assert not missing, f"{len(missing)} recorded instantiations not found: {missing[:5]}"
    assert compared == 2045
