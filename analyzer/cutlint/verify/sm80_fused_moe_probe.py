"""Ask nvcc for the shared memory of FlashInfer's Ampere fused-MoE kernels (the SM80 family).

The generated files (``gemm_grouped/80/*.generated.cu``) hold explicit instantiations
``template void sm80_generic_fused_moe_gemm_kernelLauncher<Elem, Weight, M, N, K, Stages, Tag>(...);``
of a function template defined in ``fused_moe_gemm_launcher_sm80.inl``. As for the SM120 probe
(``nvcc_probe``), a patched copy of that ``.inl`` is put first on the include path and the real
generated files are compiled as they are, with the flags of the module that compiles them:

* the copy gets ``#pragma once`` (so one translation unit can include all generated files of a
  release: one compile instead of nine) and, after its own includes, the helpers of
  ``probe_cpp/sm80_fused_moe_helpers.hpp``;
* the launcher's body is kept up to and including ``using GemmType = ...;`` byte for byte, so the
  kernel type is the real one; the rest of the body (the occupancy query, the
  ``cudaFuncSetAttribute`` and the launch of ``fused_moe::run_global<GemmType>``) becomes a call
  that makes the instantiation print ``GemmType::kSmemSize`` (the launcher's ``smem_size``),
  ``kThreadCount`` and the layout of the traits' ``SharedStorage`` at program start.

Nothing then references the kernel, so nvcc generates no device code for it; the run needs no
GPU. Each printed record carries the template arguments as the compiler spells them, and is
paired with the instantiation of the generated file that has the same arguments.
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

from cutlint.parse import parse_source
from cutlint.verify import cublas
from cutlint.verify.launcher_patch import _absolutize_includes
from cutlint.verify.probe_build import run_step, support_objects
from cutlint.verify.probe_flags import (
    SM120_GENCODE,
    FlashInferTree,
    compile_flags,
    extra_system_includes,
    search_flags,
)
from cutlint.verify.probe_records import ProbeError

LAUNCHER_NAME = "sm80_generic_fused_moe_gemm_kernelLauncher"
SM80_LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/fused_moe_gemm_launcher_sm80.inl"
)
OUTPUT_TAG = "CUTLINT_SM80_PROBE "

HELPERS_HPP = (
    resources.files("cutlint.verify")
    .joinpath("probe_cpp", "sm80_fused_moe_helpers.hpp")
    .read_text(encoding="utf-8")
)

# The launcher's first line of its own code: the helpers go in front of it, after its includes.
ANCHOR_NAMESPACE = re.compile(
    r"^namespace\s+tensorrt_llm::kernels::cutlass_kernels_oss\s*\{", re.MULTILINE
)
ANCHOR_LAUNCHER = re.compile(rf"\bvoid\s+{LAUNCHER_NAME}\s*\(")
# The kernel type: kept, with everything before it.
ANCHOR_GEMM_TYPE = re.compile(r"using\s+GemmType\s*=[^;]*;[^\n]*\n")
# The end of the launcher's body: the `}` before the namespace's closing brace.
ANCHOR_BODY_END = re.compile(r"\n\}\s*\n\}\s*//\s*namespace[^\n]*\s*$")
# The template parameters, as the launcher names them (the order of the generated arguments).
TEMPLATE_PARAMS = (
    "ElementType_",
    "CutlassWeightType_",
    "MaxTileM_",
    "TileN_",
    "TileK_",
    "Stages_",
    "EpilogueTag",
)


@dataclass(frozen=True)
class Sm80ProbeRow:
    """The compiler's numbers for one explicit instantiation."""

    path: str
    line: int
    args: tuple[str, ...]
    """The 7 template arguments as written (whitespace-normalized)."""
    smem_size: int
    """`GemmType::kSmemSize`: the launcher's `smem_size`."""
    threads_per_block: int
    """`GemmType::kThreadCount`: the launch's block size."""
    members: dict[str, int] = field(default_factory=dict)
    """Everything else the probe printed: traits constants, sizeof/alignof, member offsets."""


