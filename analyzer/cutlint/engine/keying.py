"""The stat phase: every file's entry key, before the run decides which files its cache answers.

A file's key is the one its tree manifest remembers where the file is unchanged (a stat), else
one made from its bytes, the headers its macro calls read and its resolved build context
(engine/cache.py `ResultCache.key`), and remembered. Making keys is the one part of a run that
no parser worker overlaps: they decide which files are parsed at all (a hit is not) and whether
the tree pack answers the whole run. On a first run of 100,000 kernels that was 7 to 8 s of the
parent's CPU with the worker idle. So where many keys are to be made and the run has workers,
forked helpers make a share of them at the same time: each takes a contiguous slice of the
files (neighbours share a build context and a compile database), keys it as the parent would,
and sends back the keys, its manifest rows and the dependencies it found. A helper that fails
or dies is no error: the parent keys its slice itself.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cutlint import inputs
from cutlint.engine.options import CheckOptions
from cutlint.inputs import signature
from cutlint.parse import walk

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from cutlint.engine.cache import ResultCache
    from cutlint.engine.tree_manifest import TreeManifest

SPLIT_MIN = 4096
"""Keys to make below which the parent makes them alone: a helper's fork, and sending its keys
back, cost more than a few thousand keys (about 80 us each on the 2-core machine)."""

_Sent = tuple[list[str | None], dict[str, Any], dict[str, Any]]
"""What a helper sends: a key per file of its slice (None: unreadable), its manifest rows and the
dependencies it added."""


def keys(
    cache: ResultCache | None,
    tree: TreeManifest | None,
    entries: Sequence[walk.Entry],
    options: CheckOptions,
    helpers: int,
) -> dict[int, str]:
    """Each readable file's key by its index in `entries` (none without a cache); `helpers`:
    how many forked processes may make keys beside this one."""
    if cache is None:
        return {}
    made: dict[int, str] = {}
    todo: list[int] = []
    for i, e in enumerate(entries):
        if e.problem is None:
            key = tree.key(e.path) if tree is not None else None
            if key is None:
                todo.append(i)
            else:
                made[i] = key
    slices = _slices(todo, helpers + 1) if len(todo) >= SPLIT_MIN and helpers > 0 else [todo]
    mine, theirs = slices[0], slices[1:]
    started = [_start(cache, tree, [entries[i].path for i in s], options) for s in theirs]
    for i in mine:
        _keep(made, i, make(cache, tree, entries[i].path, options))
    for share, helper in zip(theirs, started, strict=True):
        sent = _received(helper)
        if sent is None:  # no helper, or it failed: its slice is keyed here
            for i in share:
                _keep(made, i, make(cache, tree, entries[i].path, options))
            continue
        got, rows, deps = sent
        for i, key in zip(share, got, strict=True):
            _keep(made, i, key)
        if tree is not None:
            tree.adopt(rows, deps)
    return made


def make(
    cache: ResultCache, tree: TreeManifest | None, path: str, options: CheckOptions
) -> str | None:
    """A key made now from the file's bytes and context, and remembered; None for a file that
    cannot be read."""
    before = signature(path)
    with inputs.recording() as read:
        key = cache.key(path, options)
    if key is not None and tree is not None:
        tree.remember(path, key, before, read)
    return key


def _keep(made: dict[int, str], i: int, key: str | None) -> None:
    if key is not None:
        made[i] = key


def _slices(todo: list[int], n: int) -> list[list[int]]:
    size = -(-len(todo) // n)
    return [todo[k : k + size] for k in range(0, len(todo), size)]


def _start(
    cache: ResultCache, tree: TreeManifest | None, paths: list[str], options: CheckOptions
) -> tuple[multiprocessing.process.BaseProcess, Connection] | None:
    """A forked helper keying `paths`, or None where none can be forked (then the parent keys
    them). Forked, not spawned: it inherits the imported modules and the run's objects."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_helper, args=(there, cache, tree, paths, options), daemon=True)
    try:
        proc.start()
    except (OSError, AssertionError):  # AssertionError: this is a daemonic process itself
        here.close()
        there.close()
        return None
    there.close()
    return proc, here


def _helper(
    conn: Connection,
    cache: ResultCache,
    tree: TreeManifest | None,
    paths: list[str],
    options: CheckOptions,
) -> None:
    inputs.forget_recordings()  # the parent's; this process's reads are sent as dependencies
    try:
        before = set(tree.deps) if tree is not None else set()
        got = [make(cache, tree, p, options) for p in paths]
        rows: dict[str, Any] = {}
        deps: dict[str, Any] = {}
        if tree is not None:
            rows = {p: tree.files[p] for p in paths if p in tree.files}
            deps = {d: s for d, s in tree.deps.items() if d not in before}
        conn.send((got, rows, deps))
    except BaseException:  # any failure at all: the parent keys this slice itself
        os._exit(1)
    conn.close()


def _received(
    helper: tuple[multiprocessing.process.BaseProcess, Connection] | None,
) -> _Sent | None:
    if helper is None:
        return None
    proc, conn = helper
    sent: _Sent | None = None
    try:
        sent = conn.recv()
    except (EOFError, OSError):
        pass  # it died or failed
    finally:
        conn.close()
        proc.join()
    return sent
