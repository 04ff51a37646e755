"""Run a FlashInfer generator's own enumeration in-process, without writing a file.

`generate_gemm_operations(output_dir, architectures)` enumerates the operations
(`generate_sm120_operations(...)` and the other arches' lists), groups them into files (by kind,
arch, tile M, block scaling, mixed input; 8 a file) and hands each group to `write_file`, then
removes stale files with `clean_leftover_files`. Both are module functions, looked up at call
time, so replacing them for the duration of one call captures every (file, operations) pair the
generator decided on, in its order, with nothing written. The call runs against an empty
temporary directory all the same, so that a generator which wrote by another path could touch
nothing but that.

The text of each instantiation comes from the generator's own `instantiate_operation`, and the
file's text from its `get_file_content`: both pure string functions. Lines are counted in that
text, so they are the lines the written file would have.
"""

from __future__ import annotations

import os
import tempfile
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cutlint.producers.flashinfer.wheel import FlashInferError


@dataclass(frozen=True)
class GeneratedOp:
    """One operation as the generator would write it."""

    op: Any
    """The generator's object (TrtLlm_GemmLauncher, GemmSm80LauncherConfig)."""
    file: str
    """Path relative to the generator's output dir: `gemm_grouped/120/cutlass_kernel_file_...`."""
    text: str
    """The generator's instantiation text for it (instantiate_operation)."""
    line: int
    """Line of the macro name (or of `template`) in the file the generator would write."""
    column: int
    end_line: int


@contextmanager
def _captured(gen: types.ModuleType) -> Iterator[list[tuple[list[str], list[Any], str]]]:
    """Replace the generator's write_file and clean_leftover_files for one call."""
    for name in ("write_file", "clean_leftover_files", "get_file_content", "instantiate_operation"):
        if not callable(getattr(gen, name, None)):
            raise FlashInferError(
                f"this FlashInfer generator has no {name}(): cutlint cannot run its enumeration "
                "without writing files"
            )
    calls: list[tuple[list[str], list[Any], str]] = []
    saved = getattr(gen, "write_file"), getattr(gen, "clean_leftover_files")  # noqa: B009

    def write_file(launcher_inl_files: list[str], operations: list[Any], output_file: str) -> None:
        calls.append((list(launcher_inl_files), list(operations), output_file))

    def clean_leftover_files(output_dir: str, generated_files: set[str]) -> None:
        return None

    # setattr: the module is third-party and untyped; these are its module globals.
    setattr(gen, "write_file", write_file)  # noqa: B010
    setattr(gen, "clean_leftover_files", clean_leftover_files)  # noqa: B010
    try:
        yield calls
    finally:
        setattr(gen, "write_file", saved[0])  # noqa: B010
        setattr(gen, "clean_leftover_files", saved[1])  # noqa: B010


def _position(content: str, offset: int, text: str, anchor: str) -> tuple[int, int, int]:
    """Line and column of the call's first token, and the line of its closing `);` (not of a
    trailing #endif), all 1-based as SourceSpan counts them."""
    first = max(text.find(anchor), 0)
    close = text.find(");", first)
    last = close if close >= 0 else len(text.rstrip()) - 1
    start, end = offset + first, offset + last
    column = start - content.rfind("\n", 0, start)
    return content.count("\n", 0, start) + 1, column, content.count("\n", 0, end) + 1


def _anchor(text: str) -> str:
    return "INSTANTIATE_" if "INSTANTIATE_" in text else "template"


def enumerate_operations(gen: types.ModuleType, architectures: str) -> list[GeneratedOp]:
    """Every operation `generate_gemm_operations(_, architectures)` would write, in file order."""
    out: list[GeneratedOp] = []
    with tempfile.TemporaryDirectory(prefix="cutlint-pregen-") as tmp, _captured(gen) as calls:
        try:
            gen.generate_gemm_operations(tmp, architectures)
        except Exception as e:  # third-party code: report, do not crash
            raise FlashInferError(f"the generator's enumeration failed: {e}") from e
        if any(os.scandir(tmp)):
            raise FlashInferError(
                "the generator wrote files despite the capture; refusing to go on"
            )
        for inl_files, ops, output_file in calls:
            content: str = gen.get_file_content(inl_files, ops)
            rel = os.path.relpath(output_file, tmp)
            pos = 0
            for op in ops:
                text: str = gen.instantiate_operation(op)
                offset = content.find(text, pos)
                if offset < 0:
                    raise FlashInferError(f"{rel}: an instantiation is not in the file's text")
                line, column, end_line = _position(content, offset, text, _anchor(text))
                out.append(GeneratedOp(op, rel.replace(os.sep, "/"), text, line, column, end_line))
                pos = offset + len(text)
    return out
