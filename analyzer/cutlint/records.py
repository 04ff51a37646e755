"""The records that flow between the pipeline stages: parse -> model -> rules -> report.

Every record is a frozen pydantic model, so a stage can hand its output on without fearing that a
later stage edits it, and every record serializes to JSON the same way for every reporter.
"""

# No `from __future__ import annotations` here: pydantic reads each field's annotation when its
# class is made, and a string one it must first compile and evaluate. Annotations that Python
# made itself cut the records' import by a fifth (36 -> 28 ms, medians of interleaved runs on
# the 2-core machine), in every command that judges; the one forward reference is quoted.
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from cutlint.build_context import BuildContext


class Record(BaseModel):
    """Base of all records: frozen, no unknown fields.

    `defer_build`: a record's validator is built when the record is first made, not when its
    class is defined, so a run builds only the records it uses (`cutlint --version` none, and
    `check` not the explain, pregen and verify records): this halves start-up."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


# --- parse -------------------------------------------------------------------------------------


class SourceSpan(Record):
    path: str
    line: int = Field(description="1-based line of the first token")
    column: int = Field(description="1-based column of the first token")
    end_line: int = Field(description="1-based line of the last token (the closing parenthesis)")


class Shape3(Record):
    m: int
    n: int
    k: int

    def __str__(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


class FormKind(StrEnum):
    """The source form an instantiation is written in: syntax only, no meaning yet.

    Which kernel family a form is, is decided later by the family registry
    (cutlint.families.registry), not by the parser.
    """

    MACRO_CALL = "macro_call"
    """`INSTANTIATE_...(...)`: a producer's instantiation macro (FlashInfer / TensorRT-LLM)."""
    EXPLICIT_INSTANTIATION = "explicit_instantiation"
    """`template <type> <launcher><...>(...);` (SM80 fused MoE, SM90 mixed input, ...)."""
    TYPE_ALIAS = "type_alias"
    """`using NAME = [typename] cutlass::...::kernel::TEMPLATE<...>[::Member];`: a kernel defined as
    a type from a chain of aliases (cutlass_library, hand-written CollectiveBuilder code)."""


class ElementType(StrEnum):
    """Element types in CUTLASS's own short names (cutlass_library's DataTypeNames)."""

    E2M1 = "e2m1"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"


class Fusion(StrEnum):
    """TensorRT-LLM's `EpilogueFusion`."""

    NONE = "NONE"
    FINALIZE = "FINALIZE"
    ACTIVATION = "ACTIVATION"


class Guard(Record):
    """The preprocessor condition that decides whether an instantiation is compiled."""

    text: str = Field(description="the condition as written, e.g. `defined(ENABLE_FP4)`")
    active: bool = Field(description="whether the condition holds for the define set in force")


class MoeGemmArgs(Record):
    """The 17 arguments of `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`, typed.

    Element types are None when the spelling is not one cutlint knows; the raw spelling is kept
    in `Instantiation.args`.
    """

    arch_tag: str = Field(description="`Sm120`, `Sm100`, ... as written")
    sm: int | None = Field(description="the compute capability the arch tag names, e.g. 120")
    act_type: ElementType | None
    weight_type: ElementType | None
    output_type: ElementType | None
    epilogue_schedule: str
    epilogue_tag: str
    fusion: Fusion | None
    cta_tile: Shape3
    cluster: Shape3
    mxfpx: bool
    dynamic_cga: bool
    bias: bool
    swap_ab: bool


class TypeAlias(Record):
    """`using NAME = [typename] TARGET[<ARGS>][::MEMBER];`, or `struct NAME : public TARGET {};`,
    at namespace scope: one link of a kernel's alias chain, as written."""

    name: str
    target: str = Field(description="the aliased type's qualified name, spaces removed")
    args: tuple[str, ...] | None = Field(
        description="its template arguments, whitespace-normalized; None when it is no template-id"
    )
    member: str | None = Field(description="`CollectiveOp`, `GemmKernel`, ... after the `>::`")
    line: int


