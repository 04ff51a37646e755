"""The daemon: listen on a socket, and run each check handed to it in a fresh fork of itself.

Three processes per run, so that the daemon itself never waits and a run's end is always told:

- the **server** (this loop) accepts a connection, reads the request and forks an attendant;
  it holds nothing of any run, and reaps nothing (SIGCHLD ignored);
- the **attendant** forks the run, tells the client its pid, passes on the client's signals to
  the run's process group, and sends the run's exit status once the run has ended, however it
  ended (a signal is told as its negative number, as `os.waitstatus_to_exitcode` gives it). A
  client that goes away takes its run with it (SIGTERM to the group), as a closed terminal
  would;
- the **run** takes the client's descriptors as 0, 1 and 2, its working directory, umask,
  environment and arguments, new standard streams and a fresh process's signal handlers, then
  calls what the server was given (`run`), which never returns.

The server stops when it has been idle `idle_s` seconds, when told (`stop`), on SIGTERM, and
when its socket is gone or another daemon took the name (another `start`), removing the socket
only if it is still its own.
"""

from __future__ import annotations

import io
import os
import select
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from cutlint.daemon import wire

LOOK_S = 5.0
"""How often an idle server looks whether its socket is still its own."""
REQUEST_S = 10.0
"""How long a connection may take to send its request."""
Run = Callable[[], object]


@dataclass
class Server:
    path: Path
    key: str
    idle_s: float
    run: Run
    started: float = field(default_factory=time.time)
    served: int = 0
    last: float = field(default_factory=time.monotonic)
    look_s: float = LOOK_S
    inode: int = 0

    def serve(self) -> None:
        """Listen at `path` until stopped (module docstring)."""
        listener = self._listen()
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # attendants reap themselves
        signal.signal(signal.SIGTERM, _stop_now)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        try:
            while self._own_socket() and time.monotonic() - self.last < self.idle_s:
                left = self.idle_s - (time.monotonic() - self.last)
                ready, _, _ = select.select([listener], [], [], max(0.0, min(self.look_s, left)))
                if ready and not self._accept(listener):
                    break
        except _Stop:
            pass
        finally:
            listener.close()
            if self._own_socket():
                os.unlink(self.path)

    def _listen(self) -> socket.socket:
        """Bind under a name of its own, then move it into place: a client finds the old daemon,
        this one, or none, never a half-made socket."""
        fresh = self.path.with_name(f".{os.getpid()}.{self.path.name}")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            fresh.unlink(missing_ok=True)
            listener.bind(os.fspath(fresh))
            os.chmod(fresh, 0o600)
            listener.listen(64)
            os.replace(fresh, self.path)
        except OSError:
            listener.close()
            fresh.unlink(missing_ok=True)
            raise
        self.inode = os.stat(self.path).st_ino
        return listener

    def _own_socket(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _accept(self, listener: socket.socket) -> bool:
        """Serve one connection; False when told to stop."""
        try:
            conn, _ = listener.accept()
        except OSError:
            return True
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_S)
            if not _same_user(conn):
                return True
            got = wire.receive(conn)
            if got is None:
                return True
            request, fds = got
            op = request.get("op")
            if op == "status":
                wire.send(conn, self.status())
            elif op == "stop":
                wire.send(conn, {"stopping": True, "pid": os.getpid()})
                return False
            elif op == "run" and len(fds) == 3:
                self._fork(listener, conn, request, fds)
                self.served += 1
                self.last = time.monotonic()
        except (OSError, wire.WireError):
            pass  # that connection's loss; the server goes on
        finally:
            for fd in fds:
                os.close(fd)
            conn.close()
        return True

    def status(self) -> dict[str, object]:
        return {
            "pid": os.getpid(),
            "key": self.key,
            "socket": os.fspath(self.path),
            "started": self.started,
            "served": self.served,
            "idle_s": self.idle_s,
            "idle_for_s": round(time.monotonic() - self.last, 3),
        }

    def _fork(
        self,
        listener: socket.socket,
        conn: socket.socket,
        request: dict[str, object],
        fds: list[int],
    ) -> None:
        for stream in (sys.stdout, sys.stderr):  # nothing of the server's may reach the caller
            stream.flush()
        if os.fork() == 0:
            try:
                listener.close()
                _attend(conn, request, fds, self.run)
            finally:
                os._exit(70)


