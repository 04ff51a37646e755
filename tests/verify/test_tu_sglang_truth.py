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
FAMILY = {"9.0a": "sm90-collective-builder", "10.0a": "sm100-collective-builder"}


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
            stages=k["nvcc"]["stages"],
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
    assert len(kernels) == 11
    for k in kernels:
        assert k["nvcc"] == k["libclang"], k["type_expr"]


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
        assert (m.shared_storage, m.stages) == (k.shared_storage, k.stages), k.type_expr
