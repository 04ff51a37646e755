"""Replay of the H200 run (docs/hardware.md): what the GPU said about each kernel of the set.

`tests/data/h200_initialize.json` holds, per kernel, what an H200 answered when
`GemmUniversalAdapter::initialize()` (directly, or inside FlashInfer's launcher) asked for the
kernel's `SharedStorageSize`. CI has no GPU; these tests check the recorded answers against the
rule cutlint applies (a kernel initializes exactly when SharedStorageSize <= the opt-in limit, the
limit included), and against cutlint's own verdict wherever cutlint models the kernel.

The GPU run itself: tests/hardware/h200/build.py bundle, then run.sh on the machine (the command
is in docs/hardware.md).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from cutlint.api import CheckOptions, check
from cutlint.model.arch import arch_for
from cutlint.records import Verdict

DATA = Path(__file__).resolve().parents[1] / "data" / "h200_initialize.json"
RESULTS: dict[str, Any] = json.loads(DATA.read_text())
ROWS: list[dict[str, Any]] = RESULTS["rows"]
RAN = [r for r in ROWS if "gpu" in r]


def _id(row: dict[str, Any]) -> str:
    return str(row["name"])


def test_every_kernel_of_the_set_was_built_and_asked() -> None:
    failed = [r["name"] for r in ROWS if "gpu" not in r]
    assert not failed, f"kernels without a GPU answer: {failed}"


def test_the_device_is_an_h200_with_cutlints_sm90_limit() -> None:
    device = RESULTS["device"]
    assert "H200" in device["name"]
    assert (device["cc_major"], device["cc_minor"]) == (9, 0)
    assert device["smem_optin_per_block"] == arch_for("sm_90").smem_optin == 232_448


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_the_gpu_initializes_exactly_the_kernels_within_the_limit(row: dict[str, Any]) -> None:
    fits = row["shared_storage_size"] <= row["smem_optin"]  # inclusive: 0 B of slack fits
    gpu = row["gpu"]
    assert row["gpu_initializes"] == fits
    if fits:
        assert gpu["initialize_status"] == "Success"
        assert gpu["set_attribute"]["at_shared_storage_size"] == "cudaSuccess"
        assert gpu["occupancy"]["blocks_per_sm"] >= 1
        assert gpu["run_status"] == "Success" and gpu["sync_error"] == "cudaSuccess"
    else:
        assert gpu["initialize_status"] == "Error Internal"
        assert gpu["set_attribute"]["at_shared_storage_size"] == "cudaErrorInvalidValue"
        assert gpu["occupancy"]["blocks_per_sm"] <= 0
        # run() with the Params initialize() had already set: the launch is refused too.
        assert gpu["launch_error"] != "cudaSuccess" or gpu["run_status"] != "Success"


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_the_kernels_that_ran_computed_the_gemm(row: dict[str, Any]) -> None:
    err = row["gpu"].get("relative_error")
    if not row["gpu_initializes"] or err is None:
        pytest.skip("did not run, or its output is not checked (fpA_intB: random packed weights)")
    assert err < 1e-2  # f16/bf16/fp8 operands, f32 accumulation (METHOD.md: 1e-3 to 1e-2)


def test_the_set_brackets_the_limit() -> None:
    slack = {r["name"]: r["slack"] for r in RAN}
    assert any(s == 0 for s in slack.values()), "no kernel exactly at the limit"
    assert any(-1024 <= s < 0 for s in slack.values()), "no kernel just above the limit"
    assert any(0 < s <= 1024 for s in slack.values()), "no kernel just below the limit"


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_the_api_limit_is_inclusive(row: dict[str, Any]) -> None:
    probe = row["gpu"]["set_attribute"]
    assert probe["at_optin"] == "cudaSuccess"
    assert probe["at_optin_plus_1"] == "cudaErrorInvalidValue"


# ------------------------------------------------------------------ cutlint's verdict
def cutlint_verdict(row: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether cutlint predicts that this kernel initializes on sm_90, or (None, why not).

    FlashInfer rows are checked as cutlint checks a cache: the generator's own text of the
    instantiation (`row["source"]`), in a file named as FlashInfer names it. CollectiveBuilder
    kernels written as C++ templates are no input cutlint reads.
    """
    if row["family"] == "collective_builder":
        return None, "cutlint reads generated instantiations, not a hand-written CbGemm<...>"
    source = row.get("source")
    if not source:
        return None, "the row does not carry the generator's text of the instantiation"
    with tempfile.TemporaryDirectory(prefix="h200-replay-") as tmp:
        path = Path(tmp) / row["generated_file"]
        path.write_text(source)
        result = check([path], CheckOptions(arch="sm_90", flashinfer_version="0.7.4"))
    found = [i for f in result.files for i in f.instantiations]
    if len(found) != 1:
        return None, f"cutlint found {len(found)} instantiations in the row's source"
    (inst,) = found
    if inst.verdict is Verdict.NOT_MODELED:
        reason = inst.not_modeled.reason if inst.not_modeled is not None else "not modeled"
        return None, f"cutlint does not model it yet: {reason}"
    if inst.verdict in (Verdict.FITS, Verdict.ZERO_SLACK):
        return True, ""
    if inst.verdict is Verdict.FAILS_INITIALIZE:
        return False, ""
    return None, f"cutlint's verdict is {inst.verdict.value!r}, not about initialize()"


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_cutlints_verdict_is_the_gpus(row: dict[str, Any]) -> None:
    predicted, why_not = cutlint_verdict(row)
    if predicted is None:
        pytest.skip(why_not)
    assert predicted == row["gpu_initializes"]
