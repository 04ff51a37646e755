"""The SM90 lookup-table mixed-input kernels (`cute::tuple<int4b_t, cutlass::Array<e4m3|e5m2, 8>>`
A) against the compiler and on CUTLASS's own 90a build of them.

tests/data/nvcc_sm90_collective_builder_lut_truth.json holds nvcc's numbers
(cutlint.verify.alias_probe) for a stratified sample of cutlass_library 4.2.0's 80 `s4 x e4m3` and
`s4 x e5m2` kernels (every kernel schedule, every tile M and N, both clusters, stream-K, both B
types, the ones at the capacity); the model must equal every row. The kernel files are made at test
time by CUTLASS's own generator.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.families.sm90_collective_builder import lookup_table, model
from cutlint.families.sm90_collective_builder.recipe import (
    Sm90CollectiveBuilderRecipe,
    claim,
    tactic_of,
)
from cutlint.parse.extract import parse_source
from cutlint.records import Verdict

ROOT = Path(__file__).parents[2]
TRUTH: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm90_collective_builder_lut_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
SLICE = "cutlass3x_sm90_*gemm_s4_e4m3*,cutlass3x_sm90_*gemm_s4_e5m2*"
"""The 80 lookup-table kernels of a 90a build (generator.py: an s4 A with an e4m3 or e5m2 B is
built ScaleOnly, gemm_operation.py writes its scale as `cutlass::Array<scale, 8>`)."""
BuildFn = Callable[..., Path]


@pytest.fixture(scope="module")
def lut_slice(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("90a", SLICE)


def _recipe(path: Path, kernel: str) -> Sm90CollectiveBuilderRecipe:
    insts = parse_source(str(path), path.read_bytes()).instantiations
    inst = next(i for i in insts if i.chain and i.chain[0].name == kernel)
    r = claim(inst)
    assert isinstance(r, Sm90CollectiveBuilderRecipe), r
    return r


def modeled(r: Sm90CollectiveBuilderRecipe) -> dict[str, int]:
    t = tactic_of(r)
    assert isinstance(t, model.Tactic), t
    stages = model.stage_count(t).stages
    kernel = model.kernel_shared_storage(t, stages)
    return {
        "stages": stages,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "threads": model.max_threads_per_block(t),
    }


def test_truth_is_stratified() -> None:
    names = " ".join(r["kernel"] for r in ROWS)
    for part in (
        *("s4_e4m3_", "s4_e5m2_"),
        *("_64x128x128_", "_64x256x128_", "_128x128x128_", "_128x256x128_"),
        *("_256x128x128_", "_256x256x128_", "_1x2x1_", "_2x1x1_"),
        *("_warpspecialized_epi_tma", "_pingpong_", "_cooperative_", "_stream_k_"),
    ):
        assert part in names, part
    assert not TRUTH["compile_errors"]
    assert sum(r["kernel_smem"] == 232448 for r in ROWS) >= 2


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r["kernel"][29:100] for r in ROWS])
def test_model_equals_compiler(index: int, lut_slice: Path) -> None:
    row = ROWS[index]
    got = modeled(_recipe(lut_slice / row["file"], row["kernel"]))
    assert got == {key: row[key] for key in got}


def test_slice_verdicts(lut_slice: Path) -> None:
    """`check --arch sm_90`: all 80 modeled (they were CUT010 before); the 128x128 and 256x256
    cooperative, stream-K and pingpong ones fill sm_90 to the byte, the rest fit."""
    result = api.check([lut_slice], api.CheckOptions(arch="sm_90", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    assert len(rows) == 80
    assert {r.recipe.family if r.recipe else None for r in rows} == {"sm90-collective-builder"}
    verdicts = Counter(r.verdict for r in rows)
    zero = [r for r in rows if r.verdict is Verdict.ZERO_SLACK]
    for r in zero:
        name = r.instantiation.args[1]
        assert ("_128x128x128_" in name or "_256x256x128_" in name) and "_epi_tma" in name
        assert "cooperative" in name or "pingpong" in name
    assert verdicts == {Verdict.FITS: 80 - len(zero), Verdict.ZERO_SLACK: len(zero)}
    assert len(zero) == 24


@pytest.mark.parametrize(
    ("scale", "weight", "reason"),
    [
        ("cutlass::Array<cutlass::float_e4m3_t, 4>", "cutlass::int4b_t", "64-bit scales"),
        ("cutlass::Array<cutlass::float_e4m3_t, 8>", "cutlass::uint4b_t", "an int4b_t A"),
        ("cutlass::Array<cutlass::half_t, 8>", "cutlass::int4b_t", "Array<8-bit float, 8>"),
    ],
)
def test_other_lookup_tables_are_reasons(scale: str, weight: str, reason: str) -> None:
    """The LUT transform's static_asserts (an int4b_t A, 64-bit scales) read as reasons."""
    bits = {"cutlass::float_e4m3_t": 8, "cutlass::half_t": 16}.get
    got = lookup_table.scale_bits(scale, weight, bits)
    assert isinstance(got, str) and reason in got, got
    assert lookup_table.scale_bits("cutlass::half_t", weight, bits) is None
    assert lookup_table.tuple_parts(f"cute::tuple<{weight}, {scale}>") == [weight, scale]
