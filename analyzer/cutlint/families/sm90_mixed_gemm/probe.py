"""What `cutlint verify` builds for the SM90 mixed-input families (cutlint.families.probe; the
sm90-mixed-gemm and sm90-mixed-moe families share this probe, `sm90-mixed-launcher`; verify's
runner is cutlint.verify.sm90_mixed_probe): FlashInfer's fpA_intB and mixed-input MoE launchers.


The generated files (``gemm/90/*.generated.cu``) hold explicit instantiations
``template void sm90_generic_mixed_gemm_kernelLauncher<Act, Weight, ScaleZero, Bias, Out, QuantOp,
EpilogueTag, CTAShape, ClusterShape, MainloopSchedule, EpilogueSchedule>(...);`` of a function
template defined in ``fpA_intB_launcher_sm90.inl``. As for the SM80 fused-MoE probe
(``sm80_fused_moe_probe``), a patched copy of that ``.inl`` is put first on the include path and
the real generated files are compiled as they are, with the SM90 module's flags (which define
``COMPILE_HOPPER_TMA_GEMMS``, so the body is compiled):

* the copy gets ``#pragma once`` (several generated files in one translation unit) and, after
  its own includes, the helpers of ``data/probe_helpers.hpp``;
* the launcher's body is kept up to and including ``using GemmKernel = ...;`` byte for byte, so
  the kernel type is the real one; the rest of the ``if constexpr`` branch (the occupancy query,
  the arguments, ``initialize`` and ``run``) becomes a call that makes the instantiation print
  ``Stages``, ``sizeof`` of the mainloop's and epilogue's ``SharedStorage``,
  ``GemmKernel::SharedStorageSize`` and ``MaxThreadsPerBlock`` at program start.

Nothing then references ``device_kernel<GemmKernel>``, so nvcc generates no GEMM device code; the
run needs no GPU. Each printed record carries the template arguments as numbers and compiler
spellings, and is paired with the instantiation of the generated file that has the same
arguments (``key_of_args``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from cutlint.families.probe import (
    PRINT_HPP,
    PatchError,
    printed_type,
    probe_copy,
    read_records,
    require,
)
from cutlint.families.probe import absolutize_includes as _absolutize_includes
from cutlint.parse import parse_source
from cutlint.records import Instantiation

LAUNCHER_NAME = "sm90_generic_mixed_gemm_kernelLauncher"
LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/fpA_intB_gemm/launchers/fpA_intB_launcher_sm90.inl"
)
OUTPUT_TAG = "CUTLINT_SM90_MIXED_PROBE "

HELPERS_HPP = PRINT_HPP + (
    resources.files(__package__).joinpath("data", "probe_helpers.hpp").read_text(encoding="utf-8")
)
"""The C++ the probe copies of the launchers get after their includes."""

# The launcher's first line of its own code: the helpers go in front of it, after its includes.
ANCHOR_NAMESPACE = re.compile(r"^namespace\s+tensorrt_llm\s*\{", re.MULTILINE)
ANCHOR_LAUNCHER = re.compile(rf"\bvoid\s+{LAUNCHER_NAME}\s*\(")
MOE_LAUNCHER_NAMES = (
    "sm90_generic_mixed_moe_gemm_kernelLauncher",
    "sm90_generic_mixed_moe_small_k_kernelLauncher",
)
MOE_LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/"
    "moe_gemm_tma_ws_mixed_input_launcher.inl"
)
# The MoE launchers' shared body (`..._kernelLauncher_impl`): kept up to `using GemmGrouped`; the
# rest of the body (arguments, workspace, initialize, run) is replaced, up to its closing brace.
# (FlashInfer 0.6.x has no `_impl`: the launcher itself holds the body.)
ANCHOR_MOE_IMPL = re.compile(r"\bvoid\s+sm90_generic_mixed_moe_gemm_kernelLauncher(?:_impl)?\s*\(")
ANCHOR_GEMM_GROUPED = re.compile(r"using\s+GemmGrouped\s*=[^;]*;[^\n]*\n")
ANCHOR_BODY_END = re.compile(r"\n\}\n")
# quant_op in the MoE report: QuantOp + 100 x ScaleMode + 10000 x KernelType (the enums:
# collective_mma_array_mixed_input.hpp MixedInputScaleMode {kPostMma, kPreMmaE8M0};
# gemm_configs.h MainloopScheduleType {AUTO, PINGPONG, COOPERATIVE, WARPSPECIALIZED,
# SINGLE_WARPGROUP_PREFILL, SINGLE_WARPGROUP_ROLLING})
MOE_TOUCH = (
    "  /* cutlint probe: the run-time part of the launcher is replaced by this report */\n"
    "  ::cutlint_sm90_mixed_probe::touch<GemmKernel, CollectiveMainloop, CollectiveEpilogue,\n"
    "      ElementA, ElementB, ElementScale, ElementC, ElementD,\n"
    "      static_cast<int>(QuantOp) + 100 * static_cast<int>(ScaleMode) +\n"
    "          10000 * static_cast<int>(KernelType),\n"
    "      CTAShape, ClusterShape, MainloopScheduleType, EpilogueScheduleType>();"
)
SCALE_MODE = {"cutlass::gemm::collective::MixedInputScaleMode::kPreMmaE8M0": 1}
KERNEL_TYPE = {"SINGLE_WARPGROUP_PREFILL": 4, "SINGLE_WARPGROUP_ROLLING": 5}
# ElementB of the MoE launcher: uint4b_t becomes int4b_t; SafeFP4 is Fp4Type (__nv_fp4_e2m1,
# which FlashInfer 0.6.x writes as is).
MOE_WEIGHT = {
    "cutlass::uint4b_t": "cutlass::integer_subbyte<4, true>",
    "SafeFP4": "cutlass::float_e2m1_t",
    "__nv_fp4_e2m1": "cutlass::float_e2m1_t",
}
# The kernel type: kept, with everything before it.
ANCHOR_GEMM_KERNEL = re.compile(r"using\s+GemmKernel\s*=[^;]*;[^\n]*\n")
# The end of the run-time part: the `} else {` of `if constexpr (!should_filter_...)`.
ANCHOR_FAST_BUILD_ELSE = re.compile(r"\n[ \t]*\}\s*else\s*\{\s*\n\s*std::stringstream\s+ss;")
TOUCH = (
    "  /* cutlint probe: the run-time part of the launcher is replaced by this report */\n"
    "    ::cutlint_sm90_mixed_probe::touch<GemmKernel, CollectiveMainloop, CollectiveEpilogue,\n"
    "        CutlassActivationType, CutlassWeightType, CutlassScaleZeroType, CutlassBiasType,\n"
    "        CutlassOutputType, static_cast<int>(QuantOp), CTAShape, ClusterShape,\n"
    "        MainloopScheduleType, EpilogueScheduleType>();"
)

# The compiler's spellings of the types after TllmToCutlassTypeAdapter, and the quantization
# modes (cutlass_extensions/weight_only_quant_op.h: enum class WeightOnlyQuantOp), by the
# generated file's spelling.
CUTLASS_TYPE = {
    "half": "cutlass::half_t",
    "__nv_bfloat16": "cutlass::bfloat16_t",
    "__nv_fp8_e4m3": "cutlass::float_e4m3_t",
    "__nv_fp8_e5m2": "cutlass::float_e5m2_t",
    "cutlass::uint4b_t": "cutlass::integer_subbyte<4, false>",
    "uint8_t": "unsigned char",
}
QUANT_OP = {
    "cutlass::WeightOnlyQuantOp::PER_COLUMN_SCALE_ONLY": 1,
    "cutlass::WeightOnlyQuantOp::FINEGRAINED_SCALE_ONLY": 2,
    "cutlass::WeightOnlyQuantOp::FINEGRAINED_SCALE_AND_ZEROS": 3,
}


@dataclass(frozen=True)
class Sm90MixedProbeRow:
    """The compiler's numbers for one explicit instantiation."""

    path: str
    line: int
    args: tuple[str, ...]
    """The 11 template arguments as written (whitespace-normalized)."""
    stages: int
    """`CollectiveMainloop::DispatchPolicy::Stages`."""
    mainloop_size: int
    epilogue_size: int
    smem_size: int
    """`GemmKernel::SharedStorageSize`."""
    max_threads_per_block: int
    members: dict[str, int] = field(default_factory=dict)
    """The mainloop TensorStorage's sizeof/alignof and member offsets and sizes."""


