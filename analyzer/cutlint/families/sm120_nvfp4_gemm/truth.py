"""Compiler truth of the SM120 NVFP4 dense GEMMs: vLLM 0.34.0's 8 SM120 NVFP4 kernels, each as
`cutlint tu` read it (its mainloop and epilogue CollectiveBuilders as clang resolved them), with
nvcc 13.0's `sizeof(GemmKernel::SharedStorage)`, stage count and epilogue `SharedStorage`. A row
is replayed through the seam `cutlint tu` uses (the chain families claim, the registry, the
family's model), and the model's own epilogue SharedStorage is held to the carveout clang
computed for the builder and to nvcc's."""

from __future__ import annotations

from cutlint.cutlass.versions import cutlass_model
from cutlint.families.truth import Comparison, Row, Truth
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.tu_records import CallSite, TuBuilt, TuKernel

TU = "csrc/quantization/fp4/nvfp4_scaled_mm_sm120_kernels.cu"
"""The translation unit the rows come from (vLLM's sources)."""


def _kernel(row: Row) -> TuKernel:
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


def compare(row: Row) -> Comparison | str:
    from cutlint.families import registry
    from cutlint.families.sm120_nvfp4_gemm import model
    from cutlint.parse.tu.forms import instantiation

    ctx = ModelContext(arch=arch_for("sm_120a"), cutlass=cutlass_model((4, 5, 0), "truth"))
    inst = instantiation(_kernel(row))
    if inst is None:
        return "the TU seam wrote no chain for the row"
    claimed = registry.claim(inst, ctx)
    if claimed is None or claimed[0].name != "sm120-nvfp4-gemm":
        return f"claimed by {claimed[0].name if claimed else 'no family'}"
    family, recipe = claimed
    why = family.covers(recipe, ctx)  # type: ignore[arg-type]
    if why is not None:
        return why
    res = family.resources(recipe, ctx)  # type: ignore[arg-type]
    plan = model.plan(recipe, ctx.cutlass)  # type: ignore[arg-type]
    if isinstance(plan, str):
        return plan
    nvcc = row["nvcc"]
    return Comparison(
        {
            "shared_storage": res.layout.size,
            "stages": res.stage_count.stages,
            "epilogue_smem": model.epilogue_shared_storage(plan).size,
            "carveout": model.epilogue_shared_storage(plan).size,
        },
        {
            "shared_storage": nvcc["shared_storage"],
            "stages": nvcc["stages"],
            "epilogue_smem": nvcc["epilogue_shared_storage"],
            "carveout": plan.carveout,
        },
    )


TRUTH = Truth(compare)
