"""An `#error` in compiled code, decided for the build that compiles the file (CUT009, CUT216).

The parser reads a file with the run's defines, so an `#error` guarding a macro the build always
sets looks reached: SGLang's JIT compiles `#if SGL_CUDA_ARCH != 900 && ... #error` with
`-DSGL_CUDA_ARCH=<the GPU's>` (producers/sglang), and a ROCm header's `#ifndef USE_ROCM #error`
is compiled only by a HIP build. Each such problem carries the conditions it stands under
(`InputProblem.guard`); here the file is decided again for the build:

- a guard on another vendor's macro (context/vendors.py): CUT216, a note, never CUT009;
- in a JIT source whose defines cutlint knows (SGLang's: `SGL_CUDA_ARCH` for the target, the
  module's `-D`s, nvcc's `__CUDACC__`): the file parsed again with them. Not reached: no
  problem (CUT006 when nothing is left).
  Reached: CUT009 for that target, naming the define and its value; on a GPU cutlint guessed,
  a CUT020 note instead (the GPU that runs the JIT decides it);
- anything else: the problem as the parser reported it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from cutlint import inputs
from cutlint.build_context import BuildContext
from cutlint.context.vendors import vendor_macro
from cutlint.parse.problems import ILL_FORMED_SOURCE, NO_INSTANTIATIONS
from cutlint.records import InputProblem

NOT_FOR_THIS_TARGET = "CUT216"
CONTEXT_UNKNOWN = "CUT020"


NVCC_PREDEFINED: Mapping[str, str] = {"__CUDACC__": "1", "__NVCC__": "1"}
"""What nvcc defines for every CUDA source it compiles, host pass included (CUDA Compiler Driver
NVCC, "NVCC Predefined Macros"): a JIT compiles its headers through nvcc, so they apply."""


def jit_defines(build: BuildContext | None, path: str) -> tuple[Mapping[str, str], str] | None:
    """The defines the file's JIT compiles it with for the build's GPU, and where that is said;
    None when the file is no JIT source cutlint knows the defines of."""
    if build is None or build.producer is None or build.gpu is None:
        return None
    if build.producer.value != "sglang":
        return None
    from cutlint.producers.sglang import jit as sglang_jit  # its records: for SGLang's files only

    version = build.release.value if build.release is not None else None
    rel, own = sglang_jit.release(version)
    said = (
        f"SGLang {rel.version}'s JIT" if own else f"SGLang's JIT (release unknown; {rel.version}'s)"
    )
    values = {**NVCC_PREDEFINED, **sglang_jit.defines(build.gpu.value)}
    module = sglang_jit.module_for(rel, path)
    if module is not None:
        values.update(sglang_jit.flag_defines(module.flags))
        said += f", module {module.name}"
    return values, f"{said} for sm_{build.gpu.value} ({rel.default_source})"


def redecided(
    path: str,
    problems: Sequence[InputProblem],
    build: BuildContext | None,
    defines: Mapping[str, str],
    has_instantiations: bool,
) -> tuple[InputProblem, ...]:
    """`problems` with each guarded `#error` decided for `build` (`defines`: the run's own)."""
    jit = jit_defines(build, path)
    reached: set[int | None] | None = None
    out: list[InputProblem] = []
    dropped: list[str] = []
    for p in problems:
        if p.code != ILL_FORMED_SOURCE or not p.guard:
            out.append(p)
            continue
        vendor = vendor_macro(p.guard)
        if vendor is not None:
            macro, who, source = vendor
            out.append(
                p.model_copy(
                    update={
                        "code": NOT_FOR_THIS_TARGET,
                        "message": f"not for this target: a file for {who}: "
                        f"{_error_text(p.message)} stands under `{p.guard}`, and {macro} is "
                        f"defined only by {who}'s build ({source}); nvcc never compiles it",
                    }
                )
            )
            continue
        if jit is None:
            out.append(p)
            continue
        values, where = jit
        if reached is None:
            reached = _errors_reached(path, {**defines, **values})
        named = [f"{k}={v}" for k, v in values.items() if re.search(rf"\b{k}\b", p.guard)]
        said = ", ".join(named) if named else "the JIT's defines (nvcc's __CUDACC__ among them)"
        if p.line not in reached:
            dropped.append(f"its `#error` at line {p.line} is not reached with {said} ({where})")
        elif build is not None and build.gpu is not None and build.gpu.guessed:
            out.append(
                p.model_copy(
                    update={
                        "code": CONTEXT_UNKNOWN,
                        "message": f"context unknown: {_error_text(p.message)} is reached with "
                        f"{said}, the defines of {where}; the GPU is {build.gpu.where}: pass "
                        "--arch for the GPU that runs the JIT",
                    }
                )
            )
        else:
            out.append(p.model_copy(update={"message": f"{p.message}, with {said}: {where}"}))
    if dropped and not out and not has_instantiations:
        out.append(
            InputProblem(
                code=NO_INSTANTIATIONS,
                path=path,
                message="no CUTLASS instantiation read in this file; " + "; ".join(dropped),
            )
        )
    return tuple(out)


def _errors_reached(path: str, defines: Mapping[str, str]) -> set[int | None]:
    """The lines of the file's `#error`s in compiled code with `defines`: the file parsed again
    (its own `#define`s under `#ifdef __CUDACC__` count, as they do for nvcc); every line when it
    cannot be read again (the problems stand as they are)."""
    from cutlint.parse.extract import parse_source  # libclang: only for a JIT's guarded #error

    try:
        text = inputs.read_bytes(path, inputs.SOURCE)
        again = parse_source(path, text, defines=defines, named=True)  # as it was read
    except (inputs.InputError, OSError, ValueError):
        return _Everything()
    return {q.line for q in again.problems if q.code == ILL_FORMED_SOURCE and q.guard}


class _Everything(set[int | None]):
    def __contains__(self, item: object) -> bool:
        return True


def _error_text(message: str) -> str:
    """The `#error ...` quoted in a CUT009 message ("... `#error x` is in compiled code ...")."""
    start = message.find("`#error")
    end = message.find("`", start + 1)
    return message[start : end + 1] if start >= 0 and end > start else "its `#error`"
