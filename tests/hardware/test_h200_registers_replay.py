"""Registers and occupancy against the H200 run's answers (docs/hardware.md).

`tests/data/h200_initialize.json` records, for 21 SM90 kernels (CollectiveBuilder, FlashInfer's
grouped MoE and fpA_intB), the registers the cubin holds (cuobjdump's REG, ptxas -v, the GPU's
cudaFuncGetAttributes.numRegs) and what cudaOccupancyMaxActiveBlocksPerMultiprocessor answered at
the kernel's SharedStorageSize after initialize(). cutlint's occupancy, given the same inputs,
must equal the GPU's, and its model's registers per thread must equal the cubin's.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from cutlint.api import CheckOptions, check
from cutlint.model.arch import arch_for
from cutlint.model.occupancy import occupancy
from cutlint.records import InstantiationResult

DATA = Path(__file__).resolve().parents[1] / "data" / "h200_initialize.json"
RESULTS: dict[str, Any] = json.loads(DATA.read_text())
ROWS = [r for r in RESULTS["rows"] if "gpu" in r]


def _id(row: dict[str, Any]) -> str:
    return str(row["name"])


def test_cutlints_sm90_limits_are_the_h200s() -> None:
    device, sm90 = RESULTS["device"], arch_for("sm_90")
    assert device["smem_per_sm"] == sm90.smem_per_sm
    assert device["smem_per_block_default"] == sm90.smem_per_block_default
    assert device["reserved_smem_per_block"] == sm90.smem_reserved_per_block


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_occupancy_equals_the_occupancy_api(row: dict[str, Any]) -> None:
    gpu = row["gpu"]
    attrs = gpu["func_attributes_after_initialize"]
    occ = occupancy(
        arch_for("sm_90"),
        row["max_threads_per_block"],
        row["shared_storage_size"],
        attrs["num_regs"],
        static_smem=attrs["static_shared_size_bytes"],
    )
    assert gpu["occupancy"]["error"] == "cudaSuccess"
    assert occ.blocks_per_sm == gpu["occupancy"]["blocks_per_sm"], occ.derivation


def _result(row: dict[str, Any]) -> InstantiationResult:
    with tempfile.TemporaryDirectory(prefix="h200-regs-") as tmp:
        path = Path(tmp) / row["generated_file"]
        path.write_text(row["source"])
        result = check([path], CheckOptions(arch="sm_90", flashinfer_version="0.7.4"))
    (inst,) = [i for f in result.files for i in f.instantiations]
    return inst


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_the_models_registers_equal_the_cubins(row: dict[str, Any]) -> None:
    res = _result(row).resources
    assert res is not None and res.register_use is not None
    use = res.register_use
    regs = row["gpu"]["func_attributes_after_initialize"]["num_regs"]
    assert use.per_thread == regs == row["cubin"]["REG"] == row["ptxas"]["registers"]
    assert use.cap == regs
    # the warp groups' split adds up to what the block holds
    assert res.registers is not None and res.registers.block_registers == use.block == 64_512
    assert res.occupancy is not None
    assert res.occupancy.blocks_per_sm == row["gpu"]["occupancy"]["blocks_per_sm"]
