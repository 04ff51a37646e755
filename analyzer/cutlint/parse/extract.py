"""One file's bytes -> a ParsedFile: the instantiations in it, their guards, and its problems.

The steps, each in its own module: mask comments and literals (`lexmask`), find the directives
(`directives`), find and split the instantiations (`calls`), and ask libclang which `#if` branches the define set compiles (`libclang`, only
when the file has both an `#if` and an instantiation).

Why libclang is given the directives only (`directives.skeleton`) and not the whole file with
the macro defined empty, as docs/architecture.md first planned (measured with libclang 22):

- the instantiations have to be found by a text scan anyway: libclang gives no cursor for an
  explicit function-template instantiation, and none for a macro call in a skipped branch,
  which cutlint still reports (as inactive); the scan runs on comment-masked text, so the
  preprocessor's MACRO_INSTANTIATION cursors would only repeat what it found;
- a full parse SIGSEGVs on a 10 MB expression and on 20,000 nested parentheses or template
  brackets in code; the skeleton gives the parser no code at all, leaving only what crashes the
  preprocessor itself (a 20,000-deep `#if` expression) to the worker processes;
- the skeleton, reparsed per directory, costs 0.7 ms a file against 2.5 ms for a full parse.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cutlint.parse import (
    aliases,
    calls,
    directives,
    dispatch,
    libclang,
    literals,
    macro_params,
    shapes,
    template_args,
    wellformed,
)
from cutlint.parse.defines import DEFAULT_DEFINES, command_line
from cutlint.parse.lexmask import MaskedText, blank, mask
from cutlint.parse.problems import (
    NO_INSTANTIATIONS,
    NOT_TEXT,
    PARSER_FAILURE,
    TRUNCATED_INSTANTIATION,
    UNBALANCED_TEMPLATE_BRACKETS,
    problem,
)
from cutlint.records import (
    CapabilityBranch,
    CapabilityDispatch,
    FormKind,
    Guard,
    InputProblem,
    Instantiation,
    ParsedFile,
    SourceSpan,
)
from cutlint.sources import cutlass_library_files as cutlass_library
from cutlint.sources import flashinfer_cache as cache_layout
from cutlint.sources import kernel_headers


class Lines:
    """Byte offset -> (1-based line, 1-based byte column), for offsets asked in rising order.

    Counting incrementally keeps a 10 MB file linear; a table of every line start would not be
    (and would cost memory in proportion to the line count).
    """

    def __init__(self, text: bytes) -> None:
        self._text = text
        self._rewind()

    def _rewind(self) -> None:
        self._offset = 0
        self._line = 1
        self._line_start = 0

    def at(self, offset: int) -> tuple[int, int]:
        if offset < self._offset:
            self._rewind()
        newlines = self._text.count(b"\n", self._offset, offset)
        if newlines:
            self._line += newlines
            self._line_start = self._text.rfind(b"\n", self._offset, offset) + 1
        self._offset = offset
        return self._line, offset - self._line_start + 1


@dataclass(frozen=True)
class _Context:
    path: str
    masked: MaskedText
    lines: Lines
    branches: list[directives.Branch]
    skipped: list[tuple[int, int]]


MAX_DIRECTIVES = 200_000
"""Preprocessor directives one file may hold. A generated file has a few per instantiation;
the limit keeps the cost of a file (about 5 us of CPU a directive) far below the parser's time
limit, so that whether a file is read never depends on how busy the machine is."""
MAX_INSTANTIATIONS = 20_000
"""Instantiations one file may hold (FlashInfer writes at most 8 a file; cutlass_library one).
About 150 us of CPU each through parse and judge: the same reasoning as MAX_DIRECTIVES."""

_LONE_CR = re.compile(rb"\r(?!\n)")
_BOM = b"\xef\xbb\xbf"


def parse_source(
    path: str,
    text: bytes,
    defines: Mapping[str, str] = DEFAULT_DEFINES,
    undefines: Sequence[str] = (),
    read_header: macro_params.Reader = macro_params.read_header,
    named: bool = False,
) -> ParsedFile:
    """Parse one file's contents in this process.

    Bad input gives problems; an exception here is a bug in cutlint (`parse_paths` reports one
    as CUT012 for that file). libclang runs in this process too, so a pathological file can
    crash it: prefer `parse_paths` for files you did not write. `named`: the user named this
    file itself, so a header is read even when it holds no kernel.
    """
    not_text = _not_text(path, text)
    if not_text is not None:
        return _parsed(path, problems=[not_text])
    if text.startswith(_BOM):
        # A UTF-8 byte order mark: every generated file may start so, and nvcc skips it. Spaces of
        # the same length keep every offset pointing into the file as it is.
        text = b"   " + text[len(_BOM) :]
    if b"\r" in text:
        # A lone CR ends a line for clang and gcc as LF does (old Mac line ends). The same length,
        # so every offset still points into the file as it is.
        text = _LONE_CR.sub(b"\n", text)
    too_many = _too_many(path, text)
    if too_many is not None:
        return _parsed(path, problems=[too_many])
    masked = mask(text)
    found_directives = directives.scan(masked)
    body = bytearray(masked.code)
    for d in found_directives:
        body[d.start : d.end] = blank(masked.code[d.start : d.end])
    code = bytes(body)
    everything: list[calls.Found] = calls.find(masked, code, [d.start for d in found_directives])
    alias_lines = Lines(text)
    everything += aliases.find(masked, code, lambda offset: alias_lines.at(offset)[0])
    everything.sort(key=lambda f: f.start)
    found = [f for f in everything if not isinstance(f, calls.ClassInstantiation)]
    if cache_layout.jit_source(path) and not _holds_gemm(found, code):
        return _parsed(path, skipped=True)
    if kernel_headers.is_header(path) and not named and not _holds_gemm(found, code):
        return _parsed(path, skipped=True)  # a header with no kernel: nothing to say of it
    dispatch_candidates = dispatch.has_candidates(code)
    preprocessed = libclang.Preprocessed([], [])
    if directives.has_conditionals(found_directives) and (
        found or dispatch_candidates or wellformed.candidates(masked, found_directives)
    ):
        args = command_line(defines, undefines)
        try:
            preprocessed = libclang.preprocess(
                path, directives.skeleton(masked, found_directives), args
            )
        except libclang.ParserFailure as err:
            return _parsed(path, problems=[problem(PARSER_FAILURE, path, str(err))])
    ctx = _Context(
        path,
        masked,
        Lines(text),
        directives.branches(found_directives, len(text)),
        preprocessed.skipped,
    )
    macros: dict[str, macro_params.MacroParameters] = {}
    if any(f.form is FormKind.MACRO_CALL for f in found if isinstance(f, calls.Call)):
        define_lines = Lines(text)
        macros = macro_params.visible(
            path, masked, found_directives, lambda offset: define_lines.at(offset)[0], read_header
        )
    records, problems = _records(ctx, found, macros)
    dispatches = _dispatches(ctx, code, text) if dispatch_candidates else ()
    lines = Lines(text)
    line_of = lambda offset: lines.at(offset)[0]  # noqa: E731
    problems += wellformed.problems(
        path,
        masked,
        found_directives,
        code,
        preprocessed,
        line_of,
        truncated=any(isinstance(f, calls.Truncated) for f in found),
        has_instantiations=bool(found),
    )
    problems += shapes.unread(
        path, masked, found_directives, (f.start for f in everything), line_of, code
    )
    if not records and not problems and cutlass_library.manifest_source(code):
        return _parsed(path, skipped=True)
    if not records and not problems:
        classes = len(everything) - len(found)
        problems.append(problem(NO_INSTANTIATIONS, path, _nothing_found(text, classes)))
    problems.sort(key=lambda p: p.line or 0)
    return _parsed(
        path,
        records,
        problems,
        defines=directives.file_defines(masked, found_directives),
        dispatches=dispatches,
    )


def _too_many(path: str, text: bytes) -> InputProblem | None:
    """A deterministic refusal of a file too big to parse within the time limit."""
    # Upper bounds first: a file with few `#` and few macro names costs nothing to check. Each
    # counted text takes its own bytes, so a file shorter than the limit times the shortest of
    # them holds too few to count (nearly every file: 4 KB, where the counts cost 8 us).
    if len(text) <= MAX_INSTANTIATIONS * len(b"template") and len(text) <= MAX_DIRECTIVES:
        return None
    if text.count(b"#") + text.count(b"%:") > MAX_DIRECTIVES:
        count = directives.count(text)
        if count > MAX_DIRECTIVES:
            return problem(
                PARSER_FAILURE,
                path,
                f"holds {count:,} preprocessor directives; cutlint parses at most "
                f"{MAX_DIRECTIVES:,} in one file (split the file)",
            )
    if text.count(b"template") + text.count(calls.MOE_MACRO.encode()) > MAX_INSTANTIATIONS:
        count = calls.count(text)
        if count > MAX_INSTANTIATIONS:
            return problem(
                PARSER_FAILURE,
                path,
                f"holds {count:,} instantiation-shaped texts; cutlint reads at most "
                f"{MAX_INSTANTIATIONS:,} in one file (split the file)",
            )
    return None


# Any instantiation macro, read or not (INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(...), ...).
_ANY_INSTANTIATE_MACRO = re.compile(rb"\bINSTAN(?:TIATE|CE)_\w*+\s*+\(")


def _holds_gemm(found: Sequence[calls.Found], code: bytes) -> bool:
    """Whether a file holds a CUTLASS GEMM instantiation: a macro call (any `INSTANTIATE_*`,
    read or not), or an explicit instantiation of a template whose name says GEMM. A FlashInfer
    JIT source without one is an attention, norm or sampling module's kernel or a binding
    (cache_layout.jit_source), and a header without one a utility header (kernel_headers):
    skipped, not reported file by file."""
    for f in found:
        if not isinstance(f, calls.Call) or f.form is not FormKind.EXPLICIT_INSTANTIATION:
            return True  # a macro call, or a truncated instantiation: a problem to report
        if cache_layout.names_a_gemm(f.name):
            return True
    return _ANY_INSTANTIATE_MACRO.search(code) is not None


_LITERAL = re.compile(rb'"((?:[^"\\\n]|\\.)*)"')


def _dispatches(ctx: _Context, code: bytes, text: bytes) -> tuple[CapabilityDispatch, ...]:
    """The file's capability dispatches (parse/dispatch.py), each branch with its `#if`."""

    def literals_of(start: int, end: int) -> str:
        """The string literals of text[start:end] joined, `{}` where a value is printed
        between them or after them (`"...capability: ", version_num` -> `...capability: {}`)."""
        out: list[str] = []
        at = -1
        for m in _LITERAL.finditer(text, start, end):
            if at >= 0 and text[at : m.start()].strip(b" \t\r\n,"):
                out.append("{}")
            out.append(m[1].decode(errors="replace"))
            at = m.end()
        if at >= 0 and text[at:end].strip(b" \t\r\n,)"):
            out.append("{}")
        return "".join(out)

    found = dispatch.find(code, text, literals_of)
    out: list[CapabilityDispatch] = []
    for d in found:
        enclosing = directives.innermost(ctx.branches, [b.start for b in d.branches])
        branches = tuple(
            CapabilityBranch(
                line=ctx.lines.at(b.start)[0],
                condition=b.condition,
                low=b.low,
                high=b.high,
                call=b.call,
                guard=None if g is None else Guard(text=g.text, active=_active(ctx, b.start)),
            )
            for b, g in zip(d.branches, enclosing, strict=True)
        )
        line = Lines(text).at(d.failure)[0]
        out.append(
            CapabilityDispatch(
                path=ctx.path, function=d.function, line=line, message=d.message, branches=branches
            )
        )
    return tuple(out)