def patch_launcher(text: str, launcher: Path) -> str:
    """The probe copy of fpA_intB_launcher_sm90.inl (see the module docstring)."""
    text = _absolutize_includes(text, launcher.parent)
    ns = require(ANCHOR_NAMESPACE.search(text), "namespace tensorrt_llm {", launcher)
    head = require(ANCHOR_LAUNCHER.search(text, ns.end()), f"void {LAUNCHER_NAME}(", launcher)
    alias = require(
        ANCHOR_GEMM_KERNEL.search(text, head.end()), "using GemmKernel = ...;", launcher
    )
    end = require(
        ANCHOR_FAST_BUILD_ELSE.search(text, alias.end()), "} else { std::stringstream ss;", launcher
    )
    removed = text[alias.end() : end.start()]
    if "gemm.run(" not in removed or "initialize(" not in removed:
        raise PatchError(f"run-time part after `using GemmKernel` looks wrong in {launcher}")
    return probe_copy(text, HELPERS_HPP, ns.start(), alias.end(), TOUCH, end.start())


def patch_moe_launcher(text: str, launcher: Path) -> str:
    """The probe copy of moe_gemm_tma_ws_mixed_input_launcher.inl: the same patch as
    patch_launcher, in `sm90_generic_mixed_moe_gemm_kernelLauncher_impl`."""
    text = _absolutize_includes(text, launcher.parent)
    ns = require(ANCHOR_NAMESPACE.search(text), "namespace tensorrt_llm {", launcher)
    head = require(
        ANCHOR_MOE_IMPL.search(text, ns.end()), "void ..._kernelLauncher_impl(", launcher
    )
    alias = require(
        ANCHOR_GEMM_GROUPED.search(text, head.end()), "using GemmGrouped = ...;", launcher
    )
    end = require(ANCHOR_BODY_END.search(text, alias.end()), "end of the _impl body", launcher)
    removed = text[alias.end() : end.start()]
    if "gemm.run(" not in removed or "initialize(" not in removed:
        raise PatchError(f"run-time part after `using GemmGrouped` looks wrong in {launcher}")
    touch = MOE_TOUCH
    if "ScaleMode" not in text[head.start() : alias.start()]:
        # FlashInfer 0.6.x: no ScaleMode, no KernelType
        touch = touch.replace(
            " + 100 * static_cast<int>(ScaleMode) +\n          10000 * static_cast<int>(KernelType)",
            "",
        )
    return probe_copy(text, HELPERS_HPP, ns.start(), alias.end(), touch, end.start())


