"""The arguments of `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`, typed.

The macro is defined in TensorRT-LLM's
`kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl` (vendored by FlashInfer
under `data/csrc/nv_internal`); the argument order is its parameter list, which changed between
releases (FlashInfer 0.5.2: 14 parameters; 0.5.3 on: 17). Every family that builds this macro's
kernels (SM90, SM100, SM120) reads its arguments here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cutlint.parse import literals, template_args
from cutlint.records import ElementType, Fusion, MoeGemmArgs, Shape3

MACRO = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"

PARAMETERS = (
    "ArchTag", "DataType", "WeightType", "OutputType", "EpilogueSchedule", "EpilogueTag",
    "FUSION", "CTA_M", "CTA_N", "CTA_K", "CGA_M", "CGA_N", "CGA_K",
    "MXFPX", "DYNAMIC_CGA", "BIAS", "SWAP_AB",
)  # fmt: skip

ELEMENT_TYPES: dict[str, ElementType] = {
    # TensorRT-LLM's Safe* wrappers (cutlass_kernels/include/moe_gemm_kernels.h), CUDA's
    # cuda_fp4.h / cuda_fp8.h / cuda_fp16.h / cuda_bf16.h types, and CUTLASS's numeric types.
    "SafeFP4": ElementType.E2M1,
    "__nv_fp4_e2m1": ElementType.E2M1,
    "cutlass::float_e2m1_t": ElementType.E2M1,
    "SafeFP8": ElementType.E4M3,
    "__nv_fp8_e4m3": ElementType.E4M3,
    "cutlass::float_e4m3_t": ElementType.E4M3,
    "__nv_fp8_e5m2": ElementType.E5M2,
    "cutlass::float_e5m2_t": ElementType.E5M2,
    "half": ElementType.F16,
    "__half": ElementType.F16,
    "cutlass::half_t": ElementType.F16,
    "SafeBF16": ElementType.BF16,
    "__nv_bfloat16": ElementType.BF16,
    "cutlass::bfloat16_t": ElementType.BF16,
    "float": ElementType.F32,
}

# The arch tags of cutlass/arch/arch.h: `struct Sm120 { static int const kMinComputeCapability
# = 120; };`. The macro pastes the tag after `cutlass::arch::`, so it is written bare.
_ARCH_TAG = re.compile(r"Sm([0-9]{2,3})")
# The macro pastes every argument into the launcher's name
# (`tma_warp_specialized_generic_moe_gemm_kernelLauncher_##ArchTag_##_##DataType_##...`), so each
# must be one token that pastes after `_` into an identifier: letters, digits, `_` (and `$`, an
# extension every CUDA host compiler takes). `cutlass::half_t` or `(128)` do not; nor does a
# digit separator. (FlashInfer's generate_kernels.py strips the `::` of the epilogue tags "because
# this will break the instantiation macro".)
_PASTABLE = re.compile(r"[A-Za-z0-9_$]+")

# The tags of tensorrt_llm/cutlass_extensions/include/cutlass_extensions/epilogue_helpers.h; the
# macro names `tensorrt_llm::cutlass_extensions::EpilogueTag_`.
EPILOGUE_TAGS = frozenset({
    "EpilogueOpBiasSilu", "EpilogueOpBiasReLU", "EpilogueOpBiasFtGelu", "EpilogueOpBias",
    "EpilogueOpDefaultSilu", "EpilogueOpDefaultReLU", "EpilogueOpDefaultFtGelu",
    "EpilogueOpDefaultRelu2", "EpilogueOpDefault",
})  # fmt: skip
# `void` (the builder picks), or the last component of a CUTLASS epilogue schedule as
# FlashInfer's generator writes it (cutlass_library's EpilogueScheduleTag, `1Sm` dropped).
EPILOGUE_SCHEDULES = frozenset({
    "void", "EpilogueScheduleAuto", "NoSmemWarpSpecialized", "PtrArrayNoSmemWarpSpecialized",
    "PtrArrayTmaWarpSpecialized", "PtrArrayTmaWarpSpecializedCooperative",
    "PtrArrayTmaWarpSpecializedPingpong", "TmaWarpSpecialized", "TmaWarpSpecializedCooperative",
})  # fmt: skip
_INTS = ("CTA_M", "CTA_N", "CTA_K", "CGA_M", "CGA_N", "CGA_K")
"""Used as `cute::Int<CTA_M_>` (cute/numeric/integral_constant.hpp: `template <int v> using
Int = C<v>`): a converted constant expression of type `int`, where a larger value is narrowing."""
_BOOLS = ("MXFPX", "DYNAMIC_CGA", "BIAS", "SWAP_AB")
"""Used as `constexpr static bool IsMXFPX = MXFPX_;`: any integer literal converts."""


def element_type(spelled: str) -> ElementType | None:
    key = re.sub(r"\s+", "", spelled).removeprefix("::")
    return ELEMENT_TYPES.get(key)


def arch_sm(spelled: str) -> int | None:
    m = _ARCH_TAG.fullmatch(spelled.strip())
    return int(m.group(1)) if m else None


def integer(spelled: str) -> int | None:
    """The value of an integer literal an `int` parameter of the macro can take, else None (a
    digit separator does not paste)."""
    if not _PASTABLE.fullmatch(spelled.strip()):
        return None
    found = literals.integer(spelled)
    return found.value if found is not None and found.fits(literals.INT_MAX) else None


def boolean(spelled: str) -> bool | None:
    """`true`/`false`, or an integer literal (converted as C++ converts it to bool)."""
    word = spelled.strip()
    if word in ("true", "false"):
        return word == "true"
    found = literals.integer(word)
    return None if found is None or found.value is None else found.value != 0


def arch_problem(args: Sequence[str]) -> tuple[str, str] | None:
    """CUT017 for a first argument that is one identifier but no arch tag CUTLASS declares: the
    macro pastes it into `cutlass::arch::<it>`, whatever the release's parameter list."""
    if not args or not _PASTABLE.fullmatch(args[0]) or args[0] in template_args.ARCH_TAGS:
        return None
    if integer(args[0]) is not None or args[0][:1].isdigit():
        return None
    return (
        "CUT017",
        f"`{MACRO}` argument 1 (ArchTag) `{literals.quoted(args[0])}`: the macro pastes it into "
        f"`cutlass::arch::{literals.quoted(args[0])}`, which CUTLASS does not declare",
    )


