"""A finding's fingerprint: its identity across runs, machines and line shifts.

One function decides it, and everything that needs a finding's identity reads it from here: SARIF's
`partialFingerprints`, the JSON `fingerprint` field and the baseline file (`--baseline`).

The identity of a finding is

- the rule id;
- the file's path relative to the project root (posix separators), or its absolute path when the
  file lies outside the root;
- what it is about: for a finding on an instantiation, the macro or launcher name and its
  arguments as written, whitespace-collapsed; for a file-level finding, its message with the
  path made relative and line numbers taken out;
- which occurrence of that identity it is in the file (1, 2, ...), so that two identical
  instantiations in one file keep two fingerprints.

Line numbers are not part of it: inserting lines above an instantiation keeps its fingerprint.
The fingerprint is `<16 hex digits of sha256>:<occurrence>`, the shape of GitHub's
`primaryLocationLineHash`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

from cutlint.records import CheckResult, Diagnostic, FileResult, Instantiation

FINGERPRINT_VERSION = 1
"""Bumped when the identity changes; a baseline written by another version is rejected."""

_LINE_NUMBER = re.compile(r"\bline [0-9]+")


def real_root(path: str | Path) -> Path:
    """The root as a result records it (CheckResult.root)."""
    return _real(path)


def _real(path: str | Path) -> Path:
    """The path with its symlinks resolved. os.path.realpath, unlike Path.resolve, never raises:
    a symlink loop (which the walk reports as CUT001) is left as it is."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def relative_path(path: str, root: Path) -> str:
    """`path` relative to `root` in posix form when it lies under it, else absolute. (Strings,
    not PurePath: this runs once per file, and pathlib's parsing was most of its cost.)"""
    resolved = _real_file(path)
    top = _real_dir(os.path.abspath(root))  # the key absolute: the cwd may change between runs
    if resolved == top:
        return "."
    prefix = top if top.endswith(os.sep) else top + os.sep
    if resolved.startswith(prefix):
        return _posix(resolved[len(prefix) :])
    return _posix(resolved)


def _posix(normal: str) -> str:
    """`Path(normal).as_posix()` of a path os.path has already normalized (realpath): itself
    where the separator is `/`."""
    return normal if os.sep == "/" else Path(normal).as_posix()


@lru_cache(maxsize=4096)
def _real_dir(path: str) -> str:
    """An absolute directory's real path: the files of one directory share it (a lookup per
    file, not an lstat per component). Never given a relative path: the cache would answer
    for another working directory."""
    return str(_real(path))


def _real_file(path: str) -> str:
    """`_real(path)`, its directory's part looked up once per directory."""
    try:
        absolute = os.path.abspath(path)
        head, tail = os.path.split(absolute)
        if not tail or os.path.islink(absolute):
            return str(_real(absolute))
    except (OSError, ValueError):
        return str(_real(path))
    return os.path.join(_real_dir(head), tail)


def instantiation_subject(inst: Instantiation) -> str:
    """`NAME(arg, arg, ...)` with whitespace collapsed: what a finding on it is about."""
    args = ", ".join(" ".join(a.split()) for a in inst.args)
    return f"{inst.name}({args})"


def file_subject(d: Diagnostic, rel_path: str) -> str:
    """A file-level finding's message, free of the machine's path and of line numbers."""
    return _LINE_NUMBER.sub("line #", d.message.replace(d.path, rel_path))


def _utf8(text: str) -> bytes:
    """A file name that is not UTF-8 hashes as the bytes it has on disk (PEP 383's
    surrogateescape); any other lone surrogate as itself."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def fingerprint(rule: str, rel_path: str, subject: str, occurrence: int) -> str:
    """The fingerprint of the `occurrence`-th (1-based) finding with this identity in the file."""
    identity = "\0".join([f"v{FINGERPRINT_VERSION}", rule, rel_path, subject])
    digest = hashlib.sha256(_utf8(identity)).hexdigest()[:16]
    return f"{digest}:{occurrence}"


def fingerprint_file(f: FileResult, root: Path) -> FileResult:
    """`f` with every finding's fingerprint set, relative to `root`."""
    rel = relative_path(f.path, root)
    seen: Counter[tuple[str, str]] = Counter()
    starts = {r.instantiation.span.line: r.instantiation for r in f.instantiations}

    def one(d: Diagnostic, inst: Instantiation | None) -> Diagnostic:
        subject = instantiation_subject(inst) if inst is not None else file_subject(d, rel)
        seen[(d.rule, subject)] += 1
        fp = fingerprint(d.rule, rel, subject, seen[(d.rule, subject)])
        return d.model_copy(update={"fingerprint": fp})

    # A file-level finding at the first line of an instantiation (CUT004, CUT005) is about that
    # instantiation: it takes the instantiation's identity, so it too survives line shifts.
    file_diags = tuple(
        one(d, starts.get(d.line) if d.line is not None else None) for d in f.diagnostics
    )
    # a row without findings is kept as it is (a copy of each was most of this on a build)
    rows = tuple(
        r.model_copy(update={"diagnostics": tuple(one(d, r.instantiation) for d in r.diagnostics)})
        if r.diagnostics
        else r
        for r in f.instantiations
    )
    return f.model_copy(update={"diagnostics": file_diags, "instantiations": rows})


def with_fingerprints(result: CheckResult, root: Path) -> CheckResult:
    """`result` with every finding's fingerprint set, relative to `root` (recorded in it)."""
    files = tuple(fingerprint_file(f, root) for f in result.files)
    return result.model_copy(update={"files": files, "root": str(_real(root))})
