"""cutlint's own key: what every kept answer (the check cache's entries, manifests and packs, the
compiled rules) is made by, so that another cutlint, or an edited model or rule of the same
version, never answers from them; and whether the cache is on."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import cutlint.rules
from cutlint import __version__, inputs
from cutlint.cache_dir import ENV_OFF as ENV_OFF
from cutlint.cache_dir import cache_dir

_PACKAGE = Path(__file__).resolve().parents[1]


def enabled(no_cache: bool = False) -> bool:
    return not no_cache and not os.environ.get(ENV_OFF)


@cache
def tool_key() -> str:
    """cutlint's version and the content of every source, data table and rule file it ships (the
    rules are `cutlint.rules`, which an editable install maps outside the package): a
    development checkout keeps one version number across many models and rules.

    Reading and hashing those 400-odd files was a sixth of a one-file check's start-up, so the
    key is remembered under the files' stat (name, size, mtime_ns, inode), as the tree manifest
    remembers a file's key: an edited file is another stat, and its key is made again."""
    files = _tool_files()
    if not enabled():
        return _tool_key(files)  # nothing is kept: the memo neither
    stats = hashlib.blake2b(f"tool {__version__}".encode(), digest_size=16)
    for name, path in files:
        try:
            st = os.stat(path)
        except OSError:
            return _tool_key(files)
        stats.update(f"\0{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}".encode())
    memo = cache_dir() / "check" / "tool-keys" / stats.hexdigest()
    try:
        kept = memo.read_text(encoding="ascii")
    except (OSError, ValueError):
        kept = ""
    if len(kept) == 32 and all(c in "0123456789abcdef" for c in kept):
        return kept
    key = _tool_key(files)
    inputs.write_atomically(memo, key.encode())
    return key


def _tool_files() -> list[tuple[str, str]]:
    """(the name hashed, its path) of every file the tool key covers, in its order."""
    out = []
    # The name is cut off the path: os.walk's paths all begin with the (resolved) package
    # directory, and os.path.relpath, which normalizes both paths again, was 12 of this list's
    # 19 ms (492 files, measured on the 2-core machine), in every check.
    cut = len(os.path.join(_PACKAGE, ""))
    for top, dirs, names in os.walk(_PACKAGE):  # os.walk: a third of what pathlib's rglob costs
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".toml", ".json")):
                path = os.path.join(top, name)
                out.append((path[cut:], path))
    # The rule files' directory as the import system found it (an editable install maps it
    # outside the package), listed with os.scandir: importlib.resources' Traversable took 6.5 ms
    # of this list's 12-14 ms to list the same files (on the 2-core machine).
    rules = next(iter(cutlint.rules.__path__))
    for group in sorted(os.scandir(rules), key=lambda g: g.name):
        if group.is_dir():
            for f in sorted(os.scandir(group.path), key=lambda f: f.name):
                out.append((f"rules/{group.name}/{f.name}", f.path))
    return out


def _tool_key(files: list[tuple[str, str]]) -> str:
    h = hashlib.blake2b(f"cutlint {__version__}".encode(), digest_size=16)
    for name, path in files:
        h.update(name.encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()
