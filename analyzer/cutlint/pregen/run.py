"""`pregen`: judge every operation a FlashInfer generator would write, before it writes one.

find_flashinfer(version, wheel_dir)   an installed FlashInfer tree, or the release's wheel
pregen_flashinfer(root, ...)          its operations for an arch, judged, and the blocklist
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Collection
from pathlib import Path

from cutlint import output_target
from cutlint.build_context import BuildInfo, Request
from cutlint.context.resolve import resolve as resolve_context
from cutlint.cutlass.versions import CutlassModel
from cutlint.engine.judge import evaluate_instantiation
from cutlint.engine.options import CheckOptions
from cutlint.engine.run import model_context
from cutlint.engine.selection import Selection
from cutlint.families.base import moe_args
from cutlint.model import ModelContext
from cutlint.model.arch import arch_for
from cutlint.parse import DEFAULT_DEFINES
from cutlint.pregen import blocklist
from cutlint.pregen.convert import instantiation
from cutlint.pregen.gemm_runners import SM120_FAMILY, gemm_runner_tactics, rendered_modules
from cutlint.pregen.records import PregenOperation, PregenResult
from cutlint.pregen.runner import fused_ids, grouped_tactics
from cutlint.producers.cutlass_version import resolve
from cutlint.producers.flashinfer.enumerate import enumerate_operations
from cutlint.producers.flashinfer.jit_build import moe_command
from cutlint.producers.flashinfer.modules import INSTANTIATIONS_DIR
from cutlint.producers.flashinfer.releases import JitModule, flashinfer_releases, known_release
from cutlint.producers.flashinfer.tactics import configs_for, known_versions
from cutlint.producers.flashinfer.wheel import (
    GENERATOR,
    FlashInferError,
    download_wheel,
    load_generator,
)
from cutlint.records import ArchLimits, Instantiation

DIST = "flashinfer-python"
MOE_SOURCES = "csrc/nv_internal/tensorrt_llm"
"""Where FlashInfer 0.5.2's JIT wrote the fused-MoE module's generated files, inside the package
(jit/fused_moe.py: FLASHINFER_CSRC_DIR / nv_internal/tensorrt_llm/cutlass_instantiations/<dev>)."""


def version_of(root: Path) -> str | None:
    """The flashinfer-python version whose files are at `root` (its dist-info)."""
    for dist in importlib.metadata.distributions(path=[str(root)]):
        if dist.metadata["Name"] in (DIST, "flashinfer_python"):
            return dist.version
    return None


def installed() -> tuple[Path, str] | None:
    """The FlashInfer installed in this environment, found without importing it (torch)."""
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return None
    root = Path(str(dist.locate_file("")))
    return (root, dist.version) if (root / "flashinfer" / "jit").is_dir() else None


def find_flashinfer(version: str | None, wheel_dir: Path) -> tuple[Path, str]:
    """The installed FlashInfer when it is `version` (or no version is asked for), else the
    release's wheel, downloaded into `wheel_dir` (pip download --no-deps) and unpacked."""
    here = installed()
    if here is not None and version in (None, here[1]):
        return here
    if version is None:
        raise FlashInferError(f"no {DIST} is installed here; pass --version to download one")
    return download_wheel(version, wheel_dir), version


def _cutlass(root: Path, version: str, override: str | None) -> CutlassModel:
    """As `check` decides it for the release's files; for a release cutlint's table lacks, the
    wheel's own cutlass/version.h."""
    if override is None and version not in flashinfer_releases():
        headers = root / "flashinfer" / "data" / "cutlass" / "include"
        if (headers / "cutlass" / "version.h").is_file():
            return resolve(str(headers), None)
    return resolve(override, version)


def _context(
    root: Path,
    version: str,
    target: ArchLimits,
    dev: str,
    module: JitModule | None,
    cutlass_version: str | None,
) -> ModelContext:
    """The model context `check` gives the files the generator writes: their build context
    resolved (cutlint.context.resolve) from the nvcc command FlashInfer's JIT compiles them with
    (the wheel's include path, whose _build_meta.py and cutlass/version.h say the release and
    CUTLASS; the module's -D flags; the -gencode of the device), at the place 0.5.2's JIT wrote
    them (`flashinfer/data/csrc/nv_internal/tensorrt_llm/cutlass_instantiations/<dev>/`). A
    release cutlint's table lacks has only the wheel's own headers to go by."""
    if module is None:
        return ModelContext(arch=target, cutlass=_cutlass(root, version, cutlass_version))
    path = root / "flashinfer" / "data" / MOE_SOURCES / INSTANTIATIONS_DIR / dev / "x.generated.cu"
    build = resolve_context(
        str(path),
        BuildInfo(command=moe_command(root, module, f"{target.sm}a")),
        Request(gpu=target.name, cutlass_version=cutlass_version),
    )
    if build.release is None:  # a wheel without _build_meta.py: its dist-info says it
        build = resolve_context(
            str(path),
            BuildInfo(command=moe_command(root, module, f"{target.sm}a")),
            Request(gpu=target.name, cutlass_version=cutlass_version, release=version),
        )
    ctx = model_context(str(path), build, CheckOptions())
    assert not isinstance(ctx, str), ctx  # the arch is one of cutlint's (arch_for said so)
    return ctx


