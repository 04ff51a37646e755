"""The sm120-collective-builder model of the sparse builders against the compiler, member by
member: the block-scaled sparse one (CUTLASS example 80: `OpClassBlockScaledSparseTensorOp`,
sm120_blockscaled_sparse_mma_builder.inl) and the plain sparse F8F6F4 one where it keeps the
metadata in shared memory (sm120_sparse_mma_builder.inl; its other branch is held by the 120a
build's rows in test_sm120_collective_builder_truth.py). Every row of
tests/data/nvcc_sm120_cb_sparse_truth.json (CUTLASS 4.2.0) and of its 4.5.0 twin (FlashInfer
0.7.4's headers), made by tests/tools/make_nvcc_sm120_cb_sparse_truth.py. Each row carries the
chain nvcc compiled; the test reads it as cutlint reads a file and models it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm120_collective_builder import FAMILY, model
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
TRUTHS = [
    json.loads((DATA / name).read_text())
    for name in (
        "nvcc_sm120_cb_sparse_truth.json",
        "nvcc_sm120_cb_sparse_truth_cutlass_4.5.0.json",
    )
]
CASES = [(t["cutlass"], r) for t in TRUTHS for r in t["rows"]]
NUMBERS = ("smem", "align", "stages", "stages_b", "stages_e", "mainloop", "epilogue", "threads")
CTX = ModelContext(arch=arch_for("sm_120"), cutlass=cutlass_model((4, 2, 0), "test"))


def recipe_of(chain: str) -> CollectiveBuilderRecipe:
    insts = parse_source("chain.cu", chain.encode()).instantiations
    (inst,) = [i for i in insts if i.name == "cutlass::gemm::kernel::GemmUniversal"]
    r = FAMILY.claim(inst, CTX)
    assert isinstance(r, CollectiveBuilderRecipe)
    return r


def _span(block: Block, prefix: str) -> tuple[int, int]:
    """(offset, size) of the member `prefix` of `block`: the span of its regions."""
    pieces = [p for p in block.flat() if p.name == prefix or p.name.startswith(prefix + ".")]
    assert pieces, prefix
    start = min(p.offset for p in pieces)
    return start, max(p.offset + p.size for p in pieces) - start


def modeled(chain: str, version: str) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """The model's numbers and, for each member the probe prints, its (offset, size) as the
    probe gives it (relative to the struct that declares it)."""
    cutlass = cutlass_model(parse_version(version), "test")
    p = model.plan(recipe_of(chain), cutlass)
    assert not isinstance(p, str), p
    s = model.sparse_stages(p)
    k = model.kernel_shared_storage(p, s.stages_a, cutlass)
    ep = model.epilogue_shared_storage(p)
    numbers = {
        "smem": k.size,
        "align": k.align,
        "stages": model.stage_count(p, cutlass).stages,
        "stages_b": s.stages_b,
        "stages_e": s.stages_e,
        "mainloop": model.mainloop_shared_storage(p, s.stages_a, cutlass).size,
        "epilogue": ep.size,
        "threads": model.max_threads_per_block(p),
    }
    top = "SharedStorage"
    tensors, _ = _span(k, f"{top}.tensors")
    epi_tensors, _ = _span(k, f"{top}.tensors.epilogue")
    mainloop, _ = _span(k, f"{top}.tensors.mainloop")

    def rel(name: str, base: int) -> tuple[int, int]:
        off, size = _span(k, f"{top}.{name}")
        return off - base, size

    members = {
        "pipelines": rel("pipelines", 0),
        "scheduler": rel("scheduler", 0),
        "tensors": rel("tensors", 0),
        "tensors.epilogue": rel("tensors.epilogue", tensors),
        "tensors.mainloop": rel("tensors.mainloop", tensors),
        "epilogue.collective": rel("tensors.epilogue.collective", epi_tensors),
        "epilogue.thread": rel("tensors.epilogue.thread", epi_tensors),
        "epilogue.pipeline": _span(ep, "CollectiveEpilogue::SharedStorage.pipeline"),
    }
    for m in ("mainloop_mk", "mainloop_nk", "epi_load", "load_order"):
        members[f"pipelines.{m}"] = rel(f"pipelines.{m}", 0)
    scale_factors = ("smem_SFA", "smem_SFB") if p.sparse_operands is not None else ()
    for m in ("smem_A", "smem_B", *scale_factors, "smem_E"):
        members[f"mainloop.{m}"] = rel(f"tensors.mainloop.{m}", mainloop)
    return numbers, members


def test_the_rows_cover_the_examples_both_branches_and_every_instruction() -> None:
    assert [t["cutlass"] for t in TRUTHS] == ["4.2.0", "4.5.0"]
    assert [r["kernel"] for r in TRUTHS[0]["rows"]] == [r["kernel"] for r in TRUTHS[1]["rows"]]
    rows = TRUTHS[0]["rows"]
    names = [r["kernel"] for r in rows]
    assert names[0].startswith("example80b_") and names[1].startswith("example80a_")
    blockscaled = [r for r in rows if "OpClassBlockScaledSparseTensorOp" in r["chain"]]
    plain = [r for r in rows if "OpClassSparseTensorOp" in r["chain"]]
    assert len(blockscaled) >= 4  # example 80b and at least 3 more tiles, carveouts or types
    # E in shared memory (StagesA = StagesB = StagesE) and the 1.5-stages-of-B branch (E in L2)
    assert {r["stages_e"] == r["stages"] for r in blockscaled} == {True, False}
    # the plain builder's E-in-shared-memory branch (its other one: the 120a build's rows)
    assert plain and all(r["stages_e"] == r["stages_b"] == r["stages"] for r in plain)
    chains = "".join(r["chain"] for r in blockscaled)
    for schedule in ("Nvf4Sm120", "Mxf4Sm120", "Mxf8f6f4Sm120", "Mxf8f6f4Acc2x4Sm120"):
        assert f"KernelSparseTmaWarpSpecialized{schedule}" in chains
    tiles = {r["chain"].split("cute::Shape<cute::_")[1].split(">")[0] for r in blockscaled}
    assert len(tiles) >= 3


@pytest.mark.parametrize(("version", "row"), CASES, ids=[f"{v}-{r['kernel']}" for v, r in CASES])
def test_model_equals_compiler(version: str, row: dict[str, Any]) -> None:
    numbers, members = modeled(row["chain"], version)
    assert numbers == {f: row[f] for f in NUMBERS}
    assert members == {m: tuple(v) for m, v in row["members"].items()}


def test_example_80b_stage_arithmetic() -> None:
    """(101,376 - 12,288) / (8,192 A + 16,384 B + 2,048 E + 24 + 1,024 SFA + 1,024 SFB) = 3."""
    row = TRUTHS[0]["rows"][0]
    p = model.plan(recipe_of(row["chain"]), CTX.cutlass)
    assert not isinstance(p, str), p
    sc = model.stage_count(p, CTX.cutlass)
    terms = {t.name: t.bytes for t in sc.per_stage}
    assert terms == {"A": 8192, "B": 16384, "E": 2048, "pipeline": 24, "SFA": 1024, "SFB": 1024}
    assert (sc.carveout, sc.stage_bytes, sc.stages) == (12288, 28696, 3)


# What nvcc 13.0 rejects (measured while recording the rows, CUTLASS 4.2.0): the model says the
# file does not compile instead of laying out a kernel that does not exist.
_EXAMPLE_80A = TRUTHS[0]["rows"][1]["chain"]
DOES_NOT_COMPILE = {
    # "Index out of range": the builder's StageCount<N> override returns an int
    "StageCount<2>": (
        _EXAMPLE_80A.replace(
            "cutlass::gemm::collective::StageCountAutoCarveout<"
            "static_cast<int>(sizeof(typename Epi::SharedStorage))>",
            "cutlass::gemm::collective::StageCount<2>",
        ),
        "get<1>(PipelineStages)",
    ),
    # float C and D: a 33,024 B epilogue leaves 1 stage even with 1.5 stages of B, and the
    # collective static_asserts StagesA >= 2
    "float C/D": (
        _EXAMPLE_80A.replace(
            "cutlass::bfloat16_t, cutlass::layout::RowMajor, 8",
            "float, cutlass::layout::RowMajor, 4",
        ),
        "StagesA >= 2",
    ),
}


@pytest.mark.parametrize("case", DOES_NOT_COMPILE, ids=DOES_NOT_COMPILE)
def test_what_nvcc_rejects_is_said_not_to_compile(case: str) -> None:
    chain, why = DOES_NOT_COMPILE[case]
    assert chain != _EXAMPLE_80A
    reason = FAMILY.covers(recipe_of(chain), CTX)
    assert reason is not None and "does not compile" in reason and why in reason, reason


@pytest.mark.slow
def test_the_probe_still_agrees(tmp_path: Path) -> None:
    """Recompile example 80b's row with the truth tool (CUTLASS 4.2.0, one nvcc compile)."""
    include = (
        Path.home() / ".cache/cutlint/wheels/nvidia-cutlass-4.2.0.0/cutlass_library/source/include"
    )
    if not include.is_dir():
        pytest.skip("no CUTLASS 4.2.0 headers")
    row = TRUTHS[0]["rows"][0]
    tool = ROOT / "tests" / "tools" / "make_nvcc_sm120_cb_sparse_truth.py"
    out = tmp_path / "truth.json"
    cmd = [sys.executable, str(tool), "--include", str(include), "--out", str(out), row["kernel"]]
    subprocess.run(cmd, check=True)
    (got,) = json.loads(out.read_text())["rows"]
    assert got == row


