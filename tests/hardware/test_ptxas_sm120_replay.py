"""Issue 23's SM120 ptxas batch, replayed (tests/hardware/ptxas/: build.py, run.sh, collect.py).

`tests/data/ptxas_sm120.json` records, for one or two files of every SM120 family of FlashInfer
0.7.4's cache compiled for sm_120a, ptxas's own report lines and the model's register cap of each
instantiation. Skipped until the batch has run on a machine with nvcc 13.0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cutlint.binaries import ptxas

DATA = Path(__file__).resolve().parents[1] / "data" / "ptxas_sm120.json"
pytestmark = pytest.mark.skipif(not DATA.is_file(), reason="the SM120 ptxas batch has not run")
RESULT: dict[str, Any] = json.loads(DATA.read_text()) if DATA.is_file() else {"samples": {}}
SAMPLES = sorted(RESULT["samples"])


def test_every_sampled_family_compiled() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "ptxas"))
    from samples import SAMPLES as PLANNED

    assert set(RESULT["samples"]) == set(PLANNED)
    assert RESULT["target"] == "sm_120a"


@pytest.mark.parametrize("name", SAMPLES)
def test_registers_within_the_models_cap(name: str) -> None:
    s = RESULT["samples"][name]
    assert s["exit"] == 0, s["error_tail"]
    compared = [k for k in s["kernels"] if k["within_cap"] is not None]
    assert compared, "no CUTLASS kernel compared with the model's cap"
    assert all(k["within_cap"] for k in compared), [
        (k["name"], k["registers"], k["cap"]) for k in compared if not k["within_cap"]
    ]


@pytest.mark.parametrize("name", SAMPLES)
def test_recorded_report_parses_to_the_recorded_kernels(name: str) -> None:
    """cutlint's ptxas parser, run again on the recorded lines, gives the recorded numbers and
    the spill list."""
    s = RESULT["samples"][name]
    parsed = ptxas.parse(s["ptxas"])
    assert [(k.name, k.registers, k.spill_stores, k.spill_loads) for k in parsed] == [
        (k["name"], k["registers"], k["spill_stores"], k["spill_loads"]) for k in s["kernels"]
    ]
    assert s["spills"] == [k.name for k in parsed if k.spill_stores or k.spill_loads]