def _parsed(
    path: str,
    records: Sequence[Instantiation] = (),
    problems: Sequence[InputProblem] = (),
    skipped: bool = False,
    defines: tuple[str, ...] = (),
    dispatches: Sequence[CapabilityDispatch] = (),
) -> ParsedFile:
    return ParsedFile(
        dispatches=tuple(dispatches),
        path=path,
        skipped=skipped,
        defines=defines,
        generated_for_sm=cache_layout.generated_for_sm(path),
        flashinfer_version=cache_layout.flashinfer_version(path),
        instantiations=tuple(records),
        problems=tuple(problems),
    )


def _not_text(path: str, text: bytes) -> InputProblem | None:
    if b"\0" in text:
        line = text.count(b"\n", 0, text.index(b"\0")) + 1
        return problem(NOT_TEXT, path, f"a binary file: a NUL byte at line {line}", line)
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as err:
        line = text.count(b"\n", 0, err.start) + 1
        byte = text[err.start]
        return problem(NOT_TEXT, path, f"not UTF-8 text: byte 0x{byte:02x} at line {line}", line)
    return None


def _nothing_found(text: bytes, classes: int) -> str:
    if not text.strip():
        return "the file is empty"
    why = (
        f"no `{calls.MACRO_PREFIX}<NAME>(...)` macro call, no explicit"
        " `template <type> <launcher><...>(...);` instantiation and no kernel defined by a"
        " namespace-scope `using NAME = cutlass::...::kernel::...<...>;` in this file"
    )
    if classes:
        why += f" (its {classes} explicit class instantiation(s) instantiate no launcher)"
    return why


