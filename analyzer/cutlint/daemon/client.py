"""The check's side: hand the command to a daemon that may answer for this process, and wait.

What goes over: the arguments, the program name, the working directory (and the directory
itself, as a descriptor), the whole environment, the umask, the signals this process ignores
and its blocked-signal mask, and descriptors 0, 1 and 2 themselves, so that the run writes
where this process would have (a terminal stays a terminal: colour, the progress bar). What
comes back: the run's pid once it is ready (then this process says `go`), then its exit status.
While it runs, the terminal's signals and a kill's (wire.FORWARDED) that this process receives
are passed on to the run's process group (the run and its parser workers), as a terminal's
reach a check's whole group; Ctrl-Z stops the run, then this process.

A run ended by a signal ends this process by the same signal. Anything that goes wrong before
the run began (no daemon, a stale socket, a daemon of another user, a closed standard
descriptor, a daemon that does not answer in FIRST_S) is None: the caller runs the check itself,
and a run the daemon readies after that never begins. Once it began, the run's own status is
the answer; a run whose status never came (the daemon killed under it) is reported and ends
with exit code 2, since its output may stop anywhere.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from cutlint.daemon import address, wire

FIRST_S = 3.0
"""How long a daemon may take to accept and ready the run (it forks at once: milliseconds); one
that does not is stopped or hung, and the check runs in its own process."""
ENDING = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT})
"""A signal that ends a check: before its run began, it ends the hand-over at once (and is
this process's own to handle)."""
LOST = 2
"""exit_codes.USAGE, spelled here: the run's status never came."""


def handed_over(argv: Sequence[str]) -> int | None:
    """The exit status of `argv` run by this process's daemon, or None when there is none to run
    it (then the caller runs it)."""
    if not address.may_run():
        return None
    try:
        path = address.socket_path(address.key())
    except OSError:  # cutlint's own files could not be read for the key
        return None
    return run_at(path, argv)


def run_at(path: os.PathLike[str] | str, argv: Sequence[str]) -> int | None:
    """`handed_over`, to the daemon listening at `path`."""
    if not _trusted(path) or not _handed_over_whole(argv):
        return None
    try:
        request = _request(argv)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    fds = [0, 1, 2]
    try:
        fds.append(os.open(".", os.O_RDONLY | os.O_DIRECTORY))
    except OSError:
        pass  # unreadable: the run goes there by its path
    try:
        return _run(sock, path, request, fds)
    finally:
        sock.close()
        if len(fds) == 4:
            os.close(fds[3])


_DESCRIPTOR_PATH = re.compile(r"/(?:dev/fd|proc/(?:self|thread-self|[0-9]+)/fd)/([0-9]+)")


def _handed_over_whole(argv: Sequence[str]) -> bool:
    """Whether what the run needs of this process goes over: descriptors 0, 1 and 2 are open (a
    closed one is None in a fresh process, never a daemon's), the command names no other
    descriptor (`-o /dev/fd/3` with `3>out`, a `<(...)` input: only 0-2 go over; a terminal or
    an editor may leave others open that no check reads), and this process is not a background
    job on its terminal (`stty tostop` stops its writes; a run in the daemon's session would
    write all the same)."""
    named = [*argv, *(v for k, v in os.environ.items() if k.startswith("CUTLINT_"))]
    if any(int(m.group(1)) > 2 for a in named for m in _DESCRIPTOR_PATH.finditer(a)):
        return False
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
    except OSError:
        return False
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) != os.getpgrp():
                return False
        except OSError:
            pass  # no controlling terminal of ours: no job control either
    return True


def _request(argv: Sequence[str]) -> dict[str, object]:
    umask = os.umask(0o022)
    os.umask(umask)
    return {
        "op": "run",
        "argv": list(argv),
        "argv0": sys.argv[0],
        # `python -m cutlint`: how click names the program in its messages
        "main_package": getattr(sys.modules.get("__main__"), "__package__", None),
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask,
        "ignored": sorted(int(s) for s in wire.IGNORABLE if signal.getsignal(s) is signal.SIG_IGN),
        "mask": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
    }


def _run(
    sock: socket.socket, path: os.PathLike[str] | str, request: dict[str, object], fds: list[int]
) -> int | None:
    sock.settimeout(FIRST_S)  # before connect: a daemon that never accepts fills its backlog
    try:
        sock.connect(os.fspath(path))
    except ConnectionRefusedError:
        _forget(path)
        return None
    except OSError:
        return None
    if not wire.same_user(sock):
        return None
    with _Forwarder(sock) as signals:
        try:
            wire.send(sock, request)
            asked = wire.receive(sock)
            if asked is None or asked[0].get("fds") is not True:
                return None
            wire.send(sock, {"op": "fds"}, fds)  # only to a process that attends to them
            first = wire.receive(sock)
            if first is None or not isinstance(first[0].get("pid"), int):
                return None  # refused, or gone before the run began
            signals.going = True  # from here a Ctrl-C is the run's: held, then passed on
            wire.send(sock, {"op": "go"})
            sock.settimeout(None)
        except (OSError, wire.WireError):
            return None
        signals.begin()
        status = _wait(sock, first[0]["pid"])
    if status < 0:  # the run was killed by a signal: so is this process, as a shell would see it
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    return status


