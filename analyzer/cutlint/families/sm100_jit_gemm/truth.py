"""Compiler truth of the SM100 JIT GEMM (FP4, MXFP8, FP8, BF16, SM103 ultra FP4, SVDQuant NVFP4):
a stratified sample of the files FlashInfer's JIT functions render, compared byte for byte,
member offsets included."""

from __future__ import annotations

from cutlint.cutlass import sm100_mainloop as ml
from cutlint.families.sm100_jit_gemm import model
from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, Truth, kernel_fields, pick


def compare(row: Row) -> Comparison | str:
    variant = model.variant_of(row.get("defines", ()))
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row["label"], variant)
    if isinstance(k, str):
        return k
    t = model.tactic_of(row["name"], tuple(row["args"]), None, variant)
    if not isinstance(t, model.Tactic):
        return str(t)
    leaves = [(p.name.removeprefix("SharedStorage."), p) for p in k.layout.flat()]

    def start(prefix: str) -> int:
        return min(p.offset for name, p in leaves if name.startswith(prefix))

    def end(prefix: str) -> int:
        return max(p.offset + p.size for name, p in leaves if name.startswith(prefix))

    got: dict[str, object] = {
        **kernel_fields(
            k, model.mainloop_shared_storage(t, k.stages), model.epilogue_shared_storage(t)
        ),
        "kernel.pipelines.size": end("pipelines.") - start("pipelines."),
        "kernel.tensors.epilogue.offset": start("tensors.epilogue."),
        "kernel.tensors.mainloop.offset": start("tensors.mainloop."),
    }
    if t.mainloop.kind is ml.UmmaKind.SM103_BLOCKSCALED:
        # the SF stages (LoadSFPipelineStageCount) apart from the AB stages
        sfa = "tensors.mainloop.smem_SFA"
        got["mainloop.tensors.smem_SFA.size"] = end(sfa) - start(sfa)
    want = pick(row, KERNEL_FIELDS) | {
        key: row["members"][key] for key in list(got)[len(KERNEL_FIELDS) :]
    }
    return Comparison(got, want)


TRUTH = Truth(compare)
