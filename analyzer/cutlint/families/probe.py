"""What a family tells `cutlint verify` about its compiler probe, in the family's own folder
(`<family>/probe.py`, found through the registry: `registry.probe_module`, `registry.probe_spec`).

A probe module says what is built and how it reads back; `cutlint.verify` compiles, links and
runs it and imports no family. Two shapes so far:

- a JIT-module family's probe (`JitProbeSpec`): the header patches that turn the module's
  template header into a probe copy (`HeaderPatch`), the instantiations it builds, the gencode,
  and how the compiler's printed template arguments read back (`template_arguments`);
- a launcher family's probe (`LauncherProbeSpec`, e.g. sm80_fused_moe/probe.py): the launcher
  `.inl` it patches, the patch (`patch_launcher`), the C++ helpers it inserts (data/), the output
  it prints and how each printed record is paired with an instantiation of the file.

A family's `probe.py` imports this module, never `cutlint.verify`, so the families stay below the
runner that drives them (docs/architecture.md, Layers). Errors in a family's patch or reader are
`PatchError`; the runner reports them as its ProbeError.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

PRINT_HPP = (
    resources.files("cutlint.families").joinpath("data", "probe_print.hpp").read_text("utf-8")
)
"""The C++ every probe prints its numbers with (JSON strings, `Out`, the member and static
macros): put before a probe's own helpers, once per translation unit (it is include-guarded)."""


class PatchError(RuntimeError):
    """A family's probe cannot be built or read: an anchor missing from the real header, output
    it cannot pair with an instantiation. The message names what."""


def require(match: re.Match[str] | None, what: str, launcher: Path) -> re.Match[str]:
    """A patch anchor's match in the real launcher; PatchError naming it when it is not there."""
    if match is None:
        raise PatchError(f"patch anchor not found in {launcher}: {what}")
    return match


def probe_copy(
    text: str, helpers: str, helpers_at: int, keep_through: int, call: str, resume_at: int
) -> str:
    """A launcher probe's copy of the launcher (included once: `#pragma once`): its text with
    `helpers` (the probe's C++) inserted at `helpers_at` (after its includes), kept byte for byte
    up to `keep_through` (the end of the last type definition), then `call` in place of the
    run-time part up to `resume_at`, then the rest."""
    return (
        "#pragma once\n"
        + text[:helpers_at]
        + helpers
        + "\n"
        + text[helpers_at:keep_through]
        + call
        + text[resume_at:]
    )


def printed_type(pretty_function: str) -> str:
    """`const char* ...::type_name() [with T = cutlass::half_t]` -> `cutlass::half_t`: a type as
    the probe's `type_name<T>()` printed it (PRINT_HPP)."""
    m = re.search(r"\[with T = (.+)\]\s*$", pretty_function)
    if m is None:
        raise PatchError(f"cannot read a type from the probe's output: {pretty_function!r}")
    return " ".join(m[1].split())


def read_records(stdout: str, tag: str) -> list[dict[str, object]]:
    """The JSON record of each line the probe printed with `tag` before it."""
    out: list[dict[str, object]] = []
    for line in stdout.splitlines():
        if line.startswith(tag):
            try:
                out.append(json.loads(line[len(tag) :]))
            except json.JSONDecodeError as exc:
                raise PatchError(f"probe printed malformed JSON: {line[:300]}") from exc
    return out


def absolutize_includes(text: str, launcher_dir: Path) -> str:
    """Make quoted includes that resolve next to the real launcher absolute: the probe copy lives
    in another directory, so "../moe_tma_warp_specialized_traits.h" etc. would otherwise stop
    resolving; pointing them at the very same files changes nothing else."""

    def fix(m: re.Match[str]) -> str:
        target = (launcher_dir / m.group(2)).resolve()
        return f'{m.group(1)}"{target}"' if target.is_file() else m.group(0)

    return re.sub(r'^(\s*#\s*include\s*)"([^"]+)"', fix, text, flags=re.MULTILINE)


class JitProbeSpec(Protocol):
    """A JIT-module family's `probe.py`, as verify's jit-module probe reads it (a module satisfies
    it). Optional, read with defaults where absent: `SM` and `GENCODE` (the SM120 ones when
    absent), `MODULE` or `MODULES`, `FILES_PER_COMPILE`, `MODULE_PATCHES`, `MODULE_SM`,
    `GENCODES`, `LABELS`, `macro_args`, `tu_key`, `sample`."""

    PATCHES: tuple[HeaderPatch, ...]
    INSTANTIATIONS: frozenset[str] | tuple[str, ...]
    """The macro or launcher names whose calls the probe builds."""

    def claims_file(self, path: Path) -> bool: ...