class Instantiation(Record):
    """One instantiation found in a source file, whether or not a family claims it.

    A source form: what the file says. Its meaning (the kernel family and the typed recipe) is
    given by the family that claims it (cutlint.families).
    """

    span: SourceSpan
    form: FormKind
    name: str = Field(description="macro or launcher name")
    args: tuple[str, ...] = Field(description="arguments as written, whitespace-normalized")
    guard: Guard | None = Field(default=None, description="innermost enclosing #if, if any")
    chain: tuple[TypeAlias, ...] = Field(
        default=(),
        description="a TYPE_ALIAS kernel's alias (first) and every alias in the file its "
        "definition refers to, transitively, in file order",
    )
    parameters: tuple[str, ...] | None = Field(
        default=None,
        description="a macro call's parameter names, from the `#define` the file or a header it "
        "includes (found beside it) gives; None: no definition found (or two that differ)",
    )
    defined_at: str | None = Field(
        default=None, description="`path:line` of that `#define`, when found"
    )

    def alias(self, name: str) -> TypeAlias | None:
        """The alias of this kernel's chain that `name` names (an argument as written)."""
        return next((a for a in self.chain if a.name == name.strip()), None)


class Recipe(Record):
    """What a kernel family builds from one instantiation: the CUTLASS types it chooses, typed.

    Each family subclasses it (its own fields, `family` fixed to its name); the engine and the
    reporters handle any recipe through its family (cutlint.families.registry.family_of).
    """

    family: str = Field(description="the name of the family that claimed the instantiation")


class MoeGemmRecipe(Recipe):
    """A `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM` call read by a family that builds it."""

    args: MoeGemmArgs


class InputProblem(Record):
    """Something in the input that cutlint could not read. Becomes a CUT0xx diagnostic."""

    code: str = Field(description="the CUT0xx rule id")
    path: str
    line: int | None = None
    message: str
    guard: str | None = Field(
        default=None,
        description="for an `#error` in compiled code: the `#if` conditions it stands under, "
        "joined by `&&` (the build context decides it per target: engine/error_guards.py)",
    )


class CapabilityBranch(Record):
    """One branch of a dispatch on the device's compute capability (`if (version_num >= 120)`)."""

    line: int
    condition: str = Field(description="the `if` condition as written")
    low: int | None = Field(description="lowest capability it takes (XY, inclusive); None: any")
    high: int | None = Field(description="first capability above it (exclusive); None: none")
    call: str = Field(description="the first function the branch calls, or empty")
    guard: Guard | None = Field(default=None, description="the innermost `#if` around it")


class CapabilityDispatch(Record):
    """A function that picks its kernel by compute capability and fails when no branch takes
    the device (vLLM's `cutlass_scaled_mm`: "No compiled cutlass_scaled_mm for CUDA device
    capability: 120"); parse/dispatch.py."""

    path: str
    function: str
    line: int = Field(description="the line of the failure statement")
    message: str = Field(
        description="the failure's string literals, joined; `{}` where it prints a value"
    )
    branches: tuple[CapabilityBranch, ...]


class ParsedFile(Record):
    path: str
    generated_for_sm: int | None = Field(
        default=None, description="the arch the file was generated for, from its path or name"
    )
    flashinfer_version: str | None = Field(
        default=None, description="FlashInfer version read off a JIT cache path, if any"
    )
    instantiations: tuple[Instantiation, ...] = ()
    problems: tuple[InputProblem, ...] = ()
    skipped: bool = Field(
        default=False,
        description="a FlashInfer JIT source that holds no CUTLASS GEMM instantiation (an "
        "attention or norm module's kernel, a binding): not an instantiation file, counted apart",
    )
    defines: tuple[str, ...] = Field(
        default=(),
        description="macros the file itself #defines outside every #if (the headers it includes "
        "after them see them)",
    )
    dispatches: tuple[CapabilityDispatch, ...] = Field(
        default=(), description="its dispatches on the device's compute capability"
    )


# --- model -------------------------------------------------------------------------------------