def parse_output(stdout: str) -> list[dict[str, object]]:
    return read_records(stdout, OUTPUT_TAG)


def _ints(shape: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"Int<\s*(\d+)\s*>", shape))


def _schedule(spelling: str) -> str:
    return spelling.rsplit("::", 1)[-1]


def key_of_args(args: Sequence[str]) -> tuple[object, ...]:
    """The match key of an instantiation's template arguments as written."""
    a = [" ".join(x.split()) for x in args]
    return (
        CUTLASS_TYPE.get(a[0], a[0]),
        CUTLASS_TYPE.get(a[1], a[1]),
        CUTLASS_TYPE.get(a[2], a[2]),
        CUTLASS_TYPE.get(a[3], a[3]),
        CUTLASS_TYPE.get(a[4], a[4]),
        QUANT_OP.get(a[5], -1),
        _ints(a[7]),
        _ints(a[8]),
        _schedule(a[9]),
        _schedule(a[10]),
    )


def moe_key_of_args(args: Sequence[str]) -> tuple[object, ...]:
    """The match key of a MoE launcher's template arguments as written (the scale type, not an
    argument, is left out: the launcher derives it from the weight)."""
    a = [" ".join(x.split()) for x in args]
    scale_mode = SCALE_MODE.get(a[9], 0) if len(a) > 9 else 0
    kernel_type = KERNEL_TYPE.get(a[10].rsplit("::", 1)[-1], -1) if len(a) > 10 else 0
    return (
        CUTLASS_TYPE.get(a[0], a[0]),
        MOE_WEIGHT.get(a[1], a[1]),
        CUTLASS_TYPE.get(a[2], a[2]),
        QUANT_OP.get(a[8], -1) + 100 * scale_mode + 10000 * kernel_type,
        _ints(a[4]),
        _ints(a[5]),
        _schedule(a[6]),
        _schedule(a[7]),
    )