def _require(match: re.Match[str] | None, what: str, launcher: Path) -> re.Match[str]:
    if match is None:
        raise ProbeError(f"patch anchor not found in {launcher}: {what}")
    return match


def patch_launcher(text: str, launcher: Path) -> str:
    """The probe copy of fused_moe_gemm_launcher_sm80.inl (see the module docstring)."""
    text = _absolutize_includes(text, launcher.parent)
    ns = _require(ANCHOR_NAMESPACE.search(text), "namespace ..._oss {", launcher)
    head = _require(ANCHOR_LAUNCHER.search(text, ns.end()), f"void {LAUNCHER_NAME}(", launcher)
    for param in TEMPLATE_PARAMS:
        if not re.search(rf"\b{param}\b", text[ns.end() : head.start()]):
            raise ProbeError(f"template parameter {param} not found in {launcher}")
    alias = _require(ANCHOR_GEMM_TYPE.search(text, head.end()), "using GemmType = ...;", launcher)
    end = _require(ANCHOR_BODY_END.search(text, alias.end()), "end of the launcher body", launcher)
    removed = text[alias.end() : end.start()]
    if "run_global<GemmType>" not in removed or "kSmemSize" not in removed:
        raise ProbeError(f"run-time part after `using GemmType` looks wrong in {launcher}")
    targs = ", ".join(["GemmType", *TEMPLATE_PARAMS])
    call = (
        "  /* cutlint probe: the run-time part of the launcher is replaced by this report */\n"
        f"  ::cutlint_sm80_probe::touch<{targs}>();"
    )
    return (
        "#pragma once\n"
        + text[: ns.start()]
        + HELPERS_HPP
        + "\n"
        + text[ns.start() : alias.end()]
        + call
        + text[end.start() :]
    )


def _pretty_type(pretty_function: str) -> str:
    """`const char* ...::type_name() [with T = cutlass::half_t]` -> `cutlass::half_t`."""
    m = re.search(r"\[with T = (.+)\]\s*$", pretty_function)
    if m is None:
        raise ProbeError(f"cannot read a type from the probe's output: {pretty_function!r}")
    return " ".join(m[1].split())


