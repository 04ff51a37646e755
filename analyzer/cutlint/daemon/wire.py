"""The daemon's messages: JSON objects, each framed by its length, and the descriptors that go
with a request (SCM_RIGHTS). The standard library only: the client runs before anything else
of cutlint is imported."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import time

_LENGTH = struct.Struct("!I")
MAX_MESSAGE = 16 << 20
"""A request carries the caller's whole environment and command line; anything longer than this
is not one of ours."""
MAX_FDS = 4
"""Descriptors 0, 1 and 2, and the working directory."""

FORWARDED = frozenset(
    {
        signal.SIGINT,
        signal.SIGTERM,
        signal.SIGHUP,
        signal.SIGQUIT,
        signal.SIGWINCH,
        signal.SIGTSTP,
        signal.SIGCONT,
    }
)
"""The signals a client passes on to its run: the terminal's (Ctrl-C, Ctrl-\\, Ctrl-Z and
`fg`, a resize) and a kill's."""
IGNORABLE = frozenset(
    {
        signal.SIGINT,
        signal.SIGTERM,
        signal.SIGHUP,
        signal.SIGQUIT,
        signal.SIGTSTP,
        signal.SIGUSR1,
        signal.SIGUSR2,
        signal.SIGALRM,
        signal.SIGTTIN,
        signal.SIGTTOU,
    }
)
"""The signals whose SIG_IGN in the client (nohup, `trap '' HUP`, a background job's SIGINT)
the run takes too: a fresh process inherits an ignored signal across exec."""


class WireError(Exception):
    """The other side sent something that is not a message, or went away in the middle of one."""


def same_user(sock: socket.socket) -> bool:
    """The process at the other end of `sock` runs as this user (SO_PEERCRED). Where the system
    has no such option, True: the daemon directory's mode (0700) is then the guard."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return False
    _, uid, _ = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


def send(sock: socket.socket, message: dict[str, object], fds: list[int] | None = None) -> None:
    data = json.dumps(message, separators=(",", ":")).encode("ascii")  # \\u-escapes: any str
    framed = _LENGTH.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [framed], fds)
        if sent < len(framed):
            sock.sendall(framed[sent:])
    else:
        sock.sendall(framed)


def receive(
    sock: socket.socket, deadline: float | None = None
) -> tuple[dict[str, object], list[int]] | None:
    """The next message and the descriptors that came with it; None when the other side closed
    the connection before a message began. With `deadline` (time.monotonic()), the whole
    message must have come by then (socket.timeout, an OSError, when not): a sender that
    trickles bytes cannot hold the reader longer."""
    if deadline is not None:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
    head, fds = _first(sock, _LENGTH.size)
    if not head:
        _close(fds)
        return None
    try:
        head += _exactly(sock, _LENGTH.size - len(head), deadline)
        (length,) = _LENGTH.unpack(head)
        if length > MAX_MESSAGE:
            raise WireError(f"a message of {length} bytes")
        message = json.loads(_exactly(sock, length, deadline))
    except (WireError, ValueError, OSError) as err:
        _close(fds)
        raise WireError(str(err)) from err
    if not isinstance(message, dict):
        _close(fds)
        raise WireError("a message that is not an object")
    return message, fds


def _first(sock: socket.socket, size: int) -> tuple[bytes, list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, size, MAX_FDS)
    return data, list(fds)


def _exactly(sock: socket.socket, size: int, deadline: float | None = None) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        if deadline is not None:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise WireError("the connection closed in the middle of a message")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
