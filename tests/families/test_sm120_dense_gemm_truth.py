"""Compiler truth for the sm120-dense-gemm family: vLLM 0.34.0's 16 SM120 FP8 kernels
(`scaled_mm_sm120_fp8.cu`, 12.0a, FlashInfer 0.7.4's CUTLASS 4.5.0 headers), each as `cutlint tu`
reads it (its mainloop and epilogue CollectiveBuilders as clang resolved them) with nvcc 13.0's
`sizeof(GemmKernel::SharedStorage)` and stage count (tests/data/nvcc_tu_vllm_truth.json, from
`cutlint tu --verify`). The rows are replayed through the same seam `cutlint tu` uses (the chain
families claim, the registry, the family's model), with no compiler.

    python -m tests.families.test_sm120_dense_gemm_truth   # write the rows again (slow: a TU read)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cutlint.cutlass.versions import cutlass_model
from cutlint.families import registry
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.tu.forms import instantiation
from cutlint.tu_records import CallSite, TuBuilt, TuKernel

DATA = Path(__file__).parents[1] / "data"
TRUTH = DATA / "nvcc_sm120_dense_gemm_truth.json"
TU = "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8.cu"
ROWS = json.loads(TRUTH.read_text())["rows"]


def _kernel(row: dict[str, object]) -> TuKernel:
    site = CallSite(path=TU, line=1, call=str(row["type_expr"]))
    return TuKernel(
        paths=((site,),),
        type_expr=str(row["type_expr"]),
        kernel_type="",
        shared_storage=None,
        stages=None,
        tile=None,
        cluster=None,
        dispatch_policy=None,
        elements=None,
        max_threads=None,
        built=TuBuilt.model_validate(row["built"]),
    )


@pytest.mark.parametrize("row", ROWS, ids=[str(r["type_expr"])[20:90] for r in ROWS])
def test_model_equals_nvcc(row: dict[str, object]) -> None:
    from cutlint.families.sm120_dense_gemm import model

    ctx = ModelContext(arch=arch_for("sm_120a"), cutlass=cutlass_model((4, 5, 0), "truth"))
    inst = instantiation(_kernel(row))
    assert inst is not None
    claimed = registry.claim(inst, ctx)
    assert claimed is not None and claimed[0].name == "sm120-dense-gemm"
    family, recipe = claimed
    assert recipe is not None and not hasattr(recipe, "problems")
    assert family.covers(recipe, ctx) is None, family.covers(recipe, ctx)  # type: ignore[arg-type]
    res = family.resources(recipe, ctx)  # type: ignore[arg-type]
    nvcc = row["nvcc"]
    assert isinstance(nvcc, dict)
    assert (res.layout.size, res.stage_count.stages) == (nvcc["shared_storage"], nvcc["stages"])
    # The model's own epilogue storage is the carveout clang computed for the builder.
    plan = model.plan(recipe, ctx.cutlass)  # type: ignore[arg-type]
    assert not isinstance(plan, str)
    assert model.epilogue_shared_storage(plan).size == plan.carveout


def _write() -> None:  # pragma: no cover - run by hand
    from cutlint.parse.tu import from_flags, read_tu
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist

    vllm = download_sdist("0.34.0")
    include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    read = read_tu(from_flags(vllm / TU, cmake_flags(vllm, include, "12.0a")), use_cache=False)
    nvcc_file = json.loads((DATA / "nvcc_tu_vllm_truth.json").read_text())
    (entry,) = [f for f in nvcc_file["files"] if f["file"] == TU]
    nvcc = {k["type_expr"]: k["nvcc"] for k in entry["kernels"]}
    rows = [
        {
            "type_expr": k.type_expr,
            "built": k.built.model_dump(mode="json") if k.built else None,
            "libclang": {"shared_storage": k.shared_storage, "stages": k.stages},
            "nvcc": nvcc[k.type_expr],
        }
        for k in read.kernels
    ]
    out = {
        "vllm": "0.34.0",
        "file": TU,
        "arch": "12.0a",
        "cutlass": "4.5.0 (FlashInfer 0.7.4's flashinfer/data/cutlass)",
        "nvcc": nvcc_file["nvcc"],
        "method": "builders: cutlint tu (libclang's resolved CollectiveBuilder arguments); nvcc: "
        "cutlint tu --verify (tests/data/nvcc_tu_vllm_truth.json)",
        "rows": rows,
    }
    TRUTH.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{TRUTH}: {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    _write()
