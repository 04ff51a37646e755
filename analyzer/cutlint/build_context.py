"""The records of a resolved build context: each field a value with its origin."""

from __future__ import annotations

from enum import StrEnum
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


class Origin(StrEnum):
    """Where a field's value came from, weakest first (`rank`)."""

    DEFAULT = "default"
    """cutlint's own default: nothing said it."""
    LAYOUT = "path"
    """read off the file's path (FlashInfer's `<version>/<archdir>/generated/`, `_sm120_`)."""
    PACKAGE = "package"
    """an installed distribution (`importlib.metadata`)."""
    HEADER = "header"
    """a header or version file on the include path (`cutlass/version.h`, `_build_meta.py`)."""
    COMMAND = "compile command"
    """the compile command (`compile_commands.json`, FlashInfer's `build.ninja`, `--compile-command`)."""
    OPTION = "option"
    """the user's own flag (`--arch`, `--cutlass-version`, ...)."""

    @property
    def rank(self) -> int:
        return list(Origin).index(self)


class _Frozen(BaseModel):
    # defer_build: each record's validator is built when the record is first made (as
    # records.py's are), not at import; `Sourced[...]`'s parametrizations are otherwise built
    # one by one here, and again inside BuildContext's own.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Sourced(_Frozen, Generic[T]):
    """One field of the context: its value, its origin and where exactly it was read."""

    value: T
    origin: Origin
    where: str = Field(description="the file, flag or rule it was read from, for the user")

    @property
    def guessed(self) -> bool:
        return self.origin.rank <= Origin.LAYOUT.rank


class Target(_Frozen):
    """One code object of a fat binary: SASS for `sm_<sm><suffix>` or PTX for `compute_<...>`."""

    sm: int = Field(description="the compute capability X.Y written XY (120)")
    suffix: Literal["", "a", "f"] = Field(
        description="`a`: architecture-specific, `f`: family-specific, empty: plain"
    )
    ptx: bool = Field(description="PTX the driver JIT-compiles, rather than SASS")

    @property
    def name(self) -> str:
        return f"{'compute' if self.ptx else 'sm'}_{self.sm}{self.suffix}"

    def loads_on(self, device_sm: int) -> bool:
        """Whether a GPU of compute capability `device_sm` runs this code object. CUDA C++
        Programming Guide, "Compute Capability" / "Feature Set Compiler Targets": `sm_XYa` only
        on exactly X.Y; `sm_XYf` on X.Z with Z >= Y; plain `sm_XY` SASS on X.Z with Z >= Y; PTX
        is JIT-compiled for any later GPU (plain), or within the same rules for `a`/`f` PTX."""
        major, dev_major = self.sm // 10, device_sm // 10
        if self.suffix == "a":
            return device_sm == self.sm
        if self.suffix == "f" or not self.ptx:
            return dev_major == major and device_sm >= self.sm
        return device_sm >= self.sm


class BuildContext(_Frozen):
    """What one file is compiled with and for, each field with its origin (None: nothing said
    it and cutlint has no default for it)."""

    targets: Sourced[tuple[Target, ...]] | None = Field(
        default=None, description="the -gencode / -arch list the file is compiled with"
    )
    gpu: Sourced[int] | None = Field(
        default=None, description="the compute capability of the GPU that runs the binary"
    )
    cutlass_version: Sourced[str] | None = None
    cutlass_include: Sourced[str] | None = Field(
        default=None, description="the directory holding cutlass/version.h"
    )
    producer: Sourced[str] | None = Field(
        default=None, description="flashinfer, tensorrt_llm or cutlass_library"
    )
    release: Sourced[str] | None = Field(default=None, description="the producer's version")
    jit_module: Sourced[str] | None = Field(
        default=None, description="the FlashInfer JIT module that compiles the file"
    )
    defines: Sourced[tuple[str, ...]] | None = Field(
        default=None, description="-D names of the compile command"
    )
    include_path: Sourced[tuple[str, ...]] | None = Field(
        default=None, description="-I / -isystem directories of the compile command"
    )
    macros: Sourced[tuple[str, ...]] | None = Field(
        default=None,
        description="the `#define`s the file's macro calls are read by, each `NAME(P1, ...) at "
        "path:line` (in the file, a header beside it or on the include path): a call's "
        "argument count and positions are its definition's (cutlint.context.macros)",
    )

    def fields(self) -> dict[str, Sourced[object]]:
        """The fields that were said, by name, in declaration order."""
        out: dict[str, Sourced[object]] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def loaded(self, device_sm: int) -> tuple[Target, ...]:
        """The code objects of the build a GPU of `device_sm` runs (all of them, when the
        build's targets are unknown: nothing says otherwise)."""
        if self.targets is None:
            return ()
        return tuple(t for t in self.targets.value if t.loads_on(device_sm))


class BuildInfo(_Frozen):
    """What the user said of the build: where its compile commands are, or one command."""

    database: str | None = Field(
        default=None, description="`-p BUILD_DIR`: a directory with compile_commands.json, or it"
    )
    command: str | None = Field(
        default=None, description="`--compile-command`: one nvcc command line for every file"
    )
    site_packages: tuple[str, ...] = Field(
        default=(),
        description="`--site-packages`: where the build's Python packages are installed "
        "(another environment's site-packages); empty: the environment cutlint runs in",
    )


class Request(_Frozen):
    """The user's flags that decide context fields (the strongest origin: OPTION)."""

    gpu: str | None = Field(default=None, description="--arch: sm_120, 12.0 or a GPU name")
    cutlass_version: str | None = None
    release: str | None = Field(default=None, description="--flashinfer-version")
