"""The daemon's messages: JSON objects, each framed by its length, and the descriptors that go
with a request (SCM_RIGHTS). The standard library only: the client runs before anything else
of cutlint is imported."""

from __future__ import annotations

import json
import socket
import struct

_LENGTH = struct.Struct("!I")
MAX_MESSAGE = 16 << 20
"""A request carries the caller's whole environment and command line; anything longer than this
is not one of ours."""
MAX_FDS = 3


class WireError(Exception):
    """The other side sent something that is not a message, or went away in the middle of one."""


def send(sock: socket.socket, message: dict[str, object], fds: list[int] | None = None) -> None:
    data = json.dumps(message, separators=(",", ":")).encode("ascii")  # \\u-escapes: any str
    framed = _LENGTH.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [framed], fds)
        if sent < len(framed):
            sock.sendall(framed[sent:])
    else:
        sock.sendall(framed)


def receive(sock: socket.socket) -> tuple[dict[str, object], list[int]] | None:
    """The next message and the descriptors that came with it; None when the other side closed
    the connection before a message began."""
    head, fds = _first(sock, _LENGTH.size)
    if not head:
        _close(fds)
        return None
    try:
        head += _exactly(sock, _LENGTH.size - len(head))
        (length,) = _LENGTH.unpack(head)
        if length > MAX_MESSAGE:
            raise WireError(f"a message of {length} bytes")
        message = json.loads(_exactly(sock, length))
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


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise WireError("the connection closed in the middle of a message")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _close(fds: list[int]) -> None:
    import os

    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