def test_example_80b_fixture_explains_every_byte() -> None:
    """`cutlint explain` on example 80b's chain: a DAG whose every node has a value and a
    source, and whose regions hang off the builder's terms (A, B, E, SFA, SFB per stage)."""
    import networkx as nx

    from cutlint import api
    from cutlint.engine.options import CheckOptions

    fixture = (
        ROOT / "fixtures/sm120-collective-builder/blockscaled-sparse-example80b-cutlass-4.2.0.cu"
    )
    line = next(
        i for i, t in enumerate(fixture.read_text().splitlines(), 1) if t.startswith("using Kernel")
    )
    options = CheckOptions(arch="sm_120", cutlass_version="4.2.0")
    result = api.instantiation_at(fixture, line, options)
    assert result is not None and result.resources is not None
    g = api.derivation(result)
    assert nx.is_directed_acyclic_graph(g)
    for node, data in g.nodes(data=True):
        assert data["label"] and data["source"] and data["value"] is not None, node
    for term in ("A", "B", "E", "SFA", "SFB"):
        assert f"builder.term.{term}" in g.nodes


NOT_MODELED = {
    # SFVectorSize of a tuple pair comes from find_vector_size<Schedule>, not modeled
    "tuple pair": (
        (
            "cutlass::nv_float4_t<cutlass::float_e2m1_t>",
            "cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue4m3_t>",
        ),
        "the model covers",
    ),
    "K of 128": (("cute::_128, cute::_256>", "cute::_128, cute::_128>"), "K a multiple of 256"),
    "grouped": (
        (
            "cute::Shape<int, int, int, int>, Main",
            "cutlass::gemm::GroupProblemShape<cute::Shape<int, int, int>>, Main",
        ),
        "grouped",
    ),
}


@pytest.mark.parametrize("case", NOT_MODELED, ids=NOT_MODELED)
def test_what_is_outside_the_model_says_why(case: str) -> None:
    (old, new), why = NOT_MODELED[case]
    example_80b = TRUTHS[0]["rows"][0]["chain"]
    assert old in example_80b
    reason = FAMILY.covers(recipe_of(example_80b.replace(old, new)), CTX)
    assert reason is not None and why in reason, reason
