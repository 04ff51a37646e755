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
from cutlint.engine.evaluate import holds
from cutlint.engine.facts import Facts
from cutlint.engine.loader import rules_by_id
from cutlint.model.arch import arch_for
from cutlint.records import InstantiationResult, Verdict

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
    # The kernel's dynamic limit after initialize(): raised to its size, or left at the default.
    dynamic = gpu["func_attributes_after_initialize"]["max_dynamic_shared_size_bytes"]
    assert dynamic == (row["shared_storage_size"] if fits else 48 * 1024)
    # CUTLASS's SM90 kernels have no static shared memory (the cubin's 1 KiB is the per-block
    # reservation, RESULTS["device"]["reserved_smem_per_block"]).
    assert gpu["func_attributes_after_initialize"]["static_shared_size_bytes"] == 0
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


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_the_cubins_registers_are_what_the_gpu_reports(row: dict[str, Any]) -> None:
    """cuobjdump's REG for the GEMM kernel is cudaFuncGetAttributes' numRegs; the warp-specialized
    kernels (384 threads, __launch_bounds__ with 1 block per SM) start with the whole register
    file divided evenly, 65,536 / 384 rounded down to the allocation unit of 8: 168."""
    reg = row["cubin"]["REG"]
    assert reg == row["gpu"]["func_attributes_after_initialize"]["num_regs"]
    assert reg * row["max_threads_per_block"] <= 65_536
    if row["max_threads_per_block"] == 384:
        assert reg == 168


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_cutlints_rules_on_the_compilers_size_give_the_gpus_verdict(row: dict[str, Any]) -> None:
    """The rule half of cutlint, on every row: its rule files CUT101 (fails initialize()) and
    CUT102 (0 B slack), evaluated by its engine with its sm_90 limit on the kernel's own
    SharedStorageSize, say what the GPU said. (The model half, computing SharedStorageSize from
    the source, is compared in test_cutlints_verdict_is_the_gpus where cutlint models the kernel.)"""
    rules = rules_by_id()
    size, limit = row["shared_storage_size"], arch_for("sm_90").smem_optin
    facts: Facts = {"smem.total": size, "smem.limit": limit}
    facts.update({"smem.slack": limit - size, "smem.over": size - limit})
    # the harness launches each kernel itself: dispatched (CUT101 speaks only of those)
    facts["dispatch.supported"] = True
    fails = holds(rules["CUT101"].when, facts)
    assert fails == (not row["gpu_initializes"])
    assert holds(rules["CUT102"].when, facts) == (row["slack"] == 0)


# ------------------------------------------------------------------ cutlint's verdict
_CHECKED: dict[str, tuple[InstantiationResult | None, str]] = {}


def cutlint_result(row: dict[str, Any]) -> tuple[InstantiationResult | None, str]:
    """cutlint_result_uncached, once per row."""
    if row["name"] not in _CHECKED:
        _CHECKED[row["name"]] = cutlint_result_uncached(row)
    return _CHECKED[row["name"]]


def cutlint_result_uncached(row: dict[str, Any]) -> tuple[InstantiationResult | None, str]:
    """cutlint's result for this kernel on sm_90, or (None, why there is none).

    Each row is checked as cutlint checks a file: FlashInfer rows as the generator's own text of
    the instantiation, in a file named as FlashInfer names it; CollectiveBuilder rows as the
    `using` chain CUTLASS's own generator (cutlass_library) would write for the same kernel.
    When cutlint gains a family for a form, its rows stop skipping and are compared.
    """
    source = row.get("source")
    if not source:
        return None, "the row does not carry a source text of the kernel"
    with tempfile.TemporaryDirectory(prefix="h200-replay-") as tmp:
        path = Path(tmp) / row["generated_file"]
        path.write_text(source)
        result = check([path], CheckOptions(arch="sm_90", flashinfer_version="0.7.4"))
    found = [i for f in result.files for i in f.instantiations]
    if not found:
        return None, "cutlint reads no instantiation from this form yet (no family claims it)"
    if len(found) != 1:
        return None, f"cutlint found {len(found)} instantiations in the row's source"
    (inst,) = found
    if inst.verdict is Verdict.NOT_MODELED:
        reason = inst.not_modeled.reason if inst.not_modeled is not None else "not modeled"
        return None, f"cutlint does not model it yet: {reason}"
    return inst, ""


def cutlint_verdict(row: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether cutlint predicts that this kernel initializes on sm_90, or (None, why not)."""
    inst, why_not = cutlint_result(row)
    if inst is None:
        return None, why_not
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
    inst, _ = cutlint_result(row)
    assert inst is not None and inst.resources is not None
    assert inst.resources.smem_bytes == row["shared_storage_size"]
    assert inst.resources.stage_count.stages == row["stages"]
    assert inst.resources.max_threads_per_block == row["max_threads_per_block"]


ISSUE_10 = (
    "cb_coop_256x224x32_f16_s7_biasf16",
    "cb_coop_256x224x32_f16_s7_biasf32",
    "cb_coop_128x256x64_f16_s4_epi128x64",
)


@pytest.mark.parametrize("name", ISSUE_10)
def test_the_kernels_at_and_just_past_the_limit_are_modeled(name: str) -> None:
    """The comparison that matters most, never a skip: the CollectiveBuilder kernel at exactly
    the opt-in limit (an f16 per-column bias row that fits the epilogue's padding), the same kernel
    512 B above it (an f32 bias row) and the explicit epilogue tile 1,024 B below. cutlint models
    them, with the GPU's verdict and nvcc's SharedStorageSize."""
    (row,) = [r for r in RAN if r["name"] == name]
    inst, why_not = cutlint_result(row)
    assert inst is not None and inst.resources is not None, why_not
    assert inst.resources.smem_bytes == row["shared_storage_size"]
    expected = {0: Verdict.ZERO_SLACK}.get(row["slack"])
    if expected is None:
        expected = Verdict.FITS if row["gpu_initializes"] else Verdict.FAILS_INITIALIZE
    assert inst.verdict is expected


@pytest.mark.parametrize("row", RAN, ids=_id)
def test_cutlints_register_plan_fits_the_cubins_allocation(row: dict[str, Any]) -> None:
    """setmaxnreg can only redistribute what the block was launched with: the plan's registers
    per block are the cubin's REG times the threads."""
    inst, why_not = cutlint_result(row)
    if inst is None or inst.resources is None or inst.resources.registers is None:
        pytest.skip(why_not or "cutlint has no register plan for it")
    plan = inst.resources.registers
    if not plan.reconfigured or plan.block_registers is None:
        pytest.skip("no setmaxnreg split in cutlint's plan")
    assert plan.block_registers == row["cubin"]["REG"] * row["max_threads_per_block"]


FPAINTB = [r for r in RAN if r["name"].startswith("fi_fpaintb_")]


@pytest.mark.parametrize("row", FPAINTB, ids=_id)
def test_the_fpaintb_kernels_are_modeled_and_compared(row: dict[str, Any]) -> None:
    """FlashInfer's fpA_intB kernels (family sm90-mixed-gemm) are not skipped by the comparison
    above: cutlint models each, with the GPU's verdict and the compiler's SharedStorageSize."""
    predicted, why_not = cutlint_verdict(row)
    assert predicted is not None, why_not
    inst, _ = cutlint_result(row)
    assert inst is not None and inst.recipe is not None
    assert inst.recipe.family == "sm90-mixed-gemm"
