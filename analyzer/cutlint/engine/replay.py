"""A `cutlint check` whose whole answer is already known: its report, its stderr notes and its exit
code replayed from the last run of the same command over the same unchanged tree, without
importing click's commands, pydantic, the records or the judge.

The report is a pure function of what the run read: the command line, the working directory, the
environment it reads (colour, CI), cutlint itself (`tool_key`), and the files and directories
that the walk listed and stat'ed, the config files looked for, the baseline, each file's bytes and
everything its entry key was made from (the tree manifest's rows and dependencies,
engine/tree_manifest.py), and what the measured-registers pass looks at. A run that may be
replayed keeps each of those paths' stat as it was when the run first looked at it
(`inputs.recording_stats`); a later run of the same command with every one of those stats the
same writes the kept bytes and exits with the kept code. Nothing else is trusted: an entry that
is missing, cut short, foreign (another key, schema or cutlint) or names another body, a stat
that differs, a path that cannot be stat'ed, any error at all before the first byte is written,
and the run goes the ordinary way (which keeps a new entry).

    $CUTLINT_CACHE/check/replay-v2/<key[:2]>/<key>.json           the header: the key, the exit
                                                                  code, stderr's text, -o's
                                                                  target, the checked paths, the
                                                                  dependencies, the body's files
                                                                  and their segments
    $CUTLINT_CACHE/check/replay-v2/<key[:2]>/<key>.<nonce>.out    the report's bytes, as the
                                                                  run wrote them
    $CUTLINT_CACHE/check/replay-v2/<key[:2]>/<key>.<nonce>.spool.out   a streamed report's
                                                                  spool (its files' texts)

The body is written first under names of its own and never changed; the header, which names its
files, their sizes and the segments of them the report is made of in order, is moved into place
last (`os.replace`), so that a concurrent reader finds a whole entry, an older whole entry, or
none. A streamed report (report/spool.py) writes its files' texts to a spool before its head,
which comes first: where the run is kept, the spool is made beside the body (`Recorder.spool`)
and is the entry's second file, so that the texts are written once, not copied into the body at
the end (868 MB of a hundred thousand kernels' 1 GB JSON report). This module imports only the
standard library and cutlint's own small modules: it runs before the command line is parsed
(cutlint/__main__.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

from cutlint.cache_dir import cache_dir
from cutlint.engine.tool import ENV_OFF, tool_key
from cutlint.inputs import Signature

if TYPE_CHECKING:
    from cutlint.engine.options import CheckOptions

SCHEMA = 2
"""The layout of an entry; another one is another directory."""

ENV_LOG = "CUTLINT_REPLAY_LOG"
"""A file that each `cutlint check` appends one line to: `replayed`, `stored`, or why it was not
(`miss: ...`, `not stored: ...`). For the tests, and for asking why a run was not replayed."""

_ORPHAN_AGE_S = 3600
"""A body file no header names, untouched this long, was left by a run stopped while writing it."""

_MAX_FILES = 2
"""An entry's files: its body, and the spool of a streamed report (Recorder.spool)."""