def _records(
    ctx: _Context,
    found: Sequence[calls.Found],
    macros: Mapping[str, macro_params.MacroParameters],
) -> tuple[list[Instantiation], list[InputProblem]]:
    records: list[Instantiation] = []
    problems: list[InputProblem] = []
    starts = [c.start for c in found]
    enclosing = directives.innermost(ctx.branches, starts)
    for item, branch in zip(found, enclosing, strict=True):
        line, column = ctx.lines.at(item.start)
        if isinstance(item, calls.ClassInstantiation):
            continue
        if isinstance(item, calls.Malformed):
            message = f"nvcc would reject this explicit instantiation: {item.reason}"
            problems.append(problem(UNBALANCED_TEMPLATE_BRACKETS, ctx.path, message, line))
            continue
        if isinstance(item, calls.Truncated):
            where, _ = ctx.lines.at(item.barrier)
            message = f"{item.what} is truncated: {item.reason} (line {where})"
            problems.append(problem(TRUNCATED_INSTANTIATION, ctx.path, message, line))
            continue
        end_line, _ = ctx.lines.at(item.close)
        span = SourceSpan(path=ctx.path, line=line, column=column, end_line=end_line)
        guard = None if branch is None else Guard(text=branch.text, active=_active(ctx, item.start))
        if item.form is FormKind.EXPLICIT_INSTANTIATION:
            problems.extend(
                problem(code, ctx.path, f"nvcc would reject `{item.name}`: {message}", line)
                for code, message in literals.template_argument_problems(item.args)
            )
            problems.extend(
                problem(code, ctx.path, f"`{item.name}`: {message}", line)
                for code, message in template_args.argument_problems(item.args)
            )
        records.append(
            Instantiation(
                span=span,
                form=item.form,
                name=item.name,
                args=item.args,
                guard=guard,
                chain=item.chain,
                **_definition(item, macros),
            )
        )
    return records, problems


def _definition(
    item: calls.Call, macros: Mapping[str, macro_params.MacroParameters]
) -> dict[str, Any]:
    """A macro call's parameter names and where they were defined, when the definition is
    known (fields left at their defaults otherwise, so a record without one is as before)."""
    got = macros.get(item.name) if item.form is FormKind.MACRO_CALL else None
    if got is None:
        return {}
    return {"parameters": got.parameters, "defined_at": got.defined_at}


def _active(ctx: _Context, offset: int) -> bool:
    """Whether the code at `offset` is compiled under the define set: outside every branch
    libclang skipped. For an `#if` nested in a skipped one, this is False even when its own
    condition would hold, since the condition is never evaluated."""
    i = bisect.bisect_right(ctx.skipped, (offset, 1 << 62)) - 1
    return not (i >= 0 and ctx.skipped[i][0] <= offset < ctx.skipped[i][1])
