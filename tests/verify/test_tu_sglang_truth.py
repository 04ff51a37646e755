"""SGLang 0.5.23's JIT kernels that a family models, replayed without libclang or a compiler.

tests/data/nvcc_tu_sglang_truth.json holds, per kernel, the builders clang resolved (the chain
the families claim), libclang's numbers and nvcc's host pass's (`cutlint tu --verify`, CUTLASS
4.5.0 of FlashInfer 0.7.2.post1): convrot_int8's SM90 kernels (9.0a, sm90-collective-builder),
its SM100 kernels (10.0a, sm100-collective-builder: int8 x int8, KernelScheduleAuto, an EVT
epilogue) and the expert-specialization MXFP8 grouped GEMM (10.0a, sm100-collective-builder's
4.5.0 block-scaled grouped chain). The model must give nvcc's SharedStorage and stages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.engine.tu_model import model
from cutlint.tu_records import CallSite, CompileCommand, TuBuilt, TuKernel, TuRead

TRUTH = Path(__file__).resolve().parents[1] / "data" / "nvcc_tu_sglang_truth.json"
FAMILY = {
    "9.0a": "sm90-collective-builder",
    "10.0a": "sm100-collective-builder",
    "12.0f": "cutlass2-gemm-universal",
}


def _entries() -> list[Any]:
    return [
        pytest.param(f, id=f"{Path(f['file']).stem}-{f['arch']}")
        for f in json.loads(TRUTH.read_text())["files"]
    ]


def _read(entry: dict[str, Any], include: Path) -> TuRead:
    """The recorded kernels as a read of their TU gives them, nvcc's numbers as the measurement,
    an include directory that says CUTLASS 4.5.0."""
    (include / "cutlass").mkdir(parents=True, exist_ok=True)
    (include / "cutlass" / "version.h").write_text(
        "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 5\n#define CUTLASS_PATCH 0\n"
    )
    site = CallSite(path=entry["file"], line=1, call="f<G>()")
    kernels = tuple(
        TuKernel(
            paths=((site,),),
            type_expr=k["type_expr"],
            kernel_type=k["type_expr"],
            shared_storage=k["nvcc"]["shared_storage"],
            stages=k["nvcc"]["stages"] or None,
            tile=k["tile"],
            cluster=k["cluster"],
            dispatch_policy=None,
            elements=k["elements"],
            max_threads=None,
            built=TuBuilt.model_validate(k["built"]),
        )
        for k in entry["kernels"]
    )
    command = CompileCommand(file=entry["file"], args=(f"-I{include}",), arches=(), origin="flags")
    arch = "sm_" + entry["arch"].replace(".", "")
    return TuRead(command=command, arch=arch, kernels=kernels, missing_headers=(), seconds=0.0)


def test_recorded_truth_agrees_everywhere() -> None:
    data = json.loads(TRUTH.read_text())
    kernels = [k for f in data["files"] for k in f["kernels"]]
    assert len(kernels) == 20
    for k in kernels:
        assert k["nvcc"]["shared_storage"] == k["libclang"]["shared_storage"], k["type_expr"]
        # a 2.x kernel has no DispatchPolicy::Stages: neither reader gives one
        assert (k["nvcc"]["stages"] or None) == k["libclang"]["stages"], k["type_expr"]


@pytest.mark.parametrize("entry", _entries())
def test_family_models_equal_the_recorded_nvcc_numbers(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    read = _read(entry, tmp_path / "include")
    models = model(read)
    assert len(models) == len(read.kernels) > 0
    for k, m in zip(read.kernels, models, strict=True):
        assert m is not None and m.family == FAMILY[entry["arch"]], (k.type_expr, m)
        assert m.reason is None, (k.type_expr, m.reason)
        assert m.shared_storage == k.shared_storage, k.type_expr
        assert k.stages is None or m.stages == k.stages, k.type_expr


VISITOR = "cutlass::epilogue::threadblock::EpilogueVisitorPerRowPerCol<...>"


@pytest.mark.parametrize(
    "row",
    json.loads(TRUTH.read_text())["visitor_variations"]["rows"],
    ids=lambda r: "{}x{}x{}-{}".format(*r["threadblock"], r["stages"]),
)
def test_visitor_kernel_terms_equal_nvcc(row: dict[str, Any]) -> None:
    """SGLang's GemmWithEpilogueVisitor for other tiles and stage counts, term by term: the
    mainloop, the epilogue, the `{ epilogue; visitor; }` struct (the empty visitor's byte padded to
    16) and the union; the last row is the epilogue's (34,832 B = 34,816 + 16)."""
    import dataclasses

    from cutlint.families.cutlass2_gemm_universal import model as m2

    tb, warp = (
        "cutlass::gemm::GemmShape<{}, {}, {}>".format(*row[x]) for x in ("threadblock", "warp")
    )
    args = (
        *("int8_t", "cutlass::layout::RowMajor", "cutlass::ComplexTransform::kNone", "16"),
        *("int8_t", "cutlass::layout::ColumnMajor", "cutlass::ComplexTransform::kNone", "16"),
        *("cutlass::bfloat16_t", "cutlass::layout::RowMajor", "int32_t"),
        *("cutlass::arch::OpClassTensorOp", "cutlass::arch::Sm80", tb, warp),
        "cutlass::gemm::GemmShape<16, 8, 32>",
        "cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 8>",
        "cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>",
        str(row["stages"]),
        "cutlass::arch::OpMultiplyAddSaturate",
    )
    k = dataclasses.replace(m2.kernel_of(args), visitor=VISITOR)
    assert m2.scope_reason(k) is None
    ss = m2.kernel_shared_storage(k)
    assert (ss.size, ss.align) == (row["shared_storage"], row["align"])
    assert m2.mma_shared_storage(k).size == row["mma"]
    assert m2.epilogue_shared_storage(k).size == row["epilogue"]
    assert m2.visitor_epilogue_storage(k).size == row["epilogue_and_visitor"]
