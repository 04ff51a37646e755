"""`TacticSpec`: a tactic as a generator knows it before writing any file.

A generator holds its operations as objects (FlashInfer's TrtLlm_GemmLauncher, a dict of
TensorRT-LLM enums, ...), not as source text, so the typed API takes the fields that decide
what the kernel needs and builds the same Instantiation record the parser would have read.
Element types take cutlint's names (`e2m1`, `bf16`) or the spellings the generated files use
(`SafeFP4`, `__nv_bfloat16`, `half`): producers/trtllm/moe_macro.py maps both.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator

from cutlint.model import ModelContext
from cutlint.model.arch import arch_for, arches
from cutlint.parse.literals import INT_MAX
from cutlint.producers.cutlass_version import resolve
from cutlint.producers.flashinfer.releases import known_release
from cutlint.producers.trtllm.moe_macro import MACRO, element_type, parameters_of, spell
from cutlint.records import (
    ElementType,
    FormKind,
    Fusion,
    Instantiation,
    MoeGemmArgs,
    Record,
    Shape3,
    SourceSpan,
)


class TacticSpec(Record):
    """One TMA warp-specialized grouped GEMM tactic, as `INSTANTIATE_..._MOE_GEMM` takes it."""

    arch: str = Field(default="sm_120", description="target arch: sm_120, sm120, 12.0, ...")
    act_type: ElementType
    weight_type: ElementType
    output_type: ElementType
    tile: Shape3 = Field(description="CTA tile in elements; a (m, n, k) tuple is accepted")
    cluster: Shape3 = Field(default_factory=lambda: Shape3(m=1, n=1, k=1))  # not built at import
    fusion: Fusion = Fusion.NONE
    swap_ab: bool = False
    mxfpx: bool | None = Field(
        default=None,
        description="the launcher's IsMXFPX; None means what FlashInfer's generator sets "
        "(true exactly for e4m3 activations with e2m1 weights)",
    )
    cutlass_version: str | None = Field(
        default=None, description="4.5.0, or a CUTLASS include dir; else from flashinfer_version"
    )
    flashinfer_version: str | None = Field(
        default=None, description="the release whose CUTLASS and dispatch table apply"
    )
    name: str | None = Field(
        default=None, description="the caller's name for it; reported as the result's path"
    )

    @field_validator("act_type", "weight_type", "output_type", mode="before")
    @classmethod
    def _element(cls, v: Any) -> Any:
        if isinstance(v, str) and v not in ElementType._value2member_map_:
            mapped = element_type(v)
            if mapped is None:
                raise ValueError(
                    f"unknown element type {v!r}: e2m1, e4m3, f16, bf16, SafeFP4, half, ..."
                )
            return mapped
        return v

    @field_validator("tile", "cluster", mode="before")
    @classmethod
    def _shape(cls, v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            if len(v) != 3:
                raise ValueError(
                    f"{tuple(v)} has {len(v)} values; give M, N and K, e.g. (256, 128, 128)"
                )
            return Shape3(m=v[0], n=v[1], k=v[2])
        if isinstance(v, str):
            parts = v.lower().split("x")
            if len(parts) != 3 or not all(re.fullmatch(r"[0-9]{1,10}", p) for p in parts):
                raise ValueError(f"{v[:40]!r} is not MxNxK (three positive integers)")
            m, n, k = (int(x) for x in parts)
            return Shape3(m=m, n=n, k=k)
        return v

    @field_validator("fusion", mode="before")
    @classmethod
    def _fusion(cls, v: Any) -> Any:
        return v.upper() if isinstance(v, str) else v

    @field_validator("arch")
    @classmethod
    def _arch(cls, v: str) -> str:
        try:
            arch_for(v)
        except KeyError:
            raise ValueError(f"unknown arch {v[:40]!r}; known: {', '.join(arches())}") from None
        return v

    @field_validator("tile", "cluster")
    @classmethod
    def _positive_int(cls, v: Shape3) -> Shape3:
        """The launcher takes each as `cute::Int<int>`: 1 to INT_MAX (a 0 is no tactic)."""
        if not all(1 <= x <= INT_MAX for x in (v.m, v.n, v.k)):
            raise ValueError(f"{v} is not three integers from 1 to {INT_MAX:,}")
        return v


def instantiation_of(spec: TacticSpec) -> Instantiation:
    """The record the parser would produce for this tactic's macro call."""
    target = arch_for(spec.arch)
    # The generator writes Sm120 for both 12.0 and 12.1 builds (generate_sm120_operations).
    sm = 121 if target.sm == 121 else 120
    mxfpx = spec.mxfpx
    if mxfpx is None:
        mxfpx = spec.act_type is ElementType.E4M3 and spec.weight_type is ElementType.E2M1
    args = MoeGemmArgs(
        arch_tag=f"Sm{sm}",
        sm=sm,
        act_type=spec.act_type,
        weight_type=spec.weight_type,
        output_type=spec.output_type,
        epilogue_schedule="void",
        epilogue_tag="EpilogueOpDefault",
        fusion=spec.fusion,
        cta_tile=spec.tile,
        cluster=spec.cluster,
        mxfpx=mxfpx,
        dynamic_cga=False,
        bias=False,
        swap_ab=spec.swap_ab,
    )
    return Instantiation(
        span=SourceSpan(path=spec.name or "<tactic>", line=0, column=0, end_line=0),
        form=FormKind.MACRO_CALL,
        name=MACRO,
        args=spell(args, _parameters(context_of(spec))),
    )


def context_of(spec: TacticSpec) -> ModelContext:
    return ModelContext(
        arch=arch_for(spec.arch),
        cutlass=resolve(spec.cutlass_version, spec.flashinfer_version),
        flashinfer=known_release(spec.flashinfer_version)[0],
    )


def _parameters(ctx: ModelContext) -> tuple[str, ...]:
    """The MoE macro's parameters in the release the spec names (producer knowledge)."""
    return parameters_of(ctx.flashinfer.macro_parameters if ctx.flashinfer else None)