def ask(path: os.PathLike[str] | str, op: str) -> dict[str, object] | None:
    """The daemon's answer to `op` (status, stop: `cutlint daemon`), or None when none answers
    at `path`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10.0)
            sock.connect(os.fspath(path))
            wire.send(sock, {"op": op})
            got = wire.receive(sock)
    except (OSError, wire.WireError):
        return None
    return got[0] if got is not None else None


def _forget(path: os.PathLike[str] | str) -> None:
    """Remove a socket nobody listens at (its daemon was killed), so that later checks do not
    compute a key to find it again. A daemon starting now binds under another name and moves it
    into place, so a refused connection is a dead one; one moved in since is left alone."""
    try:
        before = os.lstat(path).st_ino
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            try:
                probe.connect(os.fspath(path))
                return  # it answers now
            except ConnectionRefusedError:
                pass
        if os.lstat(path).st_ino == before:
            os.unlink(path)
    except OSError:
        pass


def _trusted(path: os.PathLike[str] | str) -> bool:
    """A socket another user planted must not be handed this process's environment and
    descriptors: its directory must be this user's own and closed to others."""
    return address.untrusted(Path(path).parent) is None


class _Forwarder:
    """Passes the signals of wire.FORWARDED on to the run, except those this process ignores
    (they stay ignored, as the run's are). Installed before the request goes, so that none is
    missed between the run's start and this process's wait; until the run has begun they are
    held (a message must not go in the middle of the request), and if it never begins they are
    raised again here, for this process to handle as it would have. Ctrl-Z stops the run, then
    this process; `fg` continues this process, which continues the run."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.held: list[int] = []
        self.going = False
        """The client is saying `go`: the run may begin any moment."""
        self.begun = False
        self.previous: dict[int, object] = {}

    def __enter__(self) -> _Forwarder:
        for s in wire.FORWARDED:
            if signal.getsignal(s) is not signal.SIG_IGN:
                self.previous[s] = signal.signal(s, self._received)
        return self

    def _received(self, signum: int, frame: FrameType | None) -> None:
        if not self.begun:
            self.held.append(signum)
            if signum in ENDING and not self.going:  # no waiting on a daemon: the hand-over is off
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            return
        self._send(signum)
        if signum == signal.SIGTSTP:
            self._stop()

    def _stop(self) -> None:
        """Stop as the run was stopped, by the same signal. Where the kernel discards it (this
        process's group is orphaned: `ssh -t host cutlint check`, `exec cutlint check`), a check
        alone would go on, and so must the run: it is continued at once."""
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCONT})  # a `fg` is seen pending
        try:
            signal.signal(signal.SIGTSTP, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTSTP)  # stopped here, or discarded
            if signal.SIGCONT not in signal.sigpending():
                self._send(signal.SIGCONT)
        finally:
            signal.signal(signal.SIGTSTP, self._received)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCONT})

    def _send(self, signum: int) -> None:
        try:
            wire.send(self.sock, {"op": "signal", "signal": signum})
        except OSError:
            pass  # the run's end is on its way

    def begin(self) -> None:
        self.begun = True
        held, self.held = self.held, []
        for signum in held:
            self._received(signum, None)

    def __exit__(self, *exc: object) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler)  # type: ignore[arg-type]
        for signum in self.held:  # the run never began: they were this process's own
            if signum not in (signal.SIGCONT, signal.SIGWINCH):
                signal.raise_signal(signum)


def _wait(sock: socket.socket, run: object) -> int:
    """Wait for the run's exit status (signals go on meanwhile: _Forwarder)."""
    while True:
        try:
            reply = wire.receive(sock)
        except (OSError, wire.WireError):
            reply = None
        if reply is None:
            if isinstance(run, int) and run > 1:
                try:
                    os.killpg(run, signal.SIGKILL)  # where its parent-death signal did not
                except OSError:
                    pass
            sys.stderr.write(
                "cutlint: the daemon running this check went away before it ended; its "
                "output may be cut short (run it again, or set CUTLINT_NO_DAEMON=1)\n"
            )
            return LOST
        status = reply[0].get("exit")
        if isinstance(status, int):
            return status