class Region(Record):
    """One member of a struct as the compiler lays it out: where it starts, how big it is."""

    name: str = Field(description="member path, e.g. `tensors.mainloop.smem_A`")
    offset: int
    size: int
    align: int
    source: str = Field(description="the CUTLASS header and symbol this member mirrors")
    derived_from: tuple[str, ...] = Field(
        default=(),
        description="the quantities its size is derived from (`builder.stages`, "
        "`builder.term.A`, `epilogue.tile`, `input.tile`, ...): the derivation graph's edges",
    )


class StageTerm(Record):
    """One term of the builder's stage-count arithmetic."""

    name: str
    bytes: int
    source: str
    derived_from: tuple[str, ...] = Field(
        default=(), description="the quantities it is derived from (`input.tile`, ...)"
    )


class StageCount(Record):
    """The stage count as the CollectiveBuilder of the modeled CUTLASS version computes it.

    One word per quantity, the same in the text, the rules and the JSON:
    `capacity` - `reserved` (the builder's up-front reductions) - `carveout` = `stage_budget`;
    `stages` = stage_budget / `stage_bytes`; the builder's `estimate` of the kernel's shared
    memory is reserved + carveout + stages x stage_bytes.
    """

    stages: int
    capacity: int = Field(description="the capacity the builder starts from (bytes)")
    reductions: tuple[StageTerm, ...] = Field(description="what the builder subtracts up front")
    carveout: int = Field(description="StageCountAutoCarveout bytes (0 for StageCountAuto)")
    stage_budget: int = Field(description="capacity - reserved - carveout: the bytes for stages")
    per_stage: tuple[StageTerm, ...] = Field(description="what the builder counts per stage")
    stage_bytes: int
    formula: str = Field(description="the builder function this mirrors")
    capacity_source: str = Field(
        default="", description="the CUTLASS header and symbol the capacity comes from"
    )
    fixed: bool = Field(
        default=False, description="StageCount<N>: the stages are given, not computed"
    )
    carveout_derived_from: tuple[str, ...] = Field(
        default=(), description="the quantities the carveout is derived from"
    )

    @property
    def reserved(self) -> int:
        """The builder's up-front reductions, in bytes."""
        return sum(r.bytes for r in self.reductions)

    @property
    def estimate(self) -> int:
        """What the builder believes the kernel needs: reserved + carveout + stages x stage_bytes."""
        return self.reserved + self.carveout + self.stages * self.stage_bytes


class EpilogueTile(Record):
    """The epilogue's subtile and buffer counts, as the epilogue builder picks them.

    Kept on Resources so that an explanation can name these intermediate quantities (the carveout
    and the C/D buffers are built from them) without running the model again.
    """

    m: int = Field(description="epilogue subtile M (EpilogueTileAuto)")
    n: int = Field(description="epilogue subtile N")
    stages_c: int = Field(description="StagesC: C buffers (and the epi_load pipeline depth)")
    stages_d: int = Field(description="StagesD: D buffers")
    reuse_smem_c: bool = Field(description="ReuseSmemC: C and D share one union of buffers")
    swizzle_align: int = Field(description="alignment of the C/D smem layout's swizzle atom")
    swizzle_align_c: int | None = Field(
        default=None,
        description="alignment of the C buffers' swizzle atom where it differs from D's "
        "(None: the same as swizzle_align)",
    )
    source: str
    derived_from: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="for each of tile, stages_c, stages_d, swizzle: the quantities it comes from",
    )


class RegisterPlan(Record):
    """How the kernel divides the register file between its warp groups (setmaxnreg)."""

    accumulator_registers: int = Field(
        description="RegsPerThread: accumulator registers per MMA thread"
    )
    reconfigured: bool = Field(description="whether the load / MMA warp groups call setmaxnreg")
    load_warpgroup_registers: int | None = Field(
        description="LoadRegisterRequirement, when reconfigured"
    )
    mma_warpgroup_registers: int | None = Field(
        description="MmaRegisterRequirement, when reconfigured"
    )
    block_registers: int | None = Field(
        description="registers the block holds after the split, when reconfigured"
    )
    source: str