def compile_problems(
    args: Sequence[str], parameters: Sequence[str] = PARAMETERS
) -> list[tuple[str, str]]:
    """(rule code, message) for each argument nvcc would reject, whatever cutlint knows of it:
    CUT009 for one that does not paste into the launcher's name, CUT011 for a number the
    parameter's C++ type cannot hold, CUT017 for an arch tag CUTLASS does not declare. Empty when the compiler takes every argument."""
    out: list[tuple[str, str]] = []
    for i, (name, arg) in enumerate(zip(parameters, args, strict=True), start=1):
        where = f"`{MACRO}` argument {i} ({name}) `{literals.quoted(arg)}`"
        if not _PASTABLE.fullmatch(arg):
            why = "is empty" if not arg else "is not one identifier or number"
            out.append(
                ("CUT009", f"{where} {why}: the macro pastes it into the launcher's name with ##")
            )
            continue
        if name == "ArchTag" and arg not in template_args.ARCH_TAGS:
            continue  # arch_problem, checked before the arity
        number = literals.integer(arg)
        if number is None:
            continue
        if number.value is None:
            out.append(("CUT011", f"{where} is too large for any C++ integer type"))
        elif name in _INTS and number.value > literals.INT_MAX:
            out.append(
                ("CUT011", f"{where} does not fit `int` (at most {literals.INT_MAX:,}): "
                 "cute::Int<int> takes it as a template argument")
            )  # fmt: skip
    return out


# What a parameter that a release's macro does not have means: the launcher's behaviour before the
# parameter was added (no dynamic cluster, no bias, no MXFPX operands). SwapAB: FlashInfer 0.5.2's
# launcher always builds the swapped problem, what 0.5.3 on call SwapAB on: its
# moe_gemm_tma_ws_launcher.inl passes `MainloopElementB, LayoutB*` first ("A & B swapped here")
# and its moe_gemm_kernels.h has LayoutC = LayoutD = TransposeLayoutTag<RowMajor> (0.5.3 on:
# LayoutC_T / LayoutD_T only under SwapAB). nvcc 13.0 on 0.5.2's SM120 M128_BS_group0: epilogue
# SharedStorage 14,336 B, 0.6.3's SwapAB-on size (13,312 B off).
_ABSENT = {
    "EpilogueSchedule": "void",
    "MXFPX": "false",
    "DYNAMIC_CGA": "false",
    "BIAS": "false",
    "SWAP_AB": "true",
}


def arity_problem(args: Sequence[str], parameters: Sequence[str]) -> str | None:
    """Why the call cannot be read against `parameters`, or None when its count matches."""
    if len(args) == len(parameters):
        return None
    return f"`{MACRO}` takes {len(parameters)} arguments; this call passes {len(args)}"


def in_canonical_order(args: Sequence[str], parameters: Sequence[str]) -> tuple[str, ...]:
    """A release's arguments (by its own parameter names) in the 17-parameter order."""
    by_name = dict(zip(parameters, args, strict=True))
    return tuple(by_name.get(p, _ABSENT.get(p, "")) for p in PARAMETERS)