ENV_EXACT = frozenset(
    {"NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "CI", "COLUMNS", "LANG"}
    | {"LANGUAGE", "HOME", "PATH", "VIRTUAL_ENV", "CUDA_HOME", "CUDA_PATH", "TZ"}
    | {"LD_LIBRARY_PATH", "LD_PRELOAD"}
)
ENV_PREFIXES = ("CUTLINT_", "PYTHON", "PYDANTIC_", "LC_", "CLICK_", "LIBCLANG_")
"""The environment a check's report can depend on, all of it in the key: colour (report/style.py:
NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE, TERM), `CI` (the progress bar), cutlint's own variables
(`CUTLINT_PARSE_TIMEOUT` is an option's value), Python's (the encoding of stdout, the module
path), which libclang parses (its bindings' `LIBCLANG_LIBRARY_FILE`, the dynamic loader's
path), the locale, and where a CUDA toolkit or an environment is looked up. Other variables
(a shell's `OLDPWD`, `SHLVL`) leave the key alone."""


def directory() -> Path:
    return cache_dir() / "check" / f"replay-v{SCHEMA}"


def _stream_key(stream: Any) -> tuple[object, ...]:
    """What of a standard stream decides the bytes written to it: a terminal or not, and its
    encoding and error handler (the body is the bytes the run wrote)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = None
    return (tty, getattr(stream, "encoding", None), getattr(stream, "errors", None))


def request_key(argv: Sequence[str], tool: str | None = None) -> str | None:
    """The key of this process's command `argv` (the arguments after the program name): None
    when one of its parts cannot be had (a working directory that was removed)."""
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    env = sorted(
        (k, v) for k, v in os.environ.items() if k in ENV_EXACT or k.startswith(ENV_PREFIXES)
    )
    parts: tuple[object, ...] = (
        SCHEMA,
        tool if tool is not None else tool_key(),
        list(argv),
        cwd,
        env,
        sys.executable,
        sys.path,
        _stream_key(sys.stdout),
        _stream_key(sys.stderr),
    )
    data = repr(parts).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _header_path(key: str) -> Path:
    return directory() / key[:2] / f"{key}.json"


def log(line: str) -> None:
    """One line to `$CUTLINT_REPLAY_LOG`, where it is set; never an error."""
    where = os.environ.get(ENV_LOG)
    if where:
        with contextlib.suppress(OSError), open(where, "a", encoding="utf-8") as f:
            f.write(line + "\n")


# --- a run that may be replayed: what it keeps ------------------------------------------------


@dataclass
class Recorder:
    """One `cutlint check` being kept for replay: what its report depends on and what it wrote.
    The command (cli/commands/check.py) fills it as it runs and calls `store` at the end; any
    `refuse` on the way (an option whose result is not kept, a file whose stat moved while it
    was read) keeps nothing."""

    key: str
    deps: dict[str, Signature | None] = field(default_factory=dict)
    """absolute path -> its stat when the run first looked at it (None: nothing was there)."""
    stderr: list[str] = field(default_factory=list)
    target: str | None = None
    """`-o`'s value as given, or None for stdout."""
    checked: tuple[str, ...] = ()
    """The checked paths -o refuses to write over (output_target.check)."""
    refused: str | None = None
    seen: Mapping[str, Signature | None] = field(default_factory=dict)
    """What the run looked at through cutlint.inputs (inputs.recording_stats), as it goes."""
    body: IO[bytes] | None = None
    body_path: Path | None = None
    size: int = 0
    """Bytes written to the body."""
    spool_file: IO[str] | None = None
    spool_path: Path | None = None
    spool_size: int | None = None
    """The spool's bytes once its text is in the report (`adopt`); None while it is not."""
    segments: list[list[int]] = field(default_factory=list)
    """The report in order: [file, offset, length] each, file 0 the body and 1 the spool."""

    def refuse(self, why: str) -> None:
        if self.refused is None:
            self.refused = why

    def depend(self, found: Mapping[str, Signature | None]) -> None:
        """Paths and their stats, as first seen: a path seen again with another stat has
        changed during the run, and nothing is kept."""
        for path, sig in found.items():
            held = self.deps.setdefault(path, sig)
            if held != sig:
                self.refuse(f"{path} changed during the run")

    def depend_on_tree(
        self, paths: Sequence[Path | str], options: CheckOptions, judged: Sequence[str]
    ) -> None:
        """What the run's results depend on besides what it looked at itself: each file's
        entry key was made, maybe by an earlier run, from the build files, headers and
        installed packages the tree manifest lists with their stats; a CUTLASS directory's
        version.h names the manifest. Refused unless the tree pack answered the run whole or
        was written whole by it (no parser crash or time-out: every result is kept). `judged`:
        the files with instantiations and the skipped ones, which the manifest must hold."""
        from cutlint.engine import tree_pack
        from cutlint.engine.cache import check_dir
        from cutlint.engine.tree_manifest import TreeManifest, configuration
        from cutlint.inputs import package_dirs, signature

        self.depend(dict(self.seen))
        name = configuration(tool_key(), paths, options)
        if tree_pack.location(check_dir(), name) not in tree_pack.KEPT:
            self.refuse("not every file's result is kept")
            return
        manifest = TreeManifest.open(check_dir(), name)
        if any(p not in manifest.files for p in judged):
            self.refuse("the tree manifest does not hold every file")
            return
        kept = {p: tuple(s) if isinstance(s, list) else None for p, s in manifest.deps.items()}
        self.depend(cast("dict[str, Signature | None]", kept))
        more = list(package_dirs())
        cutlass = options.cutlass_version
        if cutlass is not None and os.path.isdir(cutlass):
            more += [cutlass, os.path.join(cutlass, "cutlass", "version.h")]
        self.depend({os.path.abspath(p): signature(p) for p in more})

    def note(self, text: str) -> None:
        """A line the command wrote to stderr (`click.echo(text, err=True)`)."""
        self.stderr.append(text + "\n")

    def _new_file(self, suffix: str) -> Path | None:
        """A name of its own for one of this entry's files, its directory made; None (refused)
        where it cannot be made."""
        folder = directory() / self.key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            self.refuse(f"cannot write the body: {err}")
            return None
        return folder / f"{self.key}.{secrets.token_hex(8)}{suffix}"

    def spool(self) -> IO[str] | None:
        """A spool for a streamed report (a text file, read and written) made as the entry's
        second file, or None where it cannot be (the report spools to a temporary file, and the
        body keeps a copy as before)."""
        if self.refused is not None:
            return None
        where = self._new_file(".spool.out")
        if where is None:
            return None
        try:
            self.spool_file = open(where, "x+", encoding="utf-8")
        except OSError as err:
            self.refuse(f"cannot write the body: {err}")
            return None
        self.spool_path = where
        return self.spool_file

    def tee(self, out: TextIO) -> TextIO:
        """`out`, with what is written to it also kept (encoded as `out` encodes it)."""
        where = self._new_file(".out")
        if where is None:
            return out
        try:
            self.body = open(where, "xb")
        except OSError as err:
            self.refuse(f"cannot write the body: {err}")
            return out
        self.body_path = where
        return cast("TextIO", _Tee(out, self))

    def adopt(self, spool: IO[str]) -> bool:
        """Whether `spool` (rewound, its text flushed) is this entry's own, now kept as the
        report's next segment: then its bytes go to the report's stream only, not into the
        body. False for another spool, or once the run keeps nothing."""
        if spool is not self.spool_file or self.refused is not None or self.spool_size is not None:
            return False
        try:
            self.spool_size = os.fstat(spool.fileno()).st_size
        except (OSError, ValueError) as err:
            self.refuse(f"the report was not kept: {err}")
            return False
        self.segments.append([1, 0, self.spool_size])
        return True

    def kept(self, text: str, encoding: str | None, errors: str | None) -> None:
        if self.body is None or self.refused is not None:
            return
        try:
            data = text.encode(encoding or "utf-8", errors or "strict")
        except (UnicodeError, LookupError, ValueError) as err:
            self.refuse(f"the report was not kept: {err}")
            return
        self.kept_bytes(data)

    def kept_bytes(self, data: bytes) -> None:
        """Bytes written to the stream's binary buffer (report/spool.py copies a spool so)."""
        if self.body is None or self.refused is not None:
            return
        try:
            self.body.write(data)
        except (OSError, ValueError) as err:
            self.refuse(f"the report was not kept: {err}")
            return
        last = self.segments[-1] if self.segments else None
        if last is not None and last[0] == 0 and last[1] + last[2] == self.size:
            last[2] += len(data)  # the body's bytes so far, one segment
        else:
            self.segments.append([0, self.size, len(data)])
        self.size += len(data)

    def store(self, code: int) -> None:
        """Keep the entry for exit code `code`, or say why not; never an error."""
        try:
            if self.refused is None and self.body is not None:
                self.body.close()
                assert self.body_path is not None
                files = [(self.body_path.name, self.size)]
                if self.spool_size is not None:
                    assert self.spool_file is not None and self.spool_path is not None
                    self.spool_file.close()  # the check's own `with` may close it again
                    if os.stat(self.spool_path).st_size != self.spool_size:
                        raise OSError(f"{self.spool_path} was written after its text was kept")
                    files.append((self.spool_path.name, self.spool_size))
                header = {
                    "schema": SCHEMA,
                    "key": self.key,
                    "code": code,
                    "stderr": "".join(self.stderr),
                    "target": self.target,
                    "checked": list(self.checked),
                    "files": files,
                    "segments": self.segments,
                    "deps": _grouped(self.deps),
                }
                data = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
                names = {name for name, _ in files}
                _replace_header(self.key, data.encode("utf-8"), names)
                self.body, self.body_path = None, None  # the entry's now
                if self.spool_size is not None:
                    self.spool_file, self.spool_path = None, None
                self.discard()  # a spool the report did not take
                log("stored")
                return
            log(f"not stored: {self.refused or 'no report'}")
        except (OSError, ValueError, UnicodeError) as err:  # a path JSON or UTF-8 cannot hold
            log(f"not stored: {err}")
        self.discard()

    def discard(self) -> None:
        """Remove the files this run made and no entry names."""
        for file, where in ((self.body, self.body_path), (self.spool_file, self.spool_path)):
            if file is not None:
                with contextlib.suppress(OSError, ValueError):
                    file.close()
            if where is not None:
                with contextlib.suppress(OSError):
                    where.unlink()
        self.body, self.body_path, self.spool_file, self.spool_path = None, None, None, None


class _Tee:
    """A text stream that writes to another and keeps a copy (Recorder.kept). Renderers call
    `write`; the rest is the stream's own."""

    def __init__(self, out: TextIO, recorder: Recorder) -> None:
        self._out = out
        self._recorder = recorder

    def write(self, text: str) -> int:
        n = self._out.write(text)
        self._recorder.kept(text, self._out.encoding, self._out.errors)
        return n

    @property
    def buffer(self) -> _TeeBuffer:
        """The stream's binary buffer, kept as the text is."""
        return _TeeBuffer(self._out.buffer, self._recorder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


class _TeeBuffer:
    """A `_Tee`'s binary buffer: what is written to it also kept (Recorder.kept_bytes)."""

    def __init__(self, out: IO[bytes], recorder: Recorder) -> None:
        self._out = out
        self._recorder = recorder

    def write(self, data: bytes) -> int:
        n = self._out.write(data)
        self._recorder.kept_bytes(data)
        return n

    def adopted(self, spool: IO[str]) -> IO[bytes] | None:
        """Where to write `spool`'s bytes when the entry keeps the spool itself (the stream's
        own buffer, not kept again); None when it does not (`Recorder.adopt`)."""
        return self._out if self._recorder.adopt(spool) else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def _grouped(deps: Mapping[str, Signature | None]) -> dict[str, list[list[Any]]]:
    """dependencies by directory: {dir: [[name, size, mtime_ns, inode, ctime_ns] or [name]]},
    so that replaying stats each name in its directory (os.stat with dir_fd) and the header
    holds each directory once."""
    out: dict[str, list[list[Any]]] = {}
    for path, sig in sorted(deps.items()):
        head, name = os.path.split(path)
        out.setdefault(head, []).append([name, *sig] if sig is not None else [name])
    return out


def _replace_header(key: str, data: bytes, body: set[str]) -> None:
    """Move the new header into place, then remove the body files the header it replaced named
    (every other one where that header was corrupt), and body files of the key that nothing has
    touched for an hour (left by a run stopped half-way). `body`: the new header's files.

    Only the replaced header's files are removed at once: a writer installs its header once, so
    they can never be named again, while a concurrent run's body may be the one its header has
    just installed (removing every other body, as a first version did, let two writers each
    remove the other's and leave the header naming none). A reader that already opened a removed
    file keeps reading it; one that had not finds none, and its run is the ordinary one."""
    from cutlint.inputs import write_atomically

    where = _header_path(key)
    existed = where.exists()
    old = _read_header(where, key)
    if not write_atomically(where, data):
        raise OSError(f"cannot write {where}")
    named = _files(old.get("files"), key) if old is not None else None
    replaced = {name for name, _ in named} if named is not None else set()
    # a header there but unreadable (corrupt, foreign) names no body: every other one goes
    corrupt = existed and named is None
    stale = time.time() - _ORPHAN_AGE_S
    for other in where.parent.glob(f"{key}.*.out"):
        if other.name in body:
            continue
        with contextlib.suppress(OSError):
            if corrupt or other.name in replaced or other.stat().st_mtime < stale:
                other.unlink()


def _files(files: Any, key: str) -> list[tuple[str, int]] | None:
    """An entry's files as (name, size), or None where they are not an entry's: one or two,
    each a name this key's entries take, in the header's directory."""
    if not isinstance(files, list) or not 1 <= len(files) <= _MAX_FILES:
        return None
    out: list[tuple[str, int]] = []
    for row in files:
        if not (isinstance(row, list) and len(row) == 2):
            return None
        name, size = row
        if not (
            isinstance(name, str)
            and name.startswith(f"{key}.")
            and name.endswith(".out")
            and "/" not in name
            and isinstance(size, int)
            and size >= 0
        ):
            return None
        out.append((name, size))
    return out


def _segments(segments: Any, files: list[tuple[str, int]]) -> list[tuple[int, int, int]] | None:
    """The report's segments as (file, offset, length), each within its file, or None."""
    if not isinstance(segments, list):
        return None
    out: list[tuple[int, int, int]] = []
    for row in segments:
        if not (isinstance(row, list) and len(row) == 3 and all(type(x) is int for x in row)):
            return None
        file, offset, length = row
        if not (0 <= file < len(files) and offset >= 0 and length >= 0):
            return None
        if offset + length > files[file][1]:
            return None
        out.append((file, offset, length))
    return out


# --- replaying ----------------------------------------------------------------------------------


def _read_header(where: Path, key: str) -> dict[str, Any] | None:
    try:
        data = json.loads(where.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
        return None
    return data


def _unchanged(deps: Any) -> str | None:
    """None when every dependency's stat is the one kept; else the first that is not."""
    if not isinstance(deps, dict):
        return "no dependencies"
    for folder, rows in deps.items():
        if not isinstance(folder, str) or not isinstance(rows, list):
            return "corrupt"
        try:
            fd: int | None = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            fd = None  # gone: each row must say nothing was there
        try:
            for row in rows:
                if not isinstance(row, list) or not row or not isinstance(row[0], str):
                    return "corrupt"
                now: Signature | None = None
                if fd is not None:
                    try:
                        st = os.stat(row[0], dir_fd=fd)
                        now = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
                    except (OSError, ValueError):
                        now = None
                if (now is None and len(row) != 1) or (now is not None and row[1:] != list(now)):
                    return os.path.join(folder, row[0])
        finally:
            if fd is not None:
                os.close(fd)
    return None


def answer(argv: Sequence[str]) -> int | None:
    """Replay `cutlint check` `argv` when its entry proves it unchanged: the exit code, after the
    kept stderr and report are written. None when it is not replayed (nothing was written);
    then, where the run may be kept, `pending` holds its Recorder for the command."""
    global pending
    pending = None
    if os.environ.get(ENV_OFF) or "--no-cache" in argv:
        log("miss: the cache is off")
        return None
    try:
        tool = tool_key()
        key = request_key(argv, tool)
    except Exception as err:  # no key, no replay: the command runs, and says what is wrong
        log(f"miss: {type(err).__name__}: {err}")
        return None
    if key is None:
        return None
    pending = Recorder(key)
    try:
        why, entry = _entry(key)
    except Exception as err:  # an entry is data: whatever it holds, the run goes the usual way
        why, entry = f"{type(err).__name__}: {err}", None
    if entry is None:
        log(f"miss: {why}")
        return None
    return _emit(entry, key)


def _entry(key: str) -> tuple[str, dict[str, Any] | None]:
    where = _header_path(key)
    data = _read_header(where, key)
    if data is None:
        return "no entry", None
    code, err, target, checked = (data.get(k) for k in ("code", "stderr", "target", "checked"))
    files = _files(data.get("files"), key)
    segments = _segments(data.get("segments"), files) if files is not None else None
    if not (
        isinstance(code, int)
        and isinstance(err, str)
        and (target is None or isinstance(target, str))
        and isinstance(checked, list)
        and all(isinstance(c, str) for c in checked)
        and files is not None
        and segments is not None
    ):
        return "corrupt entry", None
    changed = _unchanged(data.get("deps"))
    if changed is not None:
        return f"changed: {changed}", None
    data["body_files"] = [(where.parent / name, size) for name, size in files]
    data["body_segments"] = segments
    return "", data


def _emit(entry: dict[str, Any], key: str) -> int | None:
    """Write the entry's stderr and body where the run wrote them; None, having written
    nothing, if a body file is missing or is not the one the header names."""
    with contextlib.ExitStack() as stack:
        files: list[IO[bytes]] = []
        for where, size in entry["body_files"]:
            try:
                file = stack.enter_context(open(where, "rb"))
            except OSError:
                log("miss: no body")
                return None
            if os.fstat(file.fileno()).st_size != size:
                log("miss: the body is not the one kept")
                return None
            files.append(file)
        segments = [(files[i], offset, length) for i, offset, length in entry["body_segments"]]
        target: str | None = entry["target"]
        if target is None:
            _write_stderr(entry["stderr"])
            sys.stdout.flush()
            _copy(segments, sys.stdout.buffer)
            sys.stdout.flush()
        else:
            from cutlint import output_target

            written = False
            try:
                with output_target.opened(Path(target), entry["checked"]) as out:
                    written = True
                    _write_stderr(entry["stderr"])
                    out.flush()
                    _copy(segments, out.buffer)
            except output_target.OutputError as err:
                if not written:
                    log("miss: -o refused (the command says why)")
                    return None
                raise WriteFailed(str(err)) from None  # the command says it: exit 2
    log("replayed")
    code: int = entry["code"]
    return code


class WriteFailed(Exception):
    """-o's file could not be written after the replay began: the command's usage error."""


def _write_stderr(text: str) -> None:
    if text:
        sys.stderr.write(text)
        sys.stderr.flush()


def _copy(segments: list[tuple[IO[bytes], int, int]], dst: IO[bytes]) -> None:
    """Each segment's bytes (file, offset, length), in order."""
    for src, offset, length in segments:
        src.seek(offset)
        while length > 0 and (chunk := src.read(min(length, 1 << 20))):
            dst.write(chunk)
            length -= len(chunk)


pending: Recorder | None = None
"""The Recorder of this process's `cutlint check`, set by `answer` when it did not replay; the
command keeps its run with it (None: nothing is kept, as in the Python API and tests that call
the command in-process)."""