def _kernel_name(op: object, inst: Instantiation) -> str:
    """The generator's name for the op (its __repr__), or the macro's arguments where that
    __repr__ fails (0.6.3's and 0.7.2's raise KeyError for SM120 ops: epi_schedule is None)."""
    try:
        return repr(op)
    except Exception:
        return f"{inst.name}({', '.join(inst.args)})" if inst.args else type(op).__name__


def _architectures(dev: str) -> str:
    """What FlashInfer's JIT passes for a module's `<dev>` (jit/fused_moe.py: `"120;120-real"`)."""
    return f"{dev};{dev}-real"


def pregen_flashinfer(
    root: Path,
    version: str | None = None,
    arch: str = "sm_120",
    cutlass_version: str | None = None,
    runners: Collection[str] = blocklist.RUNNERS,
) -> PregenResult:
    """Every operation of the generator at `root` for `arch`, judged as `check` would judge the
    file it writes, MoeGemmRunner's CUTLASS 2.x grouped tactics on the arch, the dense SM120 GEMM
    runners' tactics (on sm_120/sm_121), and the tactic ids to block (considering the `runners`
    that share the fused-MoE ops' keys; the dense runners' keys are their own)."""
    version = version or version_of(root)
    if version is None:
        raise FlashInferError(f"{root}: no {DIST} dist-info says which version this is")
    target = arch_for(arch)
    release = known_release(version)[0]
    # The JIT's module for the device: it has the generator write under cutlass_instantiations/
    # <dev> for "<dev>;<dev>-real" (a 12.1 device: 120) and compiles every file there with its
    # defines (producers/flashinfer/modules.py).
    dev = (release.moe_dev_for(target.sm) if release else None) or str(target.sm)
    architectures = _architectures(dev)
    generated = enumerate_operations(load_generator(root), architectures)
    module = release.jit_module(dev) if release else None
    ctx = _context(root, version, target, dev, module, cutlass_version)
    grouped, notes = grouped_tactics(version, target)
    ops: list[PregenOperation] = []
    for g in generated:
        inst = instantiation(g, f"{INSTANTIATIONS_DIR}/{dev}/{g.file}", DEFAULT_DEFINES)
        result = evaluate_instantiation(inst, ctx, Selection())
        args = moe_args(result)
        tactics = (
            tuple(c.tactic for c in configs_for(args, version))
            if args
            else fused_ids(result, grouped)
        )
        ops.append(PregenOperation(kernel=_kernel_name(g.op, inst), result=result, tactics=tactics))
    modules = None
    if target.sm in SM120_FAMILY:
        modules, render_note = rendered_modules(root, version, target.sm)
        notes += [render_note] if render_note else []
    dense, dense_notes, findings = gemm_runner_tactics(version, target, modules)
    notes += dense_notes
    blocked, withheld = blocklist.select(version, ops, release, grouped, runners, dense)
    if version not in known_versions():
        notes.append(f"FlashInfer {version} is not in cutlint's fused-MoE tactic table: no fused-MoE "
                     "blocklist ids")  # fmt: skip
    if not blocklist.has_loader(root):
        notes.append(f"FlashInfer {version} has no tactics_blocklist.py: it cannot load a "
                     "blocklist (0.7 and later can)")  # fmt: skip
    return PregenResult(
        flashinfer_version=version,
        generator=str(root / (GENERATOR.replace(".", "/") + ".py")),
        arch=target.name,
        architectures=architectures,
        operations=tuple(ops),
        blocked=tuple(blocked),
        withheld=tuple(withheld),
        runner_tactics=tuple(grouped),
        gemm_runner_tactics=tuple(dense),
        findings=tuple(findings),
        notes=tuple(notes),
    )


def write_blocklist(result: PregenResult, root: Path, path: Path, gpu: str | None) -> None:
    """Write FlashInfer's blocklist JSON for `result` to `path` (atomically, like save())."""
    key, fields, _found = blocklist.metadata_fields(root)
    text = blocklist.blocklist_json(
        result.blocked, key, fields, result.flashinfer_version, gpu, result.arch
    )
    inputs = (str(p) for p in root.rglob("*.py")) if root.is_dir() else ()
    output_target.write_text(path, text, inputs, what="the blocklist")
