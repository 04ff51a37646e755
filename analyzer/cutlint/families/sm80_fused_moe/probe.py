"""What `cutlint verify` builds for this family (cutlint.families.probe; verify's runner is
cutlint.verify.sm80_fused_moe_probe): FlashInfer's Ampere fused-MoE launcher, patched.

The generated files (``gemm_grouped/80/*.generated.cu``) hold explicit instantiations
``template void sm80_generic_fused_moe_gemm_kernelLauncher<Elem, Weight, M, N, K, Stages, Tag>(...);``
of a function template defined in ``fused_moe_gemm_launcher_sm80.inl``. The probe copy of that
``.inl`` (`patch_launcher`):

* gets ``#pragma once`` (so one translation unit can include all generated files of a release:
  one compile instead of nine) and, after its own includes, the helpers of
  ``data/probe_helpers.hpp``;
* keeps the launcher's body up to and including ``using GemmType = ...;`` byte for byte, so the
  kernel type is the real one; the rest of the body (the occupancy query, the
  ``cudaFuncSetAttribute`` and the launch of ``fused_moe::run_global<GemmType>``) becomes a call
  that makes the instantiation print ``GemmType::kSmemSize`` (the launcher's ``smem_size``),
  ``kThreadCount`` and the layout of the traits' ``SharedStorage`` at program start.

Each printed record carries the template arguments as the compiler spells them, and is paired
with the instantiation of the generated file that has the same arguments (`match_rows`).
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
    absolutize_includes,
    printed_type,
    probe_copy,
    read_records,
    require,
)
from cutlint.parse import parse_source
from cutlint.records import Instantiation

LAUNCHER_NAME = "sm80_generic_fused_moe_gemm_kernelLauncher"
SM80_LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/fused_moe_gemm_launcher_sm80.inl"
)
OUTPUT_TAG = "CUTLINT_SM80_PROBE "

HELPERS_HPP = PRINT_HPP + (
    resources.files(__package__).joinpath("data", "probe_helpers.hpp").read_text(encoding="utf-8")
)
"""The C++ the probe copy of the launcher gets after its includes (`::cutlint_sm80_probe::touch`:
prints kSmemSize, kThreadCount and the traits' SharedStorage layout at program start)."""

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


def patch_launcher(text: str, launcher: Path) -> str:
    """The probe copy of fused_moe_gemm_launcher_sm80.inl (see the module docstring)."""
    text = absolutize_includes(text, launcher.parent)
    ns = require(ANCHOR_NAMESPACE.search(text), "namespace ..._oss {", launcher)
    head = require(ANCHOR_LAUNCHER.search(text, ns.end()), f"void {LAUNCHER_NAME}(", launcher)
    for param in TEMPLATE_PARAMS:
        if not re.search(rf"\b{param}\b", text[ns.end() : head.start()]):
            raise PatchError(f"template parameter {param} not found in {launcher}")
    alias = require(ANCHOR_GEMM_TYPE.search(text, head.end()), "using GemmType = ...;", launcher)
    end = require(ANCHOR_BODY_END.search(text, alias.end()), "end of the launcher body", launcher)
    removed = text[alias.end() : end.start()]
    if "run_global<GemmType>" not in removed or "kSmemSize" not in removed:
        raise PatchError(f"run-time part after `using GemmType` looks wrong in {launcher}")
    targs = ", ".join(["GemmType", *TEMPLATE_PARAMS])
    call = (
        "  /* cutlint probe: the run-time part of the launcher is replaced by this report */\n"
        f"  ::cutlint_sm80_probe::touch<{targs}>();"
    )
    return probe_copy(text, HELPERS_HPP, ns.start(), alias.end(), call, end.start())


def parse_output(stdout: str) -> list[dict[str, object]]:
    return read_records(stdout, OUTPUT_TAG)


def _key(rec: dict[str, object]) -> tuple[str, ...]:
    return (
        printed_type(str(rec["element"])),
        printed_type(str(rec["weight"])),
        str(rec["MaxTileM"]),
        str(rec["TileN"]),
        str(rec["TileK"]),
        str(rec["Stages"]),
        printed_type(str(rec["epilogue_tag"])),
    )


@dataclass(frozen=True)
class _Site:
    path: Path
    line: int
    args: tuple[str, ...]


def instantiation_sites(
    generated: Sequence[Path], found: Mapping[Path, Sequence[Instantiation]] | None = None
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
        raise PatchError("no probe report for: " + "; ".join(missing))
    return rows
