"""The sm120-collective-builder model against the compiler, byte for byte: every row of
tests/data/nvcc_sm120_collective_builder_truth.json (nvcc's numbers for a stratified sample of
CUTLASS 4.2.0's generated SM120 kernels, tests/tools/make_nvcc_sm120_cb_truth.py) and of its
CUTLASS 4.5.0 twin (the same chains compiled against 4.5.0's headers), read from the files
CUTLASS's own generator writes at test time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm120_collective_builder import FAMILY, model
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
TRUTH = json.loads((DATA / "nvcc_sm120_collective_builder_truth.json").read_text())
TRUTH_450 = json.loads(
    (DATA / "nvcc_sm120_collective_builder_truth_cutlass_4.5.0.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
CASES = [(TRUTH["cutlass"], r) for r in ROWS] + [
    (TRUTH_450["cutlass"], r) for r in TRUTH_450["rows"]
]
CTX = ModelContext(arch=arch_for("sm_120"), cutlass=cutlass_model((4, 2, 0), "test"))
FIELDS = ("smem", "align", "stages", "mainloop", "epilogue", "threads")


def numbers(recipe: CollectiveBuilderRecipe, version: str) -> dict[str, int] | str:
    cutlass = cutlass_model(parse_version(version), "test")
    p = model.plan(recipe, cutlass)
    if isinstance(p, str):
        return p
    sc = model.stage_count(p, cutlass)
    k = model.kernel_shared_storage(p, sc.stages, cutlass)
    return {
        "smem": k.size,
        "align": k.align,
        "stages": sc.stages,
        "mainloop": model.mainloop_shared_storage(p, sc.stages, cutlass).size,
        "epilogue": model.epilogue_shared_storage(p).size,
        "threads": model.max_threads_per_block(p),
    }


def recipe_of(path: Path) -> CollectiveBuilderRecipe:
    (inst,) = parse_source(str(path), path.read_bytes()).instantiations
    r = FAMILY.claim(inst, CTX)
    assert isinstance(r, CollectiveBuilderRecipe), path
    return r


@pytest.fixture(scope="module")
def generated(cutlass_library_build: Callable[..., Path]) -> Path:
    return cutlass_library_build("120a", "cutlass3x_sm120_*")


def test_truth_is_for_the_modeled_versions_and_every_schedule() -> None:
    assert (TRUTH["cutlass"], TRUTH_450["cutlass"]) == ("4.2.0", "4.5.0")
    assert tuple(model.data()["cutlass"]) == ("4.2.0", "4.5.0")
    assert [r["file"] for r in ROWS] == [r["file"] for r in TRUTH_450["rows"]]
    schedules = {r["kernel"].split("_1x1x1_0_")[-1] for r in ROWS}
    assert any("pingpong" in s for s in schedules) and any("cooperative" in s for s in schedules)
    assert any("stream_k" in s for s in schedules)
    assert any("_grouped_" in r["kernel"] for r in ROWS)


@pytest.mark.parametrize(
    ("version", "row"), CASES, ids=[f"{v}-{r['kernel'][16:]}" for v, r in CASES]
)
def test_model_equals_compiler(version: str, row: dict[str, Any], generated: Path) -> None:
    got = numbers(recipe_of(generated / row["file"]), version)
    assert not isinstance(got, str), got
    assert got == {f: row[f] for f in FIELDS}


@pytest.mark.slow
def test_the_probe_still_agrees(generated: Path, tmp_path: Path) -> None:
    """Recompile two rows (one block-scaled, one grouped blockwise) with the truth tool's probe."""
    include = (
        Path.home() / ".cache/cutlint/wheels/nvidia-cutlass-4.2.0.0/cutlass_library/source/include"
    )
    if not include.is_dir():
        pytest.skip("no CUTLASS 4.2.0 headers")
    picks = [
        next(r for r in ROWS if "bstensorop" in r["kernel"] and "stream_k" in r["kernel"]),
        next(r for r in ROWS if "_grouped_" in r["kernel"] and "pingpong" in r["kernel"]),
    ]
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    import make_nvcc_sm120_cb_truth as tool

    tu, _ = tool.translation_unit([generated / r["file"] for r in picks])
    (tmp_path / "probe.cu").write_text(tu)
    cmd = ["nvcc", "-std=c++17", "-x", "cu", "-arch=sm_120a", "--expt-relaxed-constexpr"]
    subprocess.run([*cmd, f"-I{include}", "probe.cu", "-o", "probe"], cwd=tmp_path, check=True)
    out = subprocess.run(["./probe"], cwd=tmp_path, check=True, capture_output=True, text=True)
    for line, row in zip(out.stdout.splitlines(), picks, strict=True):
        got = json.loads(line)
        assert {f: got[f] for f in FIELDS} == {f: row[f] for f in FIELDS}
