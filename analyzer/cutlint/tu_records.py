"""The records of a translation unit read as its build compiles it (`cutlint tu`).

Kept beside `records.py` rather than in it, as the side inputs keep their records: the front end
(`cutlint.parse.tu`) makes them, `cutlint.engine.tu_judge` judges them, the reporters print them.
"""

from __future__ import annotations

import json

from pydantic import Field, ValidationError

from cutlint.records import Record


class CompileCommand(Record):
    """One translation unit's compile command, as clang takes it."""

    file: str = Field(description="the `.cu` file, absolute")
    args: tuple[str, ...] = Field(description="clang arguments, without the file")
    arches: tuple[str, ...] = Field(
        description="the device targets the command builds: sm_120a, ..."
    )
    origin: str = Field(description="where the command came from: a compile database or flags")


class CallSite(Record):
    """One step of the path from an entry point to the line that chose a kernel."""

    path: str
    line: int
    call: str = Field(description="the call as written, template arguments substituted")
    conditions: tuple[str, ...] = Field(
        default=(), description="the branch conditions around the call, innermost last"
    )


class TuBuilt(Record):
    """What a kernel was built from, as clang resolved it: the CollectiveBuilders whose
    `CollectiveOp` are its mainloop and epilogue (canonical spellings, every argument resolved)
    and `GemmUniversal`'s other arguments. What families claim (`cutlint.parse.tu.forms`)."""

    mainloop_builder: str | None = Field(
        description="`cutlass::gemm::collective::CollectiveBuilder<...>`; None: not found"
    )
    epilogue_builder: str | None = Field(
        description="`cutlass::epilogue::collective::CollectiveBuilder<...>`; None: not found"
    )
    problem_shape: str | None = Field(description="GemmKernel::ProblemShape")
    tile_scheduler: str | None = Field(description="GemmKernel::TileSchedulerTag")
    scale_granularity: tuple[int, int, int] | None = Field(
        default=None,
        description="a blockwise mainloop's ScaleGranularityM, N, K (CollectiveMma's members)",
    )
    visitor_kernel: tuple[str, ...] | None = Field(
        default=None,
        description="a CUTLASS 2.x kernel with an epilogue visitor (GemmWithEpilogueVisitor):"
        " its parts as DefaultGemmUniversal's 20 arguments, then its EpilogueVisitor",
    )


class TuKernel(Record):
    """A CUTLASS kernel type the translation unit instantiates, with libclang's own numbers."""

    paths: tuple[tuple[CallSite, ...], ...] = Field(
        description="each dispatch path that reaches it: entry point first, the call whose"
        " template argument is the kernel last"
    )
    paths_omitted: int = Field(
        default=0,
        description="dispatch paths to it beyond the first 32 (parse/tu/front.py MAX_PATHS):"
        " counted, not listed",
    )
    type_expr: str = Field(description="the type as written on the first path, fully qualified")
    kernel_type: str = Field(description="libclang's canonical spelling of the kernel type")
    shared_storage: int | None = Field(
        description="sizeof(GemmKernel::SharedStorage): measured (libclang), not explained"
    )
    stages: int | None = Field(description="CollectiveMainloop::DispatchPolicy::Stages")
    tile: str | None = Field(description="the kernel's TileShape, MxNxK")
    cluster: str | None = Field(description="the kernel's ClusterShape, MxNxK")
    dispatch_policy: str | None = Field(description="the mainloop's DispatchPolicy type")
    elements: str | None = Field(description="ElementA x ElementB -> ElementD")
    max_threads: int | None = Field(description="GemmKernel::MaxThreadsPerBlock")
    compile_error: str | None = Field(
        default=None, description="the error clang reports instantiating it (a static_assert)"
    )
    built: TuBuilt | None = Field(
        default=None, description="the builders that made it, where clang's sugar names them"
    )

    @property
    def chosen_by(self) -> CallSite:
        """The source line that chose it (on the first path)."""
        return self.paths[0][-1]

    def conditions(self, path: tuple[CallSite, ...]) -> tuple[str, ...]:
        """The branch conditions of one path, outermost first."""
        return tuple(c for site in path for c in site.conditions)


class TuRead(Record):
    """Everything the front end found in one translation unit for one device target."""

    command: CompileCommand
    arch: str = Field(description="the device target the numbers are for: sm_120a")
    kernels: tuple[TuKernel, ...]
    missing_headers: tuple[str, ...] = Field(
        description="headers the TU includes that were not found: replaced by empty stubs"
    )
    unresolved: tuple[str, ...] = Field(
        default=(), description="calls whose template arguments could not be decided, and why"
    )
    seconds: float = Field(description="wall time of the read (0 when answered from the cache)")
    cached: bool = False


