"""`pregen cutlass-library`: judge every kernel CUTLASS's own generator would write, before it
writes one, and the names that skip the failing ones.

pregen_cutlass_library(root, ...)   the wheel's enumeration for the arches, each kernel's file
                                    parsed and judged as `check` judges it, and the exclusion
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from cutlint import output_target
from cutlint.cutlass.versions import format_version
from cutlint.engine.options import CheckOptions
from cutlint.engine.run import judge_files
from cutlint.model.arch import arch_for
from cutlint.parse.extract import parse_source
from cutlint.pregen.records import (
    FAILING,
    CutlassLibraryKernel,
    CutlassLibraryPregenResult,
    WithheldKernel,
)
from cutlint.producers.cutlass_library.enumerate import Enumeration, enumerate_kernels
from cutlint.producers.cutlass_library.exclusion import SEPARATOR, exclusion
from cutlint.producers.cutlass_library.generate import CutlassLibraryError, include_dir
from cutlint.producers.cutlass_version import resolve
from cutlint.records import FileResult, InstantiationResult, Verdict

FIRST_ARCH_SPECIFIC = 90
"""From sm_90 on, the library's kernels for an arch need its arch-specific target (`90a`,
`100a`, `120a`: wgmma, tcgen05 and SM120's block-scaled MMA); before it, the plain number."""


def cutlass_architectures(arch: str) -> str:
    """The generator's --architectures (CUTLASS_NVCC_ARCHS) for a build that targets `arch`."""
    sm = arch_for(arch).sm
    return f"{sm}a" if sm >= FIRST_ARCH_SPECIFIC else str(sm)


def check_options(root: Path, arch: str, cutlass_version: str | None) -> CheckOptions:
    """What `check` is given for the written build: the arch, and the CUTLASS the wheel carries
    (its headers' version.h) unless another is asked for."""
    return CheckOptions(arch=arch, cutlass_version=cutlass_version or str(include_dir(root)))


def pregen_cutlass_library(
    root: Path,
    version: str,
    arch: str = "sm_120",
    architectures: str | None = None,
    kernels: str = "",
    cutlass_version: str | None = None,
) -> CutlassLibraryPregenResult:
    """Every kernel the generator at `root` (an unpacked nvidia-cutlass `version`) keeps for
    `architectures` (default: `arch`'s, e.g. 120a) and the `kernels` filter, judged for `arch`
    exactly as `check` judges the files it would write, and the exclusion of the failing ones."""
    architectures = architectures or cutlass_architectures(arch)
    options = check_options(root, arch, cutlass_version)
    found = enumerate_kernels(root, architectures, kernels)
    judged = _judge(found, options)
    by_path = {f.path: f for f in judged}
    per_file = Counter(k.path for k in found.kernels)
    out = [
        _kernel(k.name, k.path, by_path[k.path], _mine(k.name, per_file[k.path], by_path[k.path]))
        for k in found.kernels
    ]
    failing = [k.name for k in out if k.fails]
    skip = exclusion(failing, [k.name for k in found.kernels])
    model = resolve(options.cutlass_version, None)
    return CutlassLibraryPregenResult(
        cutlass_library_version=version,
        arch=arch_for(arch).name,
        architectures=architectures,
        kernel_filter=kernels,
        cutlass=f"CUTLASS {format_version(model.version)} ({model.origin})",
        kernels=tuple(out),
        exclusion=skip.patterns,
        withheld=tuple(WithheldKernel(name=n, reason=r) for n, r in skip.withheld),
        notes=_notes(architectures),
    )


def _judge(found: Enumeration, options: CheckOptions) -> list[FileResult]:
    """Each kernel file parsed from its text at the path it would have, then judged by the
    engine `check` runs (`judge_files`, with the same options)."""
    paths = list(dict.fromkeys(k.path for k in found.kernels))
    parsed = [
        parse_source(p, found.files[p].encode(), options.defines, options.undefines) for p in paths
    ]
    result = judge_files(parsed, options)
    judged = {f.path: f for f in result.files}
    missing = [p for p in paths if p not in judged]
    if missing:
        raise CutlassLibraryError(f"{missing[0]}: its kernel file was read as no kernel file")
    return [judged[p] for p in paths]


def _mine(name: str, kernels: int, file: FileResult) -> tuple[InstantiationResult, ...]:
    """The instantiations of `file` (which holds `kernels` kernels) that are kernel `name`: all
    of them when it holds one (cutlass_library writes a file a configuration, and a 120a build
    has one kernel a configuration), else those whose alias chain names it."""
    if kernels == 1:
        return file.instantiations
    return tuple(
        r
        for r in file.instantiations
        if any(a.name.startswith(name) for a in r.instantiation.chain)
    )


_ORDER = (
    Verdict.FAILS_COMPILE,
    Verdict.FAILS_INITIALIZE,
    Verdict.UNREACHABLE,
    Verdict.FAILS_RUN,
    Verdict.NOT_MODELED,
    Verdict.ZERO_SLACK,
    Verdict.FITS,
    Verdict.INACTIVE,
)
"""Which verdict a kernel of several instantiations gets: the first of these any of them has."""


def _kernel(
    name: str, path: str, file: FileResult, results: Sequence[InstantiationResult]
) -> CutlassLibraryKernel:
    diagnostics = [d for r in results for d in r.diagnostics] + list(file.diagnostics)
    rules = tuple(dict.fromkeys(d.rule for d in diagnostics))
    if not results:
        why = file.diagnostics[0].message if file.diagnostics else "no instantiation read"
        return CutlassLibraryKernel(
            name=name, path=path, verdict=Verdict.NOT_MODELED, rules=rules, why=why,
            diagnostics=file.diagnostics,
        )  # fmt: skip
    worst = min(results, key=lambda r: _ORDER.index(r.verdict))
    return CutlassLibraryKernel(
        name=name,
        path=path,
        verdict=worst.verdict,
        rules=rules,
        why=_why(worst),
        results=tuple(results),
        diagnostics=file.diagnostics,
    )


def _why(r: InstantiationResult) -> str:
    """The first finding of a failing verdict, else the reason it is not modeled, else none."""
    if r.verdict in FAILING:
        for d in r.diagnostics:
            return f"{d.message}; {d.why}" if d.why else d.message
    if r.not_modeled is not None:
        return r.not_modeled.reason
    return r.diagnostics[0].message if r.diagnostics else ""


def _notes(architectures: str) -> tuple[str, ...]:
    return (
        "--ignore-kernels (CUTLASS_LIBRARY_IGNORE_KERNELS) acts only with a --kernels filter "
        "(CUTLASS_LIBRARY_KERNELS); --exclude-kernels (CUTLASS_LIBRARY_EXCLUDE_KERNELS) always "
        "does (manifest.py, Manifest.filter)",
        f"the names skip these kernels in a build for {architectures!r} with the same --kernels: "
        "2.x kernel names carry no arch, so another arch's build loses them too",
    )


def write_ignore(result: CutlassLibraryPregenResult, path: Path) -> None:
    """Write the exclusion as the generator's `--ignore-kernels`/`--exclude-kernels` and CMake's
    CUTLASS_LIBRARY_IGNORE_KERNELS/EXCLUDE_KERNELS take it: one line of comma-separated names
    (an empty file when nothing fails), atomically."""
    text = SEPARATOR.join(result.exclusion)
    output_target.write_text(path, text + "\n" if text else "", what="the exclusion")
