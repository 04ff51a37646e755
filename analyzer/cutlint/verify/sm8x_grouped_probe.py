"""Ask nvcc for the shared memory of `MoeGemmRunner`'s CUTLASS 2.x grouped kernels.

No file names these kernels: `MoeGemmRunner` builds them inside
`genericMoeGemmKernelLauncher<T, WeightType, GemmOutputType, arch, QuantOp, EpilogueTag,
ThreadblockShape, WarpShape, Stages>::call` (``moe_gemm/moe_gemm_template_dispatch.h``) from the
tile its dispatch switch maps a `CutlassTileConfig` to. The probe puts a patched copy of that header
first on the include path:

* the header gets, after its own includes, the helpers of ``probe_cpp/sm8x_grouped_helpers.hpp``;
* `call` is kept byte for byte up to and including ``using GemmGrouped = ...;`` (so `GemmKernel`,
  `MoeFCGemm<Mma, Epilogue, ...>`, is the real one); the rest of the unfused branch (the
  occupancy query, `initialize`, `run`) becomes a call that prints `sizeof(GemmKernel::
  SharedStorage)` and the sizes of its parts; the fused branch after it is kept.

A generated driver calls `call` on the host for each configuration (with the FP8 epilogue's
`alpha_scales` set, as the run path requires). Nothing references `cutlass::Kernel<GemmKernel>`,
so no kernel is generated and no GPU is needed.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from cutlint.families.probe import absolutize_includes as _absolutize_includes
from cutlint.verify import cublas
from cutlint.verify.probe_build import run_step, support_objects
from cutlint.verify.probe_flags import (
    SM120_GENCODE,
    FlashInferTree,
    compile_flags,
    extra_system_includes,
    search_flags,
)
from cutlint.verify.probe_records import ProbeError

DISPATCH_REL = Path("tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch.h")
OUTPUT_TAG = "CUTLINT_GROUPED_PROBE "

HELPERS_HPP = (
    resources.files("cutlint.verify")
    .joinpath("probe_cpp", "sm8x_grouped_helpers.hpp")
    .read_text(encoding="utf-8")
)

ANCHOR_NAMESPACE = re.compile(
    r"^namespace\s+tensorrt_llm::kernels::cutlass_kernels_oss\s*\{", re.MULTILINE
)
ANCHOR_CALL = re.compile(r"struct\s+genericMoeGemmKernelLauncher\s*\{\s*static\s+void\s+call\(")
ANCHOR_GEMM_GROUPED = re.compile(
    r"using\s+GemmGrouped\s*=\s*cutlass::gemm::device::GemmGrouped<GemmKernel>;[^\n]*\n"
)
ANCHOR_FUSED_BRANCH = re.compile(r"\n[ \t]*\}\s*else\s+if\s+constexpr\s*\(\s*sizeof\(ElementType\)")

# The C++ spelling of the types the driver instantiates `call` with.
CXX_TYPES = {
    "e4m3": "__nv_fp8_e4m3",
    "f16": "half",
    "bf16": "__nv_bfloat16",
}
CXX_ARCH = {80: "cutlass::arch::Sm80", 89: "cutlass::arch::Sm89"}


@dataclass(frozen=True)
class GroupedConfig:
    """One kernel to probe: `call<T, T, Out, arch, UNDEFINED, EpilogueOpDefault, TB, Warp, S>`."""

    element: str
    """e4m3, f16 or bf16 (activation = weight type)."""
    output: str
    """f16 or bf16 (the runner's OutputType; FP8 runs write f16 or bf16)."""
    arch: int
    """80 or 89: the `cutlass::arch::SmXX` tag the runner dispatches with."""
    threadblock: tuple[int, int, int]
    warp: tuple[int, int, int]
    stages: int


@dataclass(frozen=True)
class GroupedProbeRow:
    config: GroupedConfig
    kernel_smem: int
    """sizeof(GemmKernel::SharedStorage): base_grouped.h maximum_active_blocks' smem_size."""
    threads_per_block: int
    members: dict[str, int] = field(default_factory=dict)
    mma_type: str = ""
    epilogue_type: str = ""


def _require(match: re.Match[str] | None, what: str, path: Path) -> re.Match[str]:
    if match is None:
        raise ProbeError(f"patch anchor not found in {path}: {what}")
    return match


def patch_dispatch(text: str, path: Path) -> str:
    """The probe copy of moe_gemm_template_dispatch.h (see the module docstring)."""
    text = _absolutize_includes(text, path.parent)
    ns = _require(ANCHOR_NAMESPACE.search(text), "namespace ..._oss {", path)
    call = _require(ANCHOR_CALL.search(text, ns.end()), "genericMoeGemmKernelLauncher::call(", path)
    alias = _require(ANCHOR_GEMM_GROUPED.search(text, call.end()), "using GemmGrouped", path)
    fused = _require(ANCHOR_FUSED_BRANCH.search(text, alias.end()), "} else if constexpr", path)
    removed = text[alias.end() : fused.start()]
    if "maximum_active_blocks" not in removed or "gemm.run" not in removed:
        raise ProbeError(f"run-time part after `using GemmGrouped` looks wrong in {path}")
    report = (
        "      /* cutlint probe: the run-time part of the launcher is replaced by this report */\n"
        "      ::cutlint_grouped_probe::report<GemmKernel, T, WeightType, arch, ThreadblockShape,\n"
        "                                      WarpShape, Stages>();\n"
        "      static_cast<void>(epilogue_op);\n"
        "      static_cast<void>(sm_count_);"
    )
    return (
        text[: ns.start()]
        + HELPERS_HPP
        + "\n"
        + text[ns.start() : alias.end()]
        + report
        + text[fused.start() :]
    )


QUERY_TAG = "CUTLINT_GROUPED_QUERY "


def _query_lines(t: str, o: str, launcher: str) -> list[str]:
    """What MoeGemmRunner::queryOccupancyForConfig does (FlashInfer 0.6.11.post2 and later): `call` on a
    default GroupedGemmInput with only `occupancy` set. Prints the exception it throws, if any."""
    return [
        "    try {",
        f"      GroupedGemmInput<{t}, {t}, {o}, {o}> query{{}};",
        "      int occupancy = 0;",
        "      query.occupancy = &occupancy;",
        f"      {launcher}::call(query, 1);",
        f'      std::printf("{QUERY_TAG}{{\\"status\\": \\"returned\\"}}\\n");',
        "    } catch (std::exception const& e) {",
        f'      std::printf("{QUERY_TAG}{{\\"status\\": \\"threw\\", \\"what\\": ");',
        "      ::cutlint_grouped_probe::Out().str(nullptr, e.what());",
        '      std::printf("}\\n");',
        "    }",
    ]


def driver_source(configs: Sequence[GroupedConfig], query_fp8: bool = False) -> str:
    """A main() that calls `call` once per configuration; with `query_fp8`, also the way the
    pre-filter's query calls it, for the FP8 configurations (where it throws before reporting)."""
    lines = [
        "// cutlint: MoeGemmRunner's CUTLASS 2.x grouped kernels, one `call` per configuration",
        f'#include "{DISPATCH_REL}"',
        "#include <cstdio>",
        "#include <exception>",
        "int main() {",
        "  using namespace tensorrt_llm::kernels::cutlass_kernels_oss;",
        "  using tensorrt_llm::kernels::cutlass_kernels::GroupedGemmInput;",
        "  static float const* alpha[1] = {nullptr};  // the FP8 epilogue requires a pointer",
    ]
    for c in configs:
        t, o = CXX_TYPES[c.element], CXX_TYPES[c.output]
        tb = "cutlass::gemm::GemmShape<{}, {}, {}>".format(*c.threadblock)
        warp = "cutlass::gemm::GemmShape<{}, {}, {}>".format(*c.warp)
        launcher = (
            f"genericMoeGemmKernelLauncher<{t}, {t}, {o}, {CXX_ARCH[c.arch]}, "
            "cutlass::WeightOnlyQuantOp::UNDEFINED, "
            f"tensorrt_llm::cutlass_extensions::EpilogueOpDefault, {tb}, {warp}, {c.stages}>"
        )
        lines += [
            "  {",
            f"    GroupedGemmInput<{t}, {t}, {o}, {o}> in{{}};",
            "    in.alpha_scales = alpha;",
            f"    {launcher}::call(in, 1);",
            *(_query_lines(t, o, launcher) if query_fp8 and c.element == "e4m3" else []),
            "  }",
        ]
    return "\n".join([*lines, "  return 0;", "}", ""])


def _pretty_type(pretty_function: str) -> str:
    m = re.search(r"\[with T = (.+?)\]\s*$", pretty_function) or re.search(
        r"\[with T = (.+)", pretty_function
    )
    if m is None:
        raise ProbeError(f"cannot read a type from the probe's output: {pretty_function!r}")
    return " ".join(m[1].split())


_ELEMENT_OF = {
    "__nv_fp8_e4m3": "e4m3",
    "half": "f16",
    "__half": "f16",
    "__nv_bfloat16": "bf16",
}


def parse_output(stdout: str, configs: Sequence[GroupedConfig]) -> list[GroupedProbeRow]:
    """One row per printed record, in the driver's order (which is the configs' order)."""
    records = []
    for line in stdout.splitlines():
        if line.startswith(OUTPUT_TAG):
            try:
                records.append(json.loads(line[len(OUTPUT_TAG) :]))
            except json.JSONDecodeError as exc:
                raise ProbeError(f"probe printed malformed JSON: {line[:300]}") from exc
    if len(records) != len(configs):
        raise ProbeError(f"probe printed {len(records)} records for {len(configs)} configurations")
    rows = []
    for c, rec in zip(configs, records, strict=True):
        got = (
            _ELEMENT_OF.get(_pretty_type(rec["T"]), _pretty_type(rec["T"])),
            int(_pretty_type(rec["arch"]).rsplit("Sm", 1)[-1]),
            (rec["tb_m"], rec["tb_n"], rec["tb_k"]),
            (rec["warp_m"], rec["warp_n"], rec["warp_k"]),
            rec["stages"],
        )
        if got != (c.element, c.arch, c.threadblock, c.warp, c.stages):
            raise ProbeError(f"probe record {got} does not match configuration {c}")
        members = {k: int(v) for k, v in rec.items() if isinstance(v, int)}
        rows.append(
            GroupedProbeRow(
                config=c,
                kernel_smem=members["kernel.sizeof"],
                threads_per_block=members["kernel.kThreadCount"],
                members=members,
                mma_type=_pretty_type(rec["mma_type"]),
                epilogue_type=_pretty_type(rec["epilogue_type"]),
            )
        )
    return rows


def parse_queries(stdout: str) -> list[dict[str, str]]:
    """The pre-filter-style calls' outcomes, in the driver's order (FP8 configurations only)."""
    out: list[dict[str, str]] = []
    for line in stdout.splitlines():
        if line.startswith(QUERY_TAG):
            try:
                out.append(json.loads(line[len(QUERY_TAG) :]))
            except json.JSONDecodeError as exc:
                raise ProbeError(f"probe printed malformed JSON: {line[:300]}") from exc
    return out


@dataclass(frozen=True)
class GroupedProbeRun:
    rows: tuple[GroupedProbeRow, ...]
    seconds: float
    command: tuple[str, ...]
    queries: tuple[dict[str, str], ...] = ()
    """With query_fp8: what `call` did on the pre-filter's default input, per FP8 config."""


def run_probe(
    configs: Sequence[GroupedConfig],
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
    query_fp8: bool = False,
) -> GroupedProbeRun:
    """Compile the driver against the probe copy of the dispatch header, run it, return rows."""
    t0 = time.monotonic()
    if not configs:
        raise ProbeError("no configurations given")
    tree = FlashInferTree(Path(flashinfer_root))
    dispatch = tree.nv_internal / DISPATCH_REL
    if not dispatch.is_file():
        raise ProbeError(f"dispatch header not found: {dispatch}")
    base = Path(tempfile.mkdtemp(prefix="cutlint-grouped-probe-")) if workdir is None else workdir
    try:
        base.mkdir(parents=True, exist_ok=True)
        overlay = base / "overlay"
        patched = overlay / DISPATCH_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch_dispatch(dispatch.read_text(), dispatch))
        system = extra_system_includes(nvcc, extra_include_dirs)
        flags = compile_flags(tree, overlay, base, system)
        if cublas.find_real_headers(nvcc, search_flags(flags)) is None:
            system = [*system, cublas.write_shim(base / "cublas-shim")]
            flags = compile_flags(tree, overlay, base, system)
        driver = base / "sm8x_grouped_probe.cu"
        driver.write_text(driver_source(configs, query_fp8))
        obj, exe = base / "probe.o", base / "probe"
        cmd = [nvcc, *flags, "-c", str(driver), "-o", str(obj)]
        run_step(cmd, f"compiling {len(configs)} grouped configuration(s)")
        # TensorRT-LLM's host helpers (the kept checks throw TllmException); the support set's
        # own main() is not linked: the driver has one.
        support = [o for o in support_objects(tree, nvcc, base, system) if o.name != "probe_main.o"]
        run_step(
            [nvcc, SM120_GENCODE, "-o", str(exe), str(obj), *map(str, support)], "linking probe"
        )
        stdout = run_step([str(exe)], "running probe", cwd=base).stdout
        rows = parse_output(stdout, configs)
        queries = tuple(parse_queries(stdout))
        return GroupedProbeRun(tuple(rows), time.monotonic() - t0, tuple(cmd), queries)
    finally:
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)


__all__ = [
    "DISPATCH_REL",
    "OUTPUT_TAG",
    "QUERY_TAG",
    "GroupedConfig",
    "GroupedProbeRow",
    "GroupedProbeRun",
    "driver_source",
    "parse_output",
    "parse_queries",
    "patch_dispatch",
    "run_probe",
]