def parse_output(stdout: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for line in stdout.splitlines():
        if line.startswith(OUTPUT_TAG):
            try:
                out.append(json.loads(line[len(OUTPUT_TAG) :]))
            except json.JSONDecodeError as exc:
                raise ProbeError(f"probe printed malformed JSON: {line[:300]}") from exc
    return out


def _key(rec: dict[str, object]) -> tuple[str, ...]:
    return (
        _pretty_type(str(rec["element"])),
        _pretty_type(str(rec["weight"])),
        str(rec["MaxTileM"]),
        str(rec["TileN"]),
        str(rec["TileK"]),
        str(rec["Stages"]),
        _pretty_type(str(rec["epilogue_tag"])),
    )


@dataclass(frozen=True)
class _Site:
    path: Path
    line: int
    args: tuple[str, ...]


def instantiation_sites(generated: Sequence[Path]) -> list[_Site]:
    """The launcher's explicit instantiations in the files, by cutlint's own parser."""
    sites: list[_Site] = []
    for path in generated:
        parsed = parse_source(str(path), path.read_bytes())
        for inst in parsed.instantiations:
            if inst.name == LAUNCHER_NAME:
                sites.append(_Site(path, inst.span.line, inst.args))
    return sites


def match_rows(sites: Sequence[_Site], records: Sequence[dict[str, object]]) -> list[Sm80ProbeRow]:
    """Pair each printed record with the instantiation(s) of the same template arguments."""
    by_args = {_key(r): r for r in records}
    rows: list[Sm80ProbeRow] = []
    missing: list[str] = []
    for site in sites:
        rec = by_args.get(tuple(" ".join(a.split()) for a in site.args))
        if rec is None:
            missing.append(f"{site.path.name}:{site.line} <{', '.join(site.args)}>")
            continue
        members = {
            k: int(v)  # type: ignore[call-overload]
            for k, v in rec.items()
            if k not in ("element", "weight", "epilogue_tag", "kSmemSize", "kThreadCount")
        }
        rows.append(
            Sm80ProbeRow(
                path=str(site.path),
                line=site.line,
                args=site.args,
                smem_size=int(rec["kSmemSize"]),  # type: ignore[call-overload]
                threads_per_block=int(rec["kThreadCount"]),  # type: ignore[call-overload]
                members=members,
            )
        )
    if missing:
        raise ProbeError("no probe report for: " + "; ".join(missing), rows=())
    return rows


@dataclass(frozen=True)
class Sm80ProbeRun:
    rows: tuple[Sm80ProbeRow, ...]
    seconds: float
    """Wall time of the compile, link and run."""
    command: tuple[str, ...]
    """The compile command (for the record of how the truth was obtained)."""


def run_probe(
    generated: Sequence[Path],
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
) -> Sm80ProbeRun:
    """Compile the generated files of one FlashInfer tree in one translation unit against the
    probe launcher, run the executable on the host, return one row per instantiation."""
    t0 = time.monotonic()
    files = [Path(p).resolve() for p in generated]
    if not files:
        raise ProbeError("no generated files given")
    tree = FlashInferTree(Path(flashinfer_root))
    launcher = tree.nv_internal / SM80_LAUNCHER_REL
    if not launcher.is_file():
        raise ProbeError(f"launcher not found: {launcher}")
    sites = instantiation_sites(files)
    if not sites:
        raise ProbeError(f"no {LAUNCHER_NAME} instantiation in {len(files)} file(s)")
    base = Path(tempfile.mkdtemp(prefix="cutlint-sm80-probe-")) if workdir is None else workdir
    try:
        base.mkdir(parents=True, exist_ok=True)
        overlay = base / "overlay"
        patched = overlay / SM80_LAUNCHER_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch_launcher(launcher.read_text(), launcher))
        system = extra_system_includes(nvcc, extra_include_dirs)
        flags = compile_flags(tree, overlay, files[0].parent, system)
        if cublas.find_real_headers(nvcc, search_flags(flags)) is None:
            # Searched last, so it never shadows real headers (see cutlint.verify.cublas).
            system = [*system, cublas.write_shim(base / "cublas-shim")]
            flags = compile_flags(tree, overlay, files[0].parent, system)
        driver = base / "sm80_fused_moe_probe.cu"
        driver.write_text(
            "// cutlint: the real generated files, compiled as they are, in one TU\n"
            + "".join(f'#include "{f}"\n' for f in files)
        )
        obj, exe = base / "probe.o", base / "probe"
        cmd = [nvcc, *flags, "-c", str(driver), "-o", str(obj)]
        run_step(cmd, f"compiling {len(files)} generated file(s)")
        # TensorRT-LLM's host helpers that the kept headers reference, and an empty main()
        # (probe_cpp/probe_main.cpp), shared with the SM120 probe.
        support = support_objects(tree, nvcc, base, system)
        run_step(
            [nvcc, SM120_GENCODE, "-o", str(exe), str(obj), *map(str, support)], "linking probe"
        )
        stdout = run_step([str(exe)], "running probe", cwd=base).stdout
        rows = match_rows(sites, parse_output(stdout))
        return Sm80ProbeRun(tuple(rows), time.monotonic() - t0, tuple(cmd))
    finally:
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)


__all__ = [
    "LAUNCHER_NAME",
    "OUTPUT_TAG",
    "SM80_LAUNCHER_REL",
    "Sm80ProbeRow",
    "Sm80ProbeRun",
    "instantiation_sites",
    "match_rows",
    "parse_output",
    "patch_launcher",
    "run_probe",
]
