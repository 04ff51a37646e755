"""The cache a log is explained against: cutlint's CheckResult of it, indexed by file name.

Paths in a log name files on the machine that wrote it (`/workspace/flashinfer/csrc/...`), so
they are matched by the generated file's name and, where several files share a name (a cache
root holding several FlashInfer versions), by the longest common tail of the path.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePath

from cutlint.context.of_file import release_at
from cutlint.families.base import moe_args
from cutlint.records import ArchLimits, CheckResult, FileResult, InstantiationResult, Shape3


def _tail_match(a: str, b: str) -> int:
    """How many trailing path components two paths share."""
    pa, pb = PurePath(a.replace("\\", "/")).parts, PurePath(b.replace("\\", "/")).parts
    n = 0
    while n < min(len(pa), len(pb)) and pa[-1 - n] == pb[-1 - n]:
        n += 1
    return n


@dataclass(frozen=True)
class CacheIndex:
    root: str
    result: CheckResult
    by_name: dict[str, list[FileResult]] = field(default_factory=dict)

    @classmethod
    def of(cls, root: str, result: CheckResult) -> CacheIndex:
        by_name: dict[str, list[FileResult]] = defaultdict(list)
        for f in result.files:
            by_name[PurePath(f.path).name].append(f)
        return cls(root, result, dict(by_name))

    @property
    def flashinfer_versions(self) -> tuple[str, ...]:
        """The FlashInfer releases that wrote the cache's files, as `check` resolved each file's
        context (its build file, the wheel's _build_meta.py, else `flashinfer/<version>/` in
        its path)."""
        found = {release_at(f.path, f.context) for f in self.result.files}
        return tuple(sorted(v for v in found if v))

    def files_for(self, path: str, name: str) -> list[FileResult]:
        """Files called `name`; of several, those sharing the longest path tail with `path`."""
        files = self.by_name.get(name, [])
        if len(files) <= 1:
            return files
        best = max(_tail_match(path, f.path) for f in files)
        return [f for f in files if _tail_match(path, f.path) == best]

    def generated_files(self) -> list[FileResult]:
        return [f for f in self.result.files if f.path.endswith(".generated.cu")]

    @staticmethod
    def at_line(f: FileResult, line: int) -> tuple[list[InstantiationResult], str]:
        """The instantiation a `__LINE__` names, and how it was found.

        nvcc (like gcc) expands `__LINE__` inside a macro to the line of the macro's name, which
        is the span's first line; a compiler that used another line of the call still lands
        inside the span, so that is accepted second and said so.
        """
        exact = [r for r in f.instantiations if r.instantiation.span.line == line]
        if exact:
            return exact, f"line {line} is the macro name's line"
        inside = [
            r
            for r in f.instantiations
            if r.instantiation.span.line <= line <= r.instantiation.span.end_line
        ]
        if inside:
            first = inside[0].instantiation.span
            return inside, f"line {line} is inside the call at lines {first.line}-{first.end_line}"
        return [], f"line {line} of {PurePath(f.path).name} holds no instantiation"

    def with_tile(self, tile: Shape3, sm: int | None) -> list[InstantiationResult]:
        out: list[InstantiationResult] = []
        for f in self.result.files:
            for r in f.instantiations:
                m = moe_args(r)
                if m is not None and m.cta_tile == tile and (sm is None or m.sm == sm):
                    out.append(r)
        return out

    def arch(self) -> ArchLimits | None:
        """The arch the cache was judged for (the one most of its modeled instantiations were)."""
        seen: dict[str, tuple[int, ArchLimits]] = {}
        for r in self.all_instantiations():
            if r.resources is not None:
                n, a = seen.get(r.resources.arch.name, (0, r.resources.arch))
                seen[r.resources.arch.name] = (n + 1, a)
        return max(seen.values(), key=lambda x: x[0])[1] if seen else None

    def all_instantiations(self) -> list[InstantiationResult]:
        return [r for f in self.result.files for r in f.instantiations]
