"""The check's side: hand the command to a daemon that may answer for this process, and wait.

What goes over: the arguments, the program name, the working directory, the whole environment,
the umask, and descriptors 0, 1 and 2 themselves, so that the run writes where this process
would have (a terminal stays a terminal: colour, the progress bar). What comes back: the run's
pid, then its exit status. While it runs, a SIGINT, SIGTERM or SIGHUP this process receives is
passed on to the run's process group (the run and its parser workers), as a terminal's Ctrl-C
reaches a check's whole group.

A run ended by a signal ends this process by the same signal. Anything that goes wrong before
the run began (no daemon, a stale socket, a daemon of another
user, a closed standard descriptor) is None: the caller runs the check itself. Once it began,
the run's own status is the answer; a run whose status never came (the daemon killed under it)
is reported and ends with exit code 2, since its output may stop anywhere.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Sequence
from types import FrameType

from cutlint.daemon import address, wire

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
FIRST_S = 10.0
"""How long a daemon may take to say that the run began (it forks at once); one that does not is
stopped or hung, and the check runs in its own process."""
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


def run_at(path: os.PathLike[str], argv: Sequence[str]) -> int | None:
    """`handed_over`, to the daemon listening at `path`."""
    try:
        if not _trusted(path):
            return None
        fds = [0, 1, 2]
        for fd in fds:
            os.fstat(fd)  # a closed one: a fresh process would see None for it, not a daemon's
        umask = os.umask(0o022)
        os.umask(umask)
        request: dict[str, object] = {
            "op": "run",
            "argv": list(argv),
            "argv0": sys.argv[0],
            # `python -m cutlint`: how click names the program in its messages
            "main_package": getattr(sys.modules.get("__main__"), "__package__", None),
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "umask": umask,
        }
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.connect(os.fspath(path))
    except ConnectionRefusedError:
        sock.close()
        _forget(path)
        return None
    except OSError:
        sock.close()
        return None
    with sock, _Forwarder(sock) as signals:
        if not _same_user(sock):
            return None
        try:
            sock.settimeout(FIRST_S)
            wire.send(sock, request, fds)
            first = wire.receive(sock)
            sock.settimeout(None)
        except (OSError, wire.WireError):
            return None
        if first is None or not isinstance(first[0].get("pid"), int):
            return None  # the daemon refused or went away before the run began
        signals.begin()
        status = _wait(sock)
    if status < 0:  # the run was killed by a signal: so is this process, as a shell would see it
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    return status


def _forget(path: os.PathLike[str]) -> None:
    """Remove a socket nobody listens at (its daemon was killed), so that later checks do not
    compute a key to find it again. A daemon starting now binds under another name and moves it
    into place, so a refused connection is a dead one; one moved in since is left alone."""
    try:
        before = os.stat(path).st_ino
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with probe:
            try:
                probe.connect(os.fspath(path))
                return  # it answers now
            except ConnectionRefusedError:
                pass
        if os.stat(path).st_ino == before:
            os.unlink(path)
    except OSError:
        pass


def _trusted(path: os.PathLike[str]) -> bool:
    """The directory is this user's own and closed to others: a socket another user planted
    there must not be handed this process's environment and descriptors."""
    try:
        st = os.stat(os.path.dirname(os.fspath(path)))
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o077


def _same_user(sock: socket.socket) -> bool:
    """The daemon runs as this user (SO_PEERCRED where the system has it; else the directory's
    mode is the guard)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    import struct

    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return False
    _, uid, _ = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


class _Forwarder:
    """Passes SIGINT, SIGTERM and SIGHUP on to the run. Installed before the request goes, so
    that none is missed between the run's start and this process's wait; until the run has
    begun they are held (a message must not go in the middle of the request), and if it never
    begins they are raised again here, for this process to handle as it would have."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.held: list[int] = []
        self.begun = False
        self.previous: dict[int, object] = {}

    def __enter__(self) -> _Forwarder:
        self.previous = {s: signal.signal(s, self._received) for s in FORWARDED}
        return self

    def _received(self, signum: int, frame: FrameType | None) -> None:
        if self.begun:
            self._send(signum)
        else:
            self.held.append(signum)

    def _send(self, signum: int) -> None:
        try:
            wire.send(self.sock, {"op": "signal", "signal": signum})
        except OSError:
            pass  # the run's end is on its way

    def begin(self) -> None:
        self.begun = True
        held, self.held = self.held, []
        for signum in held:
            self._send(signum)

    def __exit__(self, *exc: object) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler)  # type: ignore[arg-type]
        for signum in self.held:  # the run never began: they were this process's own
            signal.raise_signal(signum)


def _wait(sock: socket.socket) -> int:
    """Wait for the run's exit status (signals go on meanwhile: _Forwarder)."""
    while True:
        try:
            reply = wire.receive(sock)
        except (OSError, wire.WireError):
            reply = None
        if reply is None:
            sys.stderr.write(
                "cutlint: the daemon running this check went away before it ended; its "
                "output may be cut short (run it again, or set CUTLINT_NO_DAEMON=1)\n"
            )
            return LOST
        status = reply[0].get("exit")
        if isinstance(status, int):
            return status