class _Stop(Exception):
    pass


def _stop_now(signum: int, frame: object) -> NoReturn:
    raise _Stop


def _same_user(conn: socket.socket) -> bool:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True  # the directory's mode (0700) is the guard
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


def _attend(conn: socket.socket, request: dict[str, object], fds: list[int], run: Run) -> None:
    """The attendant (module docstring); ends the process."""
    for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    conn.settimeout(None)
    pid = os.fork()
    if pid == 0:
        conn.close()
        code = 0
        try:
            _become(request, fds)
            run()
        except SystemExit as done:  # `run` ends the process itself; this is a fallback
            code = done.code if isinstance(done.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    try:
        os.setpgid(pid, pid)  # as the run does itself: a signal passed on before it did reaches it
    except OSError:
        pass
    for fd in fds:
        os.close(fd)
    try:
        wire.send(conn, {"pid": pid})
    except OSError:
        _signal(pid, signal.SIGTERM)
    status = _watch(conn, pid)
    try:
        wire.send(conn, {"exit": status})
    except OSError:
        pass
    os._exit(0)


def _watch(conn: socket.socket, pid: int) -> int:
    """Pass the client's signals on until the run ends; its exit status."""
    watched = [conn.fileno()]
    pidfd = -1
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
            watched.append(pidfd)
        except OSError:
            pidfd = -1
    client = True
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if pidfd >= 0:
                os.close(pidfd)
            return os.waitstatus_to_exitcode(status)
        timeout = None if pidfd >= 0 else 0.02
        ready, _, _ = select.select(watched if client else watched[1:], [], [], timeout)
        if client and watched[0] in ready:
            try:
                message = wire.receive(conn)
            except (OSError, wire.WireError):
                message = None
            if message is None:  # the client is gone: nobody reads the run's output
                client = False
                _signal(pid, signal.SIGTERM)
            elif message[0].get("op") == "signal":
                number = message[0].get("signal")
                if isinstance(number, int) and number in (
                    signal.SIGINT,
                    signal.SIGTERM,
                    signal.SIGHUP,
                ):
                    _signal(pid, number)


def _signal(pid: int, number: int) -> None:
    try:
        os.killpg(pid, number)
    except OSError:
        try:
            os.kill(pid, number)
        except OSError:
            pass  # already gone


def _become(request: dict[str, object], fds: list[int]) -> None:
    """Turn this fork into the caller's process, as far as a check can tell."""
    os.setpgid(0, 0)
    for target, fd in enumerate(fds):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    os.chdir(str(request["cwd"]))
    umask = request.get("umask")
    os.umask(umask if isinstance(umask, int) else 0o022)
    env = request.get("env")
    os.environ.clear()
    if isinstance(env, dict):
        os.environ.update({str(k): str(v) for k, v in env.items()})
    argv = request.get("argv")
    args = [str(a) for a in argv] if isinstance(argv, list) else []
    sys.argv = [str(request.get("argv0", "cutlint")), *args]
    package = request.get("main_package")  # the program's name in click's messages
    sys.modules["__main__"].__package__ = package if isinstance(package, str) else None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(s, signal.SIG_DFL)
    _fresh_streams()


def _fresh_streams() -> None:
    """New sys.stdin, stdout and stderr on descriptors 0-2, made as Python makes them at start
    (CPython's create_stdio): a terminal's stdout line-buffered, stderr always line-buffered and
    with backslashreplace, the encoding and error handlers of this interpreter's own (the
    locale and PYTHONIOENCODING are in the daemon's key)."""
    old = (sys.stdin, sys.stdout, sys.stderr)
    made = []
    for fd, stream in enumerate(old):
        writing = fd > 0
        buffered = open(fd, "wb" if writing else "rb", closefd=False)
        buffered.raw.name = f"<{('stdin', 'stdout', 'stderr')[fd]}>"  # type: ignore[attr-defined]
        text = io.TextIOWrapper(
            buffered,
            encoding=getattr(stream, "encoding", None),
            errors=getattr(stream, "errors", None),
            newline="\n",
            line_buffering=writing and (fd == 2 or os.isatty(fd)),
            write_through=bool(getattr(stream, "write_through", False)),  # -u, PYTHONUNBUFFERED
        )
        text.mode = "w" if writing else "r"  # type: ignore[misc]
        made.append(text)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]