class RegisterUse(Record):
    """Registers per thread a kernel runs with, and where the number comes from."""

    per_thread: int | None = Field(
        description="registers per thread the block launches with (None: not decidable here)"
    )
    cap: int = Field(description="the per-thread cap ptxas compiles the kernel under")
    cap_derivation: str = Field(description="how the cap follows from __launch_bounds__")
    block: int | None = Field(
        description="registers allocated to the block at launch: per warp, rounded up to the "
        "allocation unit, times its warps (None: per_thread not decidable)"
    )
    origin: str = Field(description="`model`, `cubin` (read from a built binary) or `ptxas`")
    source: str
    spill_stores: int | None = Field(
        default=None,
        description="bytes ptxas spills to local memory (None: not measured; only ptxas says)",
    )
    spill_loads: int | None = Field(default=None, description="bytes ptxas loads back from spills")
    stack_frame: int | None = Field(default=None, description="the kernel's stack frame (bytes)")
    measured: str | None = Field(
        default=None,
        description="where measured numbers come from and which kernels they are (None: the "
        "model alone)",
    )


class Occupancy(Record):
    """Active blocks per SM, as cudaOccupancyMaxActiveBlocksPerMultiprocessor computes them."""

    blocks_per_sm: int | None = Field(
        description="the active blocks per SM (None: registers per thread not decidable)"
    )
    at_most: int = Field(description="the least of the limits that are decided")
    by_warps: int
    by_blocks: int
    by_smem: int
    by_registers: int | None
    limited_by: tuple[str, ...] = Field(description="the limits equal to at_most")
    smem_allocated: int = Field(
        description="static + dynamic + reserved shared memory per block, rounded up to the "
        "allocation unit"
    )
    derivation: str


class TmaDescriptor(Record):
    """One operand's TMA tensor map, as far as the instantiation decides it (cutlint.cutlass.tma)."""

    operand: str = Field(description="`A`, `B`")
    element: str = Field(description="the element type as written")
    element_bits: int
    alignment_bytes: int | None = Field(
        description="what the kernel promises of the leading dimension: alignment x element "
        "width (None: not an integer in the source)"
    )
    required_bytes: int = Field(
        description="the global-stride alignment TMA and the builder require (16; 64 / 96 for "
        "mxf8f6f4 sub-byte operands)"
    )
    swizzle_bytes: int | None = Field(
        description="the smem layout atom's swizzle (128, 64, 32; 0 interleaved; None: not modeled)"
    )
    inner_box: int | None = Field(
        description="the box's extent along the contiguous dimension, in elements (None: not "
        "modeled); at most 256 and, swizzled, at most the swizzle's bytes"
    )
    source: str


class TmaPlan(Record):
    """The kernel's TMA descriptors: the mainloop operands' and where all of them live."""

    descriptors: tuple[TmaDescriptor, ...]
    placement: str = Field(description="kernel parameters, or global/shared memory (ptr-array)")
    param_bytes: int | None = Field(
        description="bytes of the parameter space the descriptors take (None: not there)"
    )
    param_limit: int = Field(description="the kernel parameter space (bytes)")
    derivation: str


class SmemLayout(Record):
    """The kernel's `SharedStorage` as the compiler lays it out."""

    regions: tuple[Region, ...]
    size: int = Field(description="sizeof(GemmKernel::SharedStorage) = SharedStorageSize")
    align: int = Field(description="alignof(GemmKernel::SharedStorage)")
    mainloop_size: int = Field(description="sizeof(CollectiveMainloop::SharedStorage)")
    epilogue_size: int = Field(description="sizeof(CollectiveEpilogue::SharedStorage)")


