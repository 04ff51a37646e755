"""What every family's model needs besides the recipe: the target arch, the CUTLASS version, the
producer release that wrote the file (its dispatch lists, its macro's parameter list) and, for a
file of a FlashInfer JIT cache, the module that compiles it with its defines."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from cutlint.build_context import BuildContext
from cutlint.cutlass.versions import CutlassModel
from cutlint.producers.flashinfer.releases import FlashInferRelease, JitModule
from cutlint.records import ArchLimits


@dataclass(frozen=True)
class ModelContext:
    arch: ArchLimits
    cutlass: CutlassModel
    flashinfer: FlashInferRelease | None = None
    module: JitModule | None = None
    """The FlashInfer JIT module that compiles the file (producers/flashinfer/modules.py), when
    its path says (`cutlass_instantiations/<dev>/`)."""
    defines: frozenset[str] = field(default_factory=frozenset)
    """The macro names defined when `module` compiles the file (its -D flags, the user's -D
    beyond the defaults, less -U; nothing without a module) and those the file itself #defines
    before its includes (ParsedFile.defines)."""
    arch_assumed: bool = False
    """The target is cutlint's default (no --arch, and the path names no arch): a kernel of
    another arch is then not judged as unable to run, since the target was never said."""
    cannot_load: str | None = None
    """Why the file's binary has no code the target can run (its compile target, read off the
    path, is another arch's): every kernel in it fails at launch (class E)."""
    binary_for_gpu: bool | None = None
    """Whether the build's code objects for the file load on the target GPU (cutlint.context:
    the compile command's targets); None when the targets are unknown."""
    not_for_gpu: str | None = None
    """Why the target GPU never runs the file's code (the build's targets do not load on it):
    its kernels are "not for this GPU", never failures."""
    guessed: tuple[tuple[str, str], ...] = ()
    """What a failure verdict would rest on that was only guessed (read off the path or
    defaulted): (field, what was assumed and the flag that settles it); `gpu` decides every
    verdict, `cutlass` those of the resource model. A failure becomes "context unknown"."""
    build: BuildContext | None = None
    """The resolved build context, every field with its origin (for the reports)."""

    @cached_property
    def key(self) -> tuple[object, ...]:
        """What distinguishes two contexts for the per-run memo (engine.judge)."""
        release = self.flashinfer.version if self.flashinfer else None
        module = self.module.dev if self.module else None
        return (
            self.arch.name,
            self.cutlass.version,
            self.cutlass.origin,
            release,
            module,
            tuple(sorted(self.defines)),
            # where the -D list was read: a compiled-out verdict names it
            self.build.defines.where if self.build and self.build.defines else None,
            self.cannot_load,
            self.arch_assumed,
            self.binary_for_gpu,
            self.not_for_gpu,
            self.guessed,
        )
