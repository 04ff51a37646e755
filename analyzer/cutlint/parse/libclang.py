"""The one place cutlint calls libclang: which `#if` branches a define set compiles.

libclang's preprocessor is the authority on conditionals (`defined`, arithmetic, macros defined in
the file, `__has_include`, clang's predefined macros), and `clang_getSkippedRanges` reports the
branches it skipped as byte ranges. The bindings do not expose that function, so it is declared
here through ctypes. `clang` is imported on first use only: a run whose files have no `#if`
never loads the 68 MB library, and importing `cutlint.parse` stays cheap.

libclang can still kill the process on pathological input (20,000 nested parentheses in an `#if`
overflow its recursive-descent evaluator), which is why the pool calls this in worker processes.
"""

from __future__ import annotations

import atexit
import ctypes
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class ParserFailure(Exception):
    """libclang could not produce a translation unit."""


class _Clang:
    """The loaded bindings and the declarations cutlint adds to them."""

    def __init__(self) -> None:
        from clang import cindex  # type: ignore[import-untyped]

        class SourceRangeList(ctypes.Structure):
            _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(cindex.SourceRange))]

        lib = cindex.conf.lib
        lib.clang_getSkippedRanges.argtypes = [cindex.TranslationUnit, ctypes.c_void_p]
        lib.clang_getSkippedRanges.restype = ctypes.POINTER(SourceRangeList)
        lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(SourceRangeList)]
        lib.clang_disposeSourceRangeList.restype = None
        self.cindex: Any = cindex
        self.lib: Any = lib
        self.index: Any = cindex.Index.create()
        # The detailed processing record is where clang keeps the skipped ranges.
        self.options: int = (
            cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            | cindex.TranslationUnit.PARSE_INCOMPLETE
        )
        self._last: tuple[str, tuple[str, ...], Any] | None = None
        """(main file, arguments, translation unit) of the previous parse, for reparsing."""

    def parse(self, main: str, text: bytes, args: list[str]) -> Any:
        unsaved = [(main, text)]
        if self._last is not None and self._last[:2] == (main, tuple(args)):
            tu = self._last[2]
            try:
                tu.reparse(unsaved_files=unsaved, options=0)
                return tu
            except self.cindex.TranslationUnitLoadError:
                pass  # the unit is invalid now; parse afresh below
        self._last = None
        try:
            tu = self.index.parse(main, args, unsaved_files=unsaved, options=self.options)
        except self.cindex.TranslationUnitLoadError as err:
            raise ParserFailure(f"libclang could not parse the file: {err}") from err
        self._last = (main, tuple(args), tu)
        return tu


_loaded: _Clang | None = None


def _clang() -> _Clang:
    global _loaded
    if _loaded is None:
        try:
            _loaded = _Clang()
        except (ImportError, OSError, AttributeError) as err:  # AttributeError: an old libclang
            raise ParserFailure(f"libclang could not be loaded: {err}") from err
        # Drop the index while the bindings are still alive: at interpreter shutdown its
        # __del__ would otherwise run after `clang.cindex.conf` is gone, and print a traceback.
        atexit.register(_unload)
    return _loaded


def preload() -> None:
    """Load libclang now (a warm worker, pool.prestart); raises ParserFailure."""
    _clang()


def _unload() -> None:
    global _loaded
    _loaded = None


# The name the skeleton is parsed under: one per directory, so that a quoted `__has_include`
# resolves where it would for the real file, and the same translation unit can be reparsed
# for every file of that directory.
SKELETON_NAME = "cutlint-skeleton.cu"


@dataclass(frozen=True)
class Preprocessed:
    skipped: list[tuple[int, int]]
    """Byte ranges [start, end) of the branches the preprocessor skipped."""
    errors: list[tuple[int, str]]
    """(offset, message) of each error the preprocessor reported in the file itself."""


def _directory(path: str) -> str:
    """The file's directory, where a quoted `__has_include` looks; a stand-in where libclang
    cannot take the real one: a name that is not UTF-8 (the bindings encode every string as
    UTF-8) or one longer than its file manager opens."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        encoded = directory.encode("utf-8")
    except UnicodeEncodeError:
        return "/cutlint-directory"
    return directory if len(encoded) < 3000 else "/cutlint-directory"


def skipped_ranges(path: str, text: bytes, args: Sequence[str]) -> list[tuple[int, int]]:
    """Byte ranges [start, end) of the branches the preprocessor skipped in `text`."""
    return preprocess(path, text, args).skipped


def preprocess(path: str, text: bytes, args: Sequence[str]) -> Preprocessed:
    """The branches the preprocessor skipped in `text`, and the errors it reported there.

    `text` is given to libclang as unsaved contents, so the file on disk is not read again (and
    need not exist). Consecutive files of one directory reuse one translation unit through
    `clang_reparseTranslationUnit`, which rebuilds the preprocessor from scratch (no macro of one
    file survives into the next; tested) at half the cost of a fresh parse (0.7 against 1.7 ms
    per FlashInfer file), the per-TU set-up being most of the time for files this small.
    """
    cl = _clang()
    main = os.path.join(_directory(path), SKELETON_NAME)
    tu = cl.parse(main, text, list(args))
    cxfile = cl.lib.clang_getFile(tu, main.encode())
    if not cxfile:
        raise ParserFailure("libclang lost track of the main file")
    listed = cl.lib.clang_getSkippedRanges(tu, cxfile)
    try:
        ranges = listed.contents.ranges
        out = [(ranges[i].start.offset, ranges[i].end.offset) for i in range(listed.contents.count)]
    finally:
        cl.lib.clang_disposeSourceRangeList(listed)
    errors = [
        (d.location.offset, str(d.spelling))
        for d in tu.diagnostics
        if d.severity >= cl.cindex.Diagnostic.Error
        and d.location.file is not None
        and str(d.location.file.name) == main
    ]
    return Preprocessed(sorted(out), errors)
