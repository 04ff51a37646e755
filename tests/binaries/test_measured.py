"""Measured registers and spills in `cutlint check` (cutlint.binaries.measured): ptxas's reports
of tests/data/ptxas_sm120.json (FlashInfer 0.7.4's SM120 kernels compiled for sm_120a on the
H200 host), put in the verify store the way `verify --device-code` leaves them, then checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cutlint.binaries import ptxas
from cutlint.binaries.demangle import demangle
from cutlint.binaries.kernel_type import KernelFeatures, features
from cutlint.binaries.measured import Attribution, Measured, _matches, attribute, measured_use
from cutlint.binaries.store import by_source

DATA = Path(__file__).resolve().parents[1] / "data" / "ptxas_sm120.json"
RECORDED: dict[str, Any] = json.loads(DATA.read_text())

SPILLING_LINES = {
    "moe_m256_g0": {11, 18, 25, 32, 39, 46, 53, 60},
    "fp4_128x128x128": {23, 24},
    "fp4_256x128x128": {23, 24},
    "mxfp4_groupwise_grouped": {136, 160},
    "nvfp4_groupwise_grouped": {236, 260, 286, 310},
}
"""The rows CUT111 names: the instantiations of the 19 kernels ptxas reports spills for."""


def test_demangled_features_of_a_fused_moe_kernel() -> None:
    s = RECORDED["samples"]["moe_m256_g0"]
    names = [k["name"] for k in s["kernels"]]
    got = [features(t) for t in demangle(names).values()]
    assert got[2] == KernelFeatures(2, (256, 128, 128), "bf16", "column")
    assert got[1] == KernelFeatures(3, (256, 128, 128), "f16", "row")


def _kernel(regs: int, spills: int, f: KernelFeatures) -> Measured:
    return Measured("k", regs, 0, spills, spills, "ptxas", "test", f, True)


def test_a_number_is_given_only_where_every_candidate_has_it(sm120_row: Any) -> None:
    """Two candidates the name does not tell apart: their common numbers only."""
    res = sm120_row.resources
    f = KernelFeatures(None, None, None, None)
    agree = measured_use(res, Attribution((_kernel(168, 100, f), _kernel(168, 104, f)), False))
    assert agree is not None and (agree.per_thread, agree.spill_stores) == (168, 100)
    split = measured_use(res, Attribution((_kernel(168, 8, f), _kernel(160, 0, f)), False))
    assert split is None  # registers differ and one does not spill: nothing decided
    own = measured_use(res, Attribution((_kernel(168, 8, f), _kernel(160, 0, f)), True))
    assert own is not None and (own.per_thread, own.spill_stores, own.origin) == (168, 8, "ptxas")


def test_kernels_that_match_no_row_are_left_alone(sm120_row: Any) -> None:
    other = KernelFeatures(5, (64, 64, 64), "f32", "row")
    assert attribute([sm120_row], [_kernel(200, 0, other)]) == {}


@pytest.fixture(scope="module")
def sm120_row() -> Any:
    from cutlint import api

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "sm120-blockscaled-grouped"
    result = api.check(sorted(fixture.glob("*.cu"))[:1], api.CheckOptions(arch="sm_120"))
    return next(r for f in result.files for r in f.instantiations if r.resources is not None)


@pytest.fixture(scope="module")
def cache_0_7_4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen")
    run = subprocess.run(
        [sys.executable, "-m", "cutlint", "generate", "flashinfer", "0.7.4", "--sm", "120",
         "--jit-gemm", "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if run.returncode != 0:
        pytest.skip(f"cannot generate FlashInfer 0.7.4's cache: {run.stderr[-300:]}")
    return out / "flashinfer" / "0.7.4"


def test_check_names_the_spilling_tactics_of_the_recorded_run(
    cache_0_7_4: Path, tmp_path: Path
) -> None:
    """The recorded reports, stored by the bytes of the 0.7.4 120f files they were compiled from
    (the fused-MoE file then sat under 120a/; its bytes are the same), make `cutlint check` name
    every instantiation whose kernels spill, with registers measured by ptxas."""
    files = {}
    for name, s in RECORDED["samples"].items():
        f = cache_0_7_4 / s["file"].replace("120a/", "120f/", 1)
        kernels = [
            {"name": k.name, "registers": k.registers, "stack_frame": k.stack_frame,
             "spill_stores": k.spill_stores, "spill_loads": k.spill_loads}
            for k in ptxas.parse(s["ptxas"])
        ]  # fmt: skip
        entry = by_source(tmp_path, f.read_bytes(), RECORDED["target"])
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_text(json.dumps({"target": RECORDED["target"], "kernels": kernels}))
        files[str(f)] = name
    run = subprocess.run(
        [sys.executable, "-m", "cutlint", "check", "--arch", "sm_120", "--format", "json",
         "--exit-zero", *files],
        capture_output=True, text=True, check=False,
        env={**os.environ, "CUTLINT_CACHE": str(tmp_path)},
    )  # fmt: skip
    rows = json.loads(run.stdout)["instantiations"]
    named: dict[str, set[int]] = {}
    for r in rows:
        if any(f["rule"] == "CUT111" for f in r["findings"]):
            named.setdefault(files[r["path"]], set()).add(r["line"])
    assert named == SPILLING_LINES
    spilling = sum(len(s["spills"]) for s in RECORDED["samples"].values())
    assert spilling == 19
    measured = [r for r in rows if (r["register_use"] or {}).get("origin") == "ptxas"]
    assert len(measured) == len([r for r in rows if r["register_use"]])
    assert all(r["register_use"]["per_thread"] <= r["register_use"]["cap"] for r in measured)


def test_a_jit_modules_binaries_are_found_beside_its_sources(tmp_path: Path) -> None:
    """FlashInfer's JIT: generated/<module>/ builds into cached_ops/<module>/<module>.so, the
    fused-MoE files of generated/cutlass_instantiations/ into cached_ops/fused_moe_<sm>/."""
    from cutlint.binaries.measured import module_binaries

    arch = tmp_path / "0.7.4" / "120f"
    for module in ("gen_gemm_sm120_cutlass_fp4", "fused_moe_120"):
        (arch / "cached_ops" / module).mkdir(parents=True)
        (arch / "cached_ops" / module / f"{module}.so").write_bytes(b"")
    fp4 = arch / "generated" / "gen_gemm_sm120_cutlass_fp4" / "fp4_gemm.cu"
    moe = arch / "generated" / "cutlass_instantiations" / "120" / "gemm_grouped" / "120" / "f.cu"
    assert [p.name for p in module_binaries(str(fp4))] == ["gen_gemm_sm120_cutlass_fp4.so"]
    assert [p.name for p in module_binaries(str(moe))] == ["fused_moe_120.so"]
    assert module_binaries(str(tmp_path / "elsewhere.cu")) == []


def test_a_report_is_found_by_the_bytes_and_the_targets_arch(tmp_path: Path) -> None:
    from cutlint.binaries.measured import from_store

    entry = by_source(tmp_path, b"source", "sm_120a")
    entry.parent.mkdir(parents=True)
    row = {"name": "_Z1kv", "registers": 40, "stack_frame": 0, "spill_stores": 0, "spill_loads": 0}
    entry.write_text(json.dumps({"kernels": [row]}))
    assert [k.registers for k in from_store(tmp_path, b"source", 120)] == [40]
    assert from_store(tmp_path, b"source", 90) == []  # another arch's registers are not these
    assert from_store(tmp_path, b"other bytes", 120) == []


def test_without_cxxfilt_the_small_demangler_reads_the_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cutlint.binaries import demangle as module
    from cutlint.binaries.itanium import demangle as small

    name = RECORDED["samples"]["fp4_256x128x128"]["kernels"][0]["name"]
    monkeypatch.setattr(module, "_DONE", {})
    monkeypatch.setattr(module, "find_cxxfilt", lambda: None)
    assert module.demangle([name]) == {name: small(name)}


TWO_SM_CALL = b"""#include "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm100, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16,
        PtrArrayNoSmemWarpSpecialized, EpilogueOpDefault, NONE,
        64, 128, 64, 2, 1, 1,
        false, true, false, true);