class TuFinding(Record):
    rule: str = Field(description="CUT211 ...")
    name: str
    severity: str
    message: str


class TuPart(Record):
    """One top-level member of the modeled `SharedStorage` (its members summed)."""

    name: str = Field(description="`mainloop`, `epilogue`, `pipelines`, ... as the family names it")
    offset: int
    size: int


class TuModel(Record):
    """A family's model of a TU kernel beside clang's measurement (`engine/tu_model.py`)."""

    family: str = Field(description="the family that claimed the kernel's builder chain")
    title: str = Field(default="", description="the family's one-line title of the recipe")
    reason: str | None = Field(
        default=None, description="why the family does not compute it (outside its model)"
    )
    shared_storage: int | None = Field(
        default=None, description="the modeled sizeof(GemmKernel::SharedStorage)"
    )
    stages: int | None = Field(default=None, description="the modeled stage count")
    stage_formula: str = Field(default="", description="the builder's stage arithmetic, in words")
    parts: tuple[TuPart, ...] = Field(default=(), description="the modeled byte breakdown")

    def equals(self, kernel: TuKernel) -> bool | None:
        """Whether the model equals clang's layout (bytes and stages); None: nothing to compare."""
        if self.shared_storage is None or kernel.shared_storage is None:
            return None
        return self.shared_storage == kernel.shared_storage and (
            kernel.stages is None or self.stages == kernel.stages
        )


class TuVerdict(Record):
    kernel: TuKernel
    arch: str
    smem_optin: int
    verdict: str = Field(description="fits / fails initialize() / does not compile / unknown")
    findings: tuple[TuFinding, ...] = ()
    model: TuModel | None = Field(
        default=None,
        description="the family's model where a family claims the kernel; None: measured, not "
        "explained",
    )


class TuReportError(ValueError):
    """A saved `cutlint tu --format json` report that cannot be read back."""


def reads_from_report(text: str) -> tuple[TuRead, ...]:
    """The reads of a saved `cutlint tu --format json` report (a list of `{"read": ...,
    "verdicts": ...}`; the verdicts are judged again by whoever reads it, for its own GPU).
    Raises TuReportError for anything else."""
    try:
        data = json.loads(text)
        if not isinstance(data, list):
            raise TuReportError("not a list of reads (the output of `cutlint tu --format json`)")
        return tuple(TuRead.model_validate(entry["read"]) for entry in data)
    except (ValueError, KeyError, TypeError, ValidationError) as e:
        if isinstance(e, TuReportError):
            raise
        raise TuReportError(f"not a `cutlint tu --format json` report: {e}") from e


class TuNvccCheck(Record):
    """One kernel's libclang numbers against nvcc's host pass (`cutlint tu --verify`)."""

    type_expr: str
    arch: str
    shared_storage: int | None = Field(description="libclang's sizeof(SharedStorage)")
    stages: int | None = Field(description="libclang's DispatchPolicy::Stages")
    nvcc_shared_storage: int | None = Field(
        description="nvcc's sizeof(GemmKernel::SharedStorage); None: nvcc printed no row"
    )
    nvcc_shared_storage_size: int | None = Field(description="nvcc's GemmKernel::SharedStorageSize")
    nvcc_stages: int | None = Field(description="nvcc's DispatchPolicy::Stages")
    cached: bool = Field(default=False, description="nvcc's numbers came from cutlint's cache")

    @property
    def agrees(self) -> bool:
        return (
            self.nvcc_shared_storage is not None
            and self.nvcc_shared_storage == self.shared_storage
            and (self.stages or 0) == self.nvcc_stages
        )


class TuJudged(Record):
    """One translation unit read for one target, with its kernels judged."""

    read: TuRead
    verdicts: tuple[TuVerdict, ...]


class TuSection(Record):
    """What `check -p BUILD_DIR [--tu]` adds to a report: the compile database's translation
    units whose kernels only the TU front end finds, read (`--tu`) or counted. Every output
    format renders it (`cutlint.report`)."""

    database: str = Field(description="the build directory or compile database given with -p")
    found: int = Field(
        description="the database's TUs among the checked files holding builder code"
    )
    read: bool = Field(description="whether they were read (`--tu`); False: only counted")
    gpu: str | None = Field(default=None, description="the GPU judged for (`--arch`), as given")
    units: tuple[TuJudged, ...] = Field(default=(), description="the TUs read, in order")
    not_for_gpu: tuple[str, ...] = Field(
        default=(), description="TUs not read: no target of their command loads on the GPU"
    )

    def verdicts(self) -> list[TuVerdict]:
        return [v for u in self.units for v in u.verdicts]

    def fails(self) -> bool:
        """Whether a kernel fails (an error finding: CUT211)."""
        return any(f.severity == "error" for v in self.verdicts() for f in v.findings)
