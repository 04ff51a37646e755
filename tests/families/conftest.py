"""Shared checks of a family's compiler truth rows against its model (tests/data/nvcc_*_truth.json):
the `check_row` fixture; `rows()` is read at collection time by each test module."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

DATA = Path(__file__).parents[1] / "data"


def rows(family: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((DATA / f"nvcc_{family}_truth.json").read_text())[
        "rows"
    ]
    return data


@pytest.fixture
def check_row() -> Any:
    return check


def check(model: ModuleType, row: dict[str, Any]) -> None:
    """stages, the three SharedStorage sizes, alignment, threads and the register split."""
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row.get("label", "default"))
    assert not isinstance(k, str), k
    t = model.tactic_of(row["name"], tuple(row["args"]))
    assert not isinstance(t, str), t
    # a model whose parts depend on the release's CUTLASS takes its recipe (`recipe_for`)
    recipe = (
        (model.recipe_for(row["version"]),)
        if "recipe" in inspect.signature(model.mainloop_shared_storage).parameters
        else ()
    )
    plan = model.register_plan(t, *recipe)
    members = row["members"]
    got = {
        "stages": k.stages,
        "mainloop_smem": model.mainloop_shared_storage(t, k.stages, *recipe).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "kernel_smem": k.smem,
        "kernel_align": k.layout.align,
        "max_threads_per_block": k.max_threads_per_block,
    }
    want = {key: row[key] for key in got}
    if plan.reconfigured:
        got["registers"] = (plan.load_warpgroup_registers, plan.mma_warpgroup_registers)
        want["registers"] = (
            members["kernel.LoadRegisterRequirement"],
            members["kernel.MmaRegisterRequirement"],
        )
    assert got == want
    blocks = {p.name.removeprefix("SharedStorage."): p for p in k.layout.flat()}
    assert blocks["tensors.mainloop.smem_A"].offset == members["kernel.tensors.mainloop.offset"]