"""
"""A 2-SM call of FlashInfer 0.7.4's sm_100 cache (gemm_grouped_sm100_M64_group17, line 39)."""


def test_a_two_sm_kernel_is_matched_by_its_mma_tile(tmp_path: Path) -> None:
    """The SM100 launcher's kernel type names the MMA tile, M doubled for a 2-SM cluster: nvcc
    13.0 built this call (FlashInfer 0.7.4's JIT flags, sm_100a) as a kernel whose CollectiveMma
    tile is 128x128x64 with 14 stages; the instantiation's CTA tile is 64x128x64."""
    from cutlint.api import check
    from cutlint.engine.options import CheckOptions
    from cutlint.families.kernel_signature import signature

    src = tmp_path / "two_sm.cu"
    src.write_bytes(TWO_SM_CALL)
    (r,) = (
        check([src], CheckOptions(arch="sm_100", flashinfer_version="0.7.4"))
        .files[0]
        .instantiations
    )
    assert r.recipe is not None and r.resources is not None
    sig = signature(r.recipe, r.resources)
    assert (sig["stages"], sig["tile"]) == (14, (128, 128, 64))
    built = KernelFeatures(14, (128, 128, 64), None, None)  # the no-smem epilogue names no D
    assert _matches(sig, built)
    assert not _matches(sig, KernelFeatures(14, (64, 128, 64), None, None))  # the CTA tile