class ArchLimits(Record):
    """Per-arch limits, each with its source in the arch data file."""

    name: str = Field(description="`sm_120`")
    sm: int
    parts: str
    smem_optin: int = Field(description="opt-in shared memory per block (bytes)")
    smem_per_sm: int
    smem_reserved_per_block: int
    registers_per_thread: int
    registers_per_sm: int
    threads_per_block: int
    threads_per_sm: int
    max_blocks_per_sm: int = Field(description="resident blocks per SM, at most")
    registers_per_block: int = Field(description="32-bit registers one block may hold")
    warp_size: int
    register_allocation_unit: int = Field(
        description="registers per warp are allocated in units of this many"
    )
    register_sub_partitions: int = Field(
        description="SM sub-partitions the register file is split among"
    )
    smem_allocation_unit: int = Field(description="shared memory per block is allocated in these")
    smem_per_block_default: int = Field(
        description="dynamic + static shared memory per block without the opt-in attribute"
    )
    clusters: bool
    max_cluster_size: int
    tma: bool
    tma_multicast: bool
    tmem: bool
    runs_kernels_of: tuple[int, ...] = Field(
        description="the sm values whose `sm_XYa` cubins load on this part"
    )
    builds_cutlass_arch_tags: tuple[str, ...] = Field(
        default=(),
        description="the CUTLASS ArchTags (`Sm100`) whose kernels compile to working code for "
        "this arch: CUTLASS's config headers enable those kernels' instructions when nvcc "
        "targets it (a Jetson Thor's sm_110a builds the Sm100 kernels); empty: only what "
        "`runs_kernels_of` says",
    )
    sources: dict[str, str] = Field(description="field -> where its value comes from")


class Resources(Record):
    """What one instantiation needs on one arch, with the arithmetic behind every number."""

    arch: ArchLimits
    cutlass_version: str
    cutlass_version_origin: str = Field(description="how the version was decided")
    stage_count: StageCount
    layout: SmemLayout
    max_threads_per_block: int
    tma_descriptors: int | None = Field(
        default=None, description="TMA descriptors (tensormaps) in shared memory, where modeled"
    )
    tma: TmaPlan | None = Field(
        default=None,
        description="the mainloop's TMA descriptors (box, swizzle, element, alignment) and where "
        "the kernel's descriptors live, where modeled (cutlint.cutlass.tma)",
    )
    registers: RegisterPlan | None = Field(
        default=None, description="the warp groups' register split"
    )
    register_use: RegisterUse | None = Field(
        default=None, description="registers per thread and per block (cutlint.model.occupancy)"
    )
    occupancy: Occupancy | None = Field(
        default=None, description="active blocks per SM (cutlint.model.occupancy)"
    )
    dispatch_supported: bool | None = Field(
        default=None,
        description="whether the launcher's dispatch accepts this tile and cluster (None: the "
        "family's launcher has no such list, or the release is unknown)",
    )
    dispatch_source: str = Field(
        default="", description="the launcher function (and data) the dispatch answer mirrors"
    )
    dispatch_reason: str = Field(
        default="",
        description="why the dispatch refuses the tactic, when it does (empty: no reason given)",
    )
    tmem_columns: int | None = Field(
        default=None, description="tensor-memory columns the kernel allocates (SM100 and later)"
    )
    variants: tuple["Variant", ...] = Field(
        default=(), description="nearby variants (SwapAB, fusion, tile) and whether they fit"
    )
    epilogue: EpilogueTile | None = Field(
        default=None, description="the epilogue subtile and StagesC/StagesD behind the carveout"
    )

    @property
    def smem_bytes(self) -> int:
        return self.layout.size

    @property
    def slack(self) -> int:
        return self.arch.smem_optin - self.layout.size


class Variant(Record):
    """A neighbouring tactic and its shared memory, for the "what would fit" advice."""

    label: str = Field(description="what differs, in the family's words, e.g. `SwapAB on`")
    tile: Shape3
    stages: int
    smem_bytes: int
    fits: bool


class NotModeled(Record):
    """The model cannot decide for this instantiation; says why instead of guessing."""

    reason: str


# --- rules and results -------------------------------------------------------------------------


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"note": 0, "info": 1, "warning": 2, "error": 3}[self.value]