def typed(
    args: Sequence[str], parameters: Sequence[str] = PARAMETERS
) -> tuple[MoeGemmArgs | None, list[str]]:
    """The typed record, and a message for each argument cutlint cannot read.

    `parameters` is the release's parameter list (the default: the 17 of FlashInfer 0.5.3 on).
    An unknown element type, arch tag or fusion leaves that field None and keeps the record; an
    integer or boolean that does not parse leaves no record (its fields have no "unknown").
    """
    assert len(args) == len(parameters)
    args = in_canonical_order(args, parameters)
    unknown: list[str] = []

    def note(index: int, what: str) -> None:
        unknown.append(f"argument {index + 1} ({PARAMETERS[index]}) `{args[index]}` is {what}")

    sm = arch_sm(args[0])
    if sm is None:
        note(0, "not an arch tag of the form SmNNN")
    types = [element_type(a) for a in args[1:4]]
    for i, t in enumerate(types, start=1):
        if t is None:
            note(i, "not an element type cutlint knows (SafeFP4, __nv_fp8_e4m3, half, ...)")
    if args[4] not in EPILOGUE_SCHEDULES:
        note(4, "not an epilogue schedule cutlint knows (void, PtrArrayTmaWarpSpecialized, ...)")
    if args[5] not in EPILOGUE_TAGS:
        note(5, "not an epilogue tag of TensorRT-LLM's epilogue_helpers.h (EpilogueOpDefault, ...)")
    fusion = Fusion.__members__.get(args[6])
    if fusion is None:
        note(6, "not an EpilogueFusion (NONE, FINALIZE, ACTIVATION)")
    ints = [integer(a) for a in args[7:13]]
    for i, v in enumerate(ints, start=7):
        if v is None or v <= 0:
            note(i, "not a positive integer literal")
    flags = [boolean(a) for a in args[13:17]]
    for i, f in enumerate(flags, start=13):
        if f is None:
            note(i, "not a boolean (true, false)")
    if (
        any(v is None or v <= 0 for v in ints)
        or any(f is None for f in flags)
        or args[4] not in EPILOGUE_SCHEDULES
        or args[5] not in EPILOGUE_TAGS
    ):
        return None, unknown
    m, n, k, cm, cn, ck = (int(v or 0) for v in ints)
    mxfpx, dynamic_cga, bias, swap_ab = (bool(f) for f in flags)
    record = MoeGemmArgs(
        arch_tag=args[0], sm=sm, act_type=types[0], weight_type=types[1], output_type=types[2],
        epilogue_schedule=args[4], epilogue_tag=args[5], fusion=fusion,
        cta_tile=Shape3(m=m, n=n, k=k), cluster=Shape3(m=cm, n=cn, k=ck),
        mxfpx=mxfpx, dynamic_cga=dynamic_cga, bias=bias, swap_ab=swap_ab,
    )  # fmt: skip
    return record, unknown


# How a generator spells each element type in the macro call (FlashInfer's generate_kernels.py
# writes the CUDA types: `__nv_fp4_e2m1` is written `SafeFP4` by TensorRT-LLM's).
_SPELLING: dict[ElementType, str] = {
    ElementType.E2M1: "SafeFP4",
    ElementType.E4M3: "__nv_fp8_e4m3",
    ElementType.E5M2: "__nv_fp8_e5m2",
    ElementType.F16: "half",
    ElementType.BF16: "__nv_bfloat16",
    ElementType.F32: "float",
}


def spell(a: MoeGemmArgs, parameters: Sequence[str] = PARAMETERS) -> tuple[str, ...]:
    """The macro call's arguments for `a`, as a generator writes them, in `parameters`' order."""

    def flag(b: bool) -> str:
        return "true" if b else "false"

    def element(t: ElementType | None) -> str:
        return _SPELLING[t] if t is not None else "?"

    canonical = {
        "ArchTag": a.arch_tag,
        "DataType": element(a.act_type),
        "WeightType": element(a.weight_type),
        "OutputType": element(a.output_type),
        "EpilogueSchedule": a.epilogue_schedule,
        "EpilogueTag": a.epilogue_tag,
        "FUSION": a.fusion.value if a.fusion else "?",
        "CTA_M": str(a.cta_tile.m),
        "CTA_N": str(a.cta_tile.n),
        "CTA_K": str(a.cta_tile.k),
        "CGA_M": str(a.cluster.m),
        "CGA_N": str(a.cluster.n),
        "CGA_K": str(a.cluster.k),
        "MXFPX": flag(a.mxfpx),
        "DYNAMIC_CGA": flag(a.dynamic_cga),
        "BIAS": flag(a.bias),
        "SWAP_AB": flag(a.swap_ab),
    }
    return tuple(canonical[p] for p in parameters)


def parameters_of(macro_parameters: Sequence[str] | None) -> tuple[str, ...]:
    """The macro's parameter list in the release that wrote the file (its `#define`'s names, which
    end in `_`: `FlashInferRelease.macro_parameters`), in the 17-parameter spelling; the 17 of
    FlashInfer 0.5.3 on when the release is unknown."""
    if not macro_parameters:
        return PARAMETERS
    return tuple(name.rstrip("_") for name in macro_parameters)
