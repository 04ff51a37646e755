"""What `cutlint verify` found: per instantiation, the model's numbers beside the compiler's.

Pure data, frozen like every record of the pipeline, so that the text and JSON renderings are
computed from one result and cannot drift apart.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from cutlint.records import Diagnostic, Instantiation, Recipe, Resources
from cutlint.verify.nvcc_probe import ProbeRow


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Numbers(_Record):
    """The quantities compared, in the names of check's JSON."""

    stages: int = Field(description="CollectiveMainloop::DispatchPolicy::Stages")
    smem_bytes: int = Field(description="GemmKernel::SharedStorageSize")
    mainloop_smem_bytes: int = Field(description="sizeof(CollectiveMainloop::SharedStorage)")
    epilogue_smem_bytes: int = Field(description="sizeof(CollectiveEpilogue::SharedStorage)")
    max_threads_per_block: int = Field(description="GemmKernel::MaxThreadsPerBlock")

    @classmethod
    def of_model(cls, r: Resources) -> Numbers:
        return cls(
            stages=r.stage_count.stages,
            smem_bytes=r.layout.size,
            mainloop_smem_bytes=r.layout.mainloop_size,
            epilogue_smem_bytes=r.layout.epilogue_size,
            max_threads_per_block=r.max_threads_per_block,
        )


class CompilerNumbers(Numbers):
    """The compiler's answer, with what it told besides the compared numbers."""

    kernel_align: int = Field(description="alignof(GemmKernel::SharedStorage)")
    members: dict[str, int] = Field(
        default_factory=dict, description="offsets and sizes of SharedStorage members"
    )
    unmeasured: tuple[str, ...] = Field(
        default=(),
        description="compared fields the probe does not measure (their numbers mean nothing)",
    )

    def measured(self, name: str) -> int | None:
        """The compiler's number for a compared field, or None where the probe did not measure it."""
        return None if name in self.unmeasured else int(getattr(self, name))

    @classmethod
    def of_row(cls, row: ProbeRow) -> CompilerNumbers:
        return cls(
            stages=row.stages,
            smem_bytes=row.kernel_smem,
            mainloop_smem_bytes=row.mainloop_smem,
            epilogue_smem_bytes=row.epilogue_smem,
            max_threads_per_block=row.max_threads_per_block,
            kernel_align=row.kernel_align,
            members=dict(row.members),
            unmeasured=tuple(row.unmeasured),
        )


COMPARED = tuple(Numbers.model_fields)
"""The fields compared, in table order."""


class Difference(_Record):
    field: str
    model: int
    compiler: int

    @property
    def delta(self) -> int:
        """compiler - model: positive when the model under-counts."""
        return self.compiler - self.model


def differences(model: Numbers, compiler: Numbers) -> tuple[Difference, ...]:
    """The compared fields where the numbers differ; a field the compiler's probe does not
    measure (CompilerNumbers.unmeasured) is not compared."""
    skip = compiler.unmeasured if isinstance(compiler, CompilerNumbers) else ()
    return tuple(
        Difference(field=f, model=getattr(model, f), compiler=getattr(compiler, f))
        for f in COMPARED
        if f not in skip and getattr(model, f) != getattr(compiler, f)
    )


class Status(StrEnum):
    AGREE = "agree"
    DISAGREE = "disagree"
    NOT_MODELED = "not modeled"
    INACTIVE = "inactive (#if)"
    NO_BACKEND = "no compiler backend"
    ERROR = "compiler error"


class Verified(_Record):
    """One instantiation: the model's numbers, the compiler's, and whether they agree."""

    instantiation: Instantiation
    recipe: SerializeAsAny[Recipe] | None = Field(
        default=None, description="the claiming family's recipe, as check read it"
    )
    flashinfer_version: str | None
    status: Status
    model: Numbers | None = None
    compiler: CompilerNumbers | None = None
    differences: tuple[Difference, ...] = ()
    note: str | None = Field(default=None, description="why not compared, or the compiler error")
    cached: bool = Field(default=False, description="the compiler's numbers came from the cache")

    @property
    def agree(self) -> bool:
        return self.status is Status.AGREE


class FileRun(_Record):
    """One generated file: compiled or read from the cache."""

    path: str
    flashinfer_version: str | None
    headers: str | None = Field(default=None, description="the FlashInfer root compiled against")
    instantiations: int
    compiled: bool = Field(description="nvcc ran for this file in this run")
    seconds: float | None = Field(default=None, description="wall time of the compile, link, run")
    cublas: str | None = Field(default=None, description="real cuBLAS header dir, or `shim`")
    error: str | None = None


class VerifyResult(_Record):
    instantiations: tuple[Verified, ...]
    files: tuple[FileRun, ...]
    nvcc: str | None = Field(
        default=None, description="the backend's release: `nvcc --version`'s, e.g. 13.0.88"
    )
    backend: str = Field(default="nvcc", description="`nvcc` (compile and run) or `libclang`")
    input_diagnostics: tuple[Diagnostic, ...] = Field(
        default=(), description="check's file-level diagnostics: input that could not be read"
    )
    seconds: float = Field(description="wall time of the whole run")

    def count(self, status: Status) -> int:
        return sum(1 for v in self.instantiations if v.status is status)

    @property
    def compared(self) -> int:
        return self.count(Status.AGREE) + self.count(Status.DISAGREE)
