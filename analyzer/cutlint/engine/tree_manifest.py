"""The check cache's fast path for a tree: each file's entry key remembered by its stat, so that
a re-check of an unchanged tree reads no file, resolves no build context and hashes nothing
before it loads the kept results (ruff keeps its cache the same way, by path and mtime).

An entry key (engine/cache.py) is made from the file's bytes, the headers beside it that its
macro calls are read by, and its resolved build context: reading and hashing those was two thirds
of a cached re-run (a 7,100-kernel cutlass_library build: 36 of 53 profiled seconds). A manifest,
one per run configuration (cutlint's own key, the options, the paths given, the working
directory), holds

    files: path as given -> (size, mtime_ns, inode, ctime_ns, entry key)
    deps:  every path the keys' making read or probed (build files, version headers, headers
           beside a file, a compile_commands.json looked for and not found, the directories
           an installed package is looked up in) -> its stat, or None where there was none

A file's remembered key is used only when its stat is the same and every dependency's stat is
the same; a changed dependency drops the whole manifest (every key is made again), a changed
file only its own row. The manifest is read whole and written whole, atomically; one that is
missing, corrupt or foreign is an empty one, never an error.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_core import from_json, to_json

from cutlint import inputs
from cutlint.engine.options import CheckOptions
from cutlint.inputs import Signature as Signature  # (size, mtime_ns, inode, ctime_ns)
from cutlint.inputs import signature as signature

SCHEMA = 1
"""The layout of a manifest; another one is another file name."""


def _sig(value: Any) -> Signature | None:
    if isinstance(value, list) and len(value) == 4 and all(isinstance(v, int) for v in value):
        return (value[0], value[1], value[2], value[3])
    return None


def configuration(tool: str, paths: Sequence[Path | str], options: CheckOptions) -> str:
    """The manifest's name: what every key of the run shares (engine/cache.context_key's
    run-wide part, the paths given and where they are read from)."""
    cutlass = options.cutlass_version
    version_h = None
    if cutlass is not None and os.path.isdir(cutlass):
        version_h = signature(os.path.join(cutlass, "cutlass", "version.h"))
    parts: tuple[object, ...] = (
        SCHEMA,
        tool,
        [str(p) for p in paths],
        os.getcwd(),
        options.arch,
        cutlass,
        version_h,
        sorted(options.defines.items()),
        sorted(options.undefines),
        options.flashinfer_version,
        options.selection.select,
        options.selection.ignore,
        str(options.root or Path.cwd()),
        options.build_dir,
        options.compile_command,
        sys.path,  # where an installed producer package is looked up (context/packages.py)
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


class TreeManifest:
    """One run's manifest: the remembered keys it may use, and what this run adds."""

    def __init__(self, location: Path, files: dict[str, Any], deps: dict[str, Any]) -> None:
        self.location = location
        self.files = files
        """path -> [size, mtime_ns, inode, ctime_ns, key], as read and as this run updates."""
        self.deps = deps
        """path -> [size, mtime_ns, inode, ctime_ns] or None."""
        self.changed = False
        self.seen: set[str] = set()
        """The files this run asked about: a file no longer in the tree is not written again."""

    @classmethod
    def open(cls, entries: Path, name: str) -> TreeManifest:
        """The manifest `name` of the cache whose entries are in `entries` (kept beside them,
        in `trees-v<SCHEMA>`)."""
        location = entries.parent / f"trees-v{SCHEMA}" / f"{name}.json"
        try:
            data = from_json(location.read_bytes())
        except (OSError, ValueError):
            return cls(location, {}, {})
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return cls(location, {}, {})
        files, deps = data.get("files"), data.get("deps")
        if not isinstance(files, dict) or not isinstance(deps, dict):
            return cls(location, {}, {})
        if any(signature(p) != (_sig(s) if s is not None else None) for p, s in deps.items()):
            return cls(location, {}, {})  # a build file, header or package changed: start over
        return cls(location, files, deps)

    def key(self, path: str) -> str | None:
        """The remembered key of `path`, if the file is as it was when the key was made."""
        self.seen.add(path)
        row = self.files.get(path)
        if not isinstance(row, list) or len(row) != 5 or not isinstance(row[4], str):
            return None
        now = signature(path)
        return row[4] if now is not None and now == _sig(row[:4]) else None

    def remember(self, path: str, key: str, before: Signature | None, read: set[str]) -> None:
        """`key`, made for `path` whose stat before it was read was `before`, and the paths
        that making it read or probed. A file that changed while its key was made (its stat
        differs now) is not remembered."""
        # a name the manifest cannot hold (not UTF-8), its own or a dependency's: never kept
        if before is None or signature(path) != before or not all(map(_json_key, [path, *read])):
            self.files.pop(path, None)
            return
        self.files[path] = [*before, key]
        if not self.changed:
            # where installed packages are looked up, whether or not this process asked there
            # yet (context/packages.py caches its answers for the process)
            read = read | set(inputs.package_dirs())
        itself = os.path.abspath(path)  # its own change is its row's, not every file's
        for dep in read:
            if dep != itself and dep not in self.deps and _json_key(dep):  # package dirs
                self.deps[dep] = signature(dep)
        self.changed = True

    def adopt(self, rows: dict[str, Any], deps: dict[str, Any]) -> None:
        """What another process remembered for files of this run: their rows and the
        dependencies it found (engine/keying.py's helpers)."""
        if rows or deps:
            self.files.update(rows)
            for dep, sig in deps.items():
                self.deps.setdefault(dep, sig)
            self.changed = True

    def save(self) -> None:
        """Write the manifest if this run added to it; a cache that cannot be written is no
        error."""
        if not self.changed and self.seen == self.files.keys():
            return
        files = {p: row for p, row in self.files.items() if p in self.seen}
        try:
            data = to_json({"schema": SCHEMA, "files": files, "deps": self.deps})
        except ValueError:
            return  # a path JSON cannot hold (a file name that is not UTF-8): nothing is kept
        inputs.write_atomically(self.location, data)


def _json_key(path: str) -> bool:
    """Whether `path` can be a key of the manifest's JSON: a name that is not UTF-8 (Python
    holds its bytes as surrogates) is checked every run, never kept."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