def moe_key_of_record(rec: dict[str, object]) -> tuple[object, ...]:
    k = key_of_record(rec)
    return (k[0], k[1], k[4], k[5], k[6], k[7], k[8], k[9])


def key_of_record(rec: dict[str, object]) -> tuple[object, ...]:
    return (
        printed_type(str(rec["activation"])),
        printed_type(str(rec["weight"])),
        printed_type(str(rec["scale_zero"])),
        printed_type(str(rec["bias"])),
        printed_type(str(rec["output"])),
        int(rec["quant_op"]),  # type: ignore[call-overload]
        tuple(int(rec[f"tile_{d}"]) for d in "mnk"),  # type: ignore[call-overload]
        tuple(int(rec[f"cluster_{d}"]) for d in "mnk"),  # type: ignore[call-overload]
        _schedule(printed_type(str(rec["mainloop_schedule"]))),
        _schedule(printed_type(str(rec["epilogue_schedule"]))),
    )


@dataclass(frozen=True)
class _Site:
    path: Path
    line: int
    args: tuple[str, ...]


def instantiation_sites(
    generated: Sequence[Path],
    names: Sequence[str] = (LAUNCHER_NAME,),
    found: Mapping[Path, Sequence[Instantiation]] | None = None,
) -> list[_Site]:
    """The launcher's explicit instantiations in the files: `found` (check's records of each
    file, as `cutlint verify` hands them), else by cutlint's own parser (the truth tools)."""
    sites: list[_Site] = []
    for path in generated:
        insts = (
            found[path]
            if found is not None
            else parse_source(str(path), path.read_bytes()).instantiations
        )
        for inst in insts:
            if inst.name in names:
                sites.append(_Site(path, inst.span.line, inst.args))
    return sites


_NUMBERS = ("Stages", "mainloop.sizeof", "epilogue.sizeof", "SharedStorageSize")


def match_rows(
    sites: Sequence[_Site], records: Sequence[dict[str, object]], moe: bool = False
) -> list[Sm90MixedProbeRow]:
    """Pair each printed record with the instantiation(s) of the same template arguments."""
    of_record, of_args = (
        (moe_key_of_record, moe_key_of_args) if moe else (key_of_record, key_of_args)
    )
    by_key = {of_record(r): r for r in records}
    rows: list[Sm90MixedProbeRow] = []
    missing: list[str] = []
    for site in sites:
        rec = by_key.get(of_args(site.args))
        if rec is None:
            missing.append(f"{site.path.name}:{site.line}")
            continue
        members = {
            k: int(v)  # type: ignore[call-overload]
            for k, v in rec.items()
            if k.startswith("mainloop.tensors.")
        }
        rows.append(
            Sm90MixedProbeRow(
                path=str(site.path),
                line=site.line,
                args=tuple(" ".join(a.split()) for a in site.args),
                stages=int(rec["Stages"]),  # type: ignore[call-overload]
                mainloop_size=int(rec["mainloop.sizeof"]),  # type: ignore[call-overload]
                epilogue_size=int(rec["epilogue.sizeof"]),  # type: ignore[call-overload]
                smem_size=int(rec["SharedStorageSize"]),  # type: ignore[call-overload]
                max_threads_per_block=int(rec["MaxThreadsPerBlock"]),  # type: ignore[call-overload]
                members=members,
            )
        )
    if missing:
        raise PatchError("no probe report for: " + "; ".join(missing))
    return rows
