"""`check -p BUILD_DIR --tu`: the translation units whose kernels only the TU front end finds.

The scanner reads kernels written at namespace scope. vLLM's and SGLang's are class templates
(`sm120_fp8_config_M64<OutType, ...>::Cutlass3xGemm`) reached through dispatch functions the
`.cu` entry points instantiate: only `cutlint tu`, libclang with the build's flags, finds them.
So when a compile database is at hand, `check` lists the database's TUs among the checked files
whose own sources (the `.cu` and the project headers it includes) hold `CollectiveBuilder` code,
and with `--tu` reads each as `cutlint tu` does (its cache keyed by content and flags answers a
second run at once). Without `--tu` it only counts them: a TU costs tens of seconds cold.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.context.targets import target
from cutlint.engine.fingerprint import fingerprint, relative_path
from cutlint.engine.tu_judge import judge
from cutlint.parse.tu import read_tu
from cutlint.parse.tu.command import CompileDatabase
from cutlint.parse.tu.headers import include_dirs
from cutlint.records import Diagnostic, Severity
from cutlint.tu_records import CompileCommand, TuJudged, TuRead, TuSection, TuVerdict

MARKER = b"CollectiveBuilder"
"""What makes a TU the front end's: CUTLASS 3.x kernels are built through the builders."""
MAX_HEADERS = 200
"""Project headers followed per TU when looking for the marker (a bound, not a limit of
interest: vLLM's deepest chain is 4 headers)."""

_QUOTED = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


@dataclass(frozen=True)
class Candidate:
    path: str
    command: CompileCommand


def _library(d: Path) -> bool:
    return (d / "cutlass" / "cutlass.h").is_file() or (d / "cute" / "tensor.hpp").is_file()


def holds_builder_code(source: Path, dirs: Sequence[Path]) -> bool:
    """Whether `source` or a project header it includes (`#include "..."`, found beside the
    includer or on the command's non-library include path) holds `CollectiveBuilder`."""
    own_dirs = [d for d in dirs if not _library(d)]
    todo, seen = [source.resolve()], set[Path]()
    while todo and len(seen) < MAX_HEADERS:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        try:
            text = f.read_bytes()
        except OSError:
            continue
        if MARKER in text:
            return True
        for m in _QUOTED.finditer(text):
            name = m[1].decode(errors="replace")
            for base in (f.parent, *own_dirs):
                hit = base / name
                if hit.is_file():
                    todo.append(hit.resolve())
                    break
    return False


def candidates(paths: Sequence[str], database: str) -> list[Candidate]:
    """The checked `.cu` files with an entry in the database whose sources hold builder code."""
    db = Path(database)
    db = db / "compile_commands.json" if db.is_dir() else db
    out: list[Candidate] = []
    try:
        commands = CompileDatabase(db)
    except (OSError, ValueError, KeyError):
        return out  # an unreadable database: check's context already says so per file
    for p in paths:
        if not p.endswith(".cu"):
            continue
        try:
            command = commands.command(Path(p))
        except (OSError, ValueError):
            return out  # as the database's scan stopped at a command that does not split
        if command is None:
            continue
        if holds_builder_code(Path(p), include_dirs(command.args)):
            out.append(Candidate(p, command))
    return out


def target_for(command: CompileCommand, gpu_sm: int | None) -> str | None:
    """The command's target whose code the GPU runs (its first, when no GPU is named); None
    when the command builds none that loads on the GPU: the TU is not for this GPU, and its
    kernels are not judged by its limits (an SM90 TU's kernels against sm_120's 101,376 B
    would all "fail"). A command without targets: the GPU's `sm_XYa` (`cutlint tu`'s default
    otherwise)."""
    if not command.arches:
        return f"sm_{gpu_sm}a" if gpu_sm is not None else "sm_90a"
    if gpu_sm is None:
        return command.arches[0]
    for a in command.arches:
        t = target(a)
        if t is not None and t.loads_on(gpu_sm):
            return a
    return None


@dataclass(frozen=True)
class Read:
    """The TUs read and judged, and those whose build does not target the GPU."""

    reads: list[tuple[TuRead, list[TuVerdict]]]
    not_for_gpu: list[str]


def read_all(found: Sequence[Candidate], gpu_sm: int | None, use_cache: bool = True) -> Read:
    """Each TU read and judged for its target, as `cutlint tu` does."""
    reads: list[tuple[TuRead, list[TuVerdict]]] = []
    skipped: list[str] = []
    for c in found:
        t = target_for(c.command, gpu_sm)
        if t is None:
            skipped.append(c.path)
            continue
        read = read_tu(c.command, t, use_cache=use_cache)
        reads.append((read, list(judge(read))))
    return Read(reads, skipped)


def section(
    found: Sequence[Candidate],
    database: str,
    read: bool,
    gpu: str | None,
    gpu_sm: int | None,
    use_cache: bool = True,
) -> TuSection:
    """What `check -p` adds to the report: the TUs counted, or (`read`) read and judged."""
    if not read:
        return TuSection(database=database, found=len(found), read=False, gpu=gpu)
    done = read_all(found, gpu_sm, use_cache=use_cache)
    return TuSection(
        database=database,
        found=len(found),
        read=True,
        gpu=gpu,
        units=tuple(TuJudged(read=r, verdicts=tuple(vs)) for r, vs in done.reads),
        not_for_gpu=tuple(done.not_for_gpu),
    )


def diagnostics(tus: TuSection, root: Path) -> list[tuple[Diagnostic, TuVerdict]]:
    """Each kernel's findings as the line-oriented formats place them: at the source line that
    chose the kernel, with a fingerprint whose subject is the kernel's type as written on its
    dispatch path (a line shift keeps it, as an instantiation's args keep a file finding's)."""
    out: list[tuple[Diagnostic, TuVerdict]] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for v in tus.verdicts():
        site = v.kernel.chosen_by
        rel = relative_path(site.path, root)
        for f in v.findings:
            key = (f.rule, rel, v.kernel.type_expr)
            seen[key] += 1
            d = Diagnostic(
                rule=f.rule,
                name=f.name,
                severity=Severity(f.severity),
                path=site.path,
                line=site.line,
                message=f"{f.message}: {v.kernel.type_expr} [{v.arch}]",
                fingerprint=fingerprint(f.rule, rel, v.kernel.type_expr, seen[key]),
            )
            out.append((d, v))
    return out


__all__ = [
    "Candidate",
    "Read",
    "candidates",
    "diagnostics",
    "holds_builder_code",
    "read_all",
    "section",
    "target_for",
]