class LauncherProbeSpec(Protocol):
    """A launcher family's `probe.py`, as verify's runner reads it (a module satisfies it)."""

    LAUNCHER_NAME: str
    """The launcher function template the generated files instantiate."""
    OUTPUT_TAG: str
    """The prefix of each line the probe prints (one JSON record per instantiation)."""
    HELPERS_HPP: str
    """The C++ inserted into the probe copy (from the family's data/)."""

    def patch_launcher(self, text: str, launcher: Path) -> str: ...

    def instantiation_sites(self, generated: Sequence[Path]) -> Sequence[Any]: ...

    def parse_output(self, stdout: str) -> list[dict[str, object]]: ...

    def match_rows(
        self, sites: Sequence[Any], records: Sequence[dict[str, object]]
    ) -> Sequence[Any]: ...


@dataclass(frozen=True)
class HeaderPatch:
    """How to make the probe copy of one template header.

    The copy keeps the header up to the end of `keep_through`'s match, inserts `insert`, and
    resumes at `resume`'s match (kept), or, when `resume` is None, after the end of the
    `#define` that holds `keep_through` (its last backslash-continued line). `insert` then is
    the tail of that macro: continuation lines, the last without a backslash, and the patched
    macro is defined for the host pass only (`#ifndef __CUDA_ARCH__`; an empty variadic macro
    in the device pass). Every match of `keep_through` is patched (a header may define the
    macro once per #if branch)."""

    header: str
    """Relative to the wheel's `flashinfer/data/include`: `flashinfer/gemm/..._sm120.h`."""
    keep_through: re.Pattern[str] | None
    """None: the header is copied unchanged (a header that includes a patched one by a path
    relative to itself must live beside the copy)."""
    insert: str | Callable[[dict[str, str]], str]
    """C++ to insert; `$name` is replaced by the named group `name` of `keep_through`'s match (a
    group that did not take part: ""); or a function of the match's groups that writes it."""

    def text(self, m: re.Match[str]) -> str:
        groups = {k: v or "" for k, v in m.groupdict().items()}
        if callable(self.insert):
            return self.insert(groups)
        return string.Template(self.insert).substitute(groups)

    resume: re.Pattern[str] | None = None


# ---- macro calls, as a probe pairs its printed records with them ----


@dataclass(frozen=True)
class MacroCall:
    """A macro call in a generated file: the line of its name, its arguments normalized."""

    line: int
    args: tuple[str, ...]


def normalize_arg(text: str) -> str:
    """Collapse whitespace the way the preprocessor's # operator does."""
    return " ".join(text.split())


def _split_top_level(text: str) -> list[str]:
    """Split macro arguments at commas outside parentheses (the preprocessor ignores <>)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _strip_comments(text: str) -> str:
    """Blank out comments but keep newlines, so offsets still map to line numbers."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.DOTALL)


def find_macro_calls(source: str, macro: str) -> list[MacroCall]:
    """Every call of the function-like macro `macro` in `source` (not its `#define`), with the
    line of its name and its arguments as the probe's `#`-stringized ones read back; PatchError
    for a call whose parentheses do not close."""
    text = _strip_comments(source)
    calls: list[MacroCall] = []
    for m in re.finditer(rf"\b{re.escape(macro)}\s*\(", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start : m.start()].lstrip().startswith("#"):
            continue  # a #define, not a call
        depth = 1
        i = m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth:
            raise PatchError(f"unbalanced parentheses in {macro} call at offset {m.start()}")
        args = tuple(normalize_arg(a) for a in _split_top_level(text[m.end() : i - 1]))
        calls.append(MacroCall(line=text.count("\n", 0, m.start()) + 1, args=args))
    return calls


_WITH = re.compile(r"\[with (.*)\]\s*$")


def template_arguments(pretty_function: str) -> dict[str, str]:
    """`... [with int M = 1; bool K = true; DTypeIn = cutlass::float_e4m3_t]` -> {M: 1, ...}:
    the enclosing function template's arguments, as the compiler prints them."""
    m = _WITH.search(pretty_function)
    if m is None:
        return {}
    out: dict[str, str] = {}
    for part in m.group(1).split("; "):
        name, _, value = part.partition(" = ")
        out[name.split()[-1]] = value.strip()
    return out