class Diagnostic(Record):
    rule: str = Field(description="rule id, e.g. CUT101")
    name: str = Field(description="rule name, e.g. smem-exceeds-optin")
    severity: Severity
    path: str
    line: int | None
    message: str
    why: str | None = Field(default=None, description="one line of arithmetic behind it")
    fix: str | None = None
    fingerprint: str | None = Field(
        default=None,
        description="stable identity across runs and line shifts (engine/fingerprint.py); "
        "SARIF's partialFingerprints and the baseline file use it",
    )


class TacticFinding(Record):
    """A finding on a runner's tactics, not on one instantiation: e.g. CUT207, tactics that
    dispatch to a launcher the module never instantiates (engine/runner_findings.py)."""

    rule: str = Field(description="rule id, e.g. CUT207")
    name: str = Field(description="rule name, e.g. tactic-not-instantiated")
    severity: Severity
    runner: str = Field(description="the runner's log prefix, e.g. [MXFP8 SM120 gemm Runner]")
    runner_class: str = Field(description="the Python TunableRunner class")
    release: str = Field(description="the FlashInfer release whose tactic list was judged")
    module: str = Field(description="the JIT module, e.g. mxfp8_gemm_cutlass_sm120")
    path: str = Field(description="where the module's generated files are (or would be)")
    instantiation: str = Field(description="what the tactics need: `MACRO(arg, ...)`")
    tactics: tuple[int, ...] = Field(description="the tactics of the runner's table that need it")
    ids: tuple[int, ...] = Field(
        description="the autotuner ids that run them (packed ids expanded: SVDQuant's fused "
        "linear runner packs a producer variant beside the tactic)"
    )
    keys: tuple[str, ...] = Field(description="`<custom_op>::<runner class>` blocklist keys")
    message: str
    why: str


class Verdict(StrEnum):
    """What will happen to this tactic, decided from its worst finding."""

    FITS = "fits"
    ZERO_SLACK = "fits, 0 B slack"
    FAILS_INITIALIZE = "fails initialize()"
    FAILS_COMPILE = "does not compile"
    FAILS_RUN = "fails at run time"
    UNREACHABLE = "never dispatched"
    NOT_MODELED = "not modeled"
    INACTIVE = "inactive (#if)"
    NOT_FOR_GPU = "not for this GPU"
    """The GPU never loads this code: the build's targets do not load on it, or the kernel is
    another arch's in a multi-arch build (CUT021). Never a failure."""
    CONTEXT_UNKNOWN = "context unknown"
    """A failure that holds only if a guessed context does (the GPU or CUTLASS read off the
    path, or cutlint's default): a note that says what was assumed (CUT020), never a failure."""


class InstantiationResult(Record):
    instantiation: Instantiation
    recipe: SerializeAsAny[Recipe] | None = Field(
        default=None, description="what the claiming family builds; None when no family claims it"
    )
    resources: Resources | None
    verdict: Verdict
    not_modeled: NotModeled | None = None
    diagnostics: tuple[Diagnostic, ...] = ()


class FileResult(Record):
    path: str
    instantiations: tuple[InstantiationResult, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = Field(
        default=(), description="file-level diagnostics (input problems)"
    )
    context: BuildContext | None = Field(
        default=None,
        description="the file's resolved build context, every field with its origin "
        "(cutlint.context); None when nothing was judged",
    )


class CheckResult(Record):
    files: tuple[FileResult, ...]
    root: str | None = Field(
        default=None, description="the directory fingerprints and reported URIs are relative to"
    )
    baselined: tuple[Diagnostic, ...] = Field(
        default=(), description="findings left out because their fingerprint is in the baseline"
    )
    skipped: tuple[str, ...] = Field(
        default=(),
        description="paths of FlashInfer JIT sources with no CUTLASS GEMM instantiation, left "
        "out of `files` (producers/flashinfer/cache_layout.py: jit_source)",
    )

    def all_diagnostics(self) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for f in self.files:
            out.extend(f.diagnostics)
            for r in f.instantiations:
                out.extend(r.diagnostics)
        return out
