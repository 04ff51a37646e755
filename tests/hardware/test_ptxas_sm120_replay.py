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
NOT_RUN = pytest.mark.skipif(not DATA.is_file(), reason="the SM120 ptxas batch has not run")
RESULT: dict[str, Any] = json.loads(DATA.read_text()) if DATA.is_file() else {"samples": {}}
SAMPLES = sorted(RESULT["samples"])


@NOT_RUN
def test_every_sampled_family_compiled() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "ptxas"))
    from samples import SAMPLES as PLANNED  # type: ignore[import-not-found]

    assert set(RESULT["samples"]) == set(PLANNED)
    assert RESULT["target"] == "sm_120a"


@NOT_RUN
@pytest.mark.parametrize("name", SAMPLES)
def test_registers_within_the_models_cap(name: str) -> None:
    s = RESULT["samples"][name]
    assert s["exit"] == 0, s["error_tail"]
    compared = [k for k in s["kernels"] if k["within_cap"] is not None]
    assert compared, "no CUTLASS kernel compared with the model's cap"
    assert all(k["within_cap"] for k in compared), [
        (k["name"], k["registers"], k["cap"]) for k in compared if not k["within_cap"]
    ]


@NOT_RUN
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


LOCAL = DATA.parent / "ptxas_sm120_mxfp8_half_128_32_128.txt"


def test_a_real_sm120_report_maps_each_kernel_to_its_macro_call() -> None:
    """ptxas's report of mxfp8_gemm_cutlass_sm120_half_128_32_128.cu (FlashInfer 0.7.4, sm_120a,
    the flags verify --device-code derives), compiled here: each kernel's mangled name holds the
    type its macro call pastes together, so it maps to exactly one call; 168 registers = the
    model's cap for 384 threads; no spills."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "ptxas"))
    from collect import judge  # type: ignore[import-not-found]

    macro = "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120"
    insts = [
        {"line": 22, "family": "sm120-mxfp8-gemm", "macro": macro, "cap": 168,
         "args": ["half", "128", "32", "128", "true"]},
        {"line": 23, "family": "sm120-mxfp8-gemm", "macro": macro, "cap": 168,
         "args": ["half", "128", "32", "128", "false"]},
    ]  # fmt: skip
    r = judge(LOCAL.read_text() + "== exit 0 after 631 s\n", insts)
    got = {k["instantiation_line"]: (k["registers"], k["within_cap"]) for k in r["kernels"]}
    assert got == {22: (168, True), 23: (168, True)}
    assert r["spills"] == []
