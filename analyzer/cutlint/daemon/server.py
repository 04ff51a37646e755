"""The daemon: listen on a socket, and run each check handed to it in a fresh fork of itself.

Three processes per run, so that the daemon itself never waits and a run's end is always told:

- the **server** (this loop) accepts a connection, reads the request and forks an attendant;
  it holds nothing of any run, and reaps nothing (SIGCHLD ignored);
- the **attendant** asks the client for its descriptors, forks the run and, once the run has
  become the caller's process, offers it to the client (`ready`). Only on the client's `go`
  does the run begin: a client that gave up waiting (and runs the check itself) never gets a
  second run writing on its descriptors. Then it passes the client's signals on to the run's process group and sends the run's exit status
  once the run has ended, however it ended (a signal is told as its negative number, as
  `os.waitstatus_to_exitcode` gives it). A client that goes away takes its run with it
  (SIGKILL to its group, as a killed check's own process would end), and so does an attendant
  that is killed (the run's parent-death signal, on Linux);
- the **run** takes the client's descriptors as 0, 1 and 2, its working directory (by
  descriptor), umask, environment, arguments and program name, new standard streams, and the
  client's signal dispositions and mask (blocked until then, so a signal cannot reach it with
  the daemon's handlers), then calls what the server was given (`run`). Where that returns
  with SystemExit (cutlint's own quick exit could not finish), it ends as Python's own exit
  would (`_exit_as_python`).

The server stops when it has been idle `idle_s` seconds, when told (`stop`), on SIGTERM, and
when its socket is gone or another daemon took the name (another `start`), removing the socket
only if it is still its own.
"""

from __future__ import annotations

import atexit
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
from typing import Any, NoReturn

from cutlint.daemon import address, wire

LOOK_S = 5.0
"""How often an idle server looks whether its socket is still its own."""
REQUEST_S = 1.0
"""How long a connection may take to send its request (a client sends it as it connects), read
by the server itself: a slow one holds the next checks up this long at most, under the 3 s a
client waits (client.FIRST_S)."""
DESCRIPTORS_S = 10.0
"""How long the attendant waits for the client's descriptors."""
GO_S = 30.0
"""How long an attendant waits for the client's `go` once it offered the run."""
CANNOT_BEGIN = 75
"""A run that could not become the caller's process exits with this (EX_TEMPFAIL) before it
writes anything: the client runs the check itself."""
Run = Callable[[], object]


@dataclass
class Server:
    path: Path
    key: str
    idle_s: float
    run: Run
    look_s: float = LOOK_S
    started: float = field(default_factory=time.time)
    served: int = 0
    last: float = field(default_factory=time.monotonic)
    inode: int = 0
    pid: int = field(default_factory=os.getpid)

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
            if os.getpid() == self.pid:
                listener.close()
                if self._own_socket():
                    os.unlink(self.path)
                    _remove_if_empty(address.log_path(self.path))

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
            if not wire.same_user(conn):
                return True
            got = wire.receive(conn, deadline=time.monotonic() + REQUEST_S)
            if got is None:
                return True
            request, fds = got
            op = request.get("op")
            if op == "status":
                wire.send(conn, self.status())
            elif op == "stop":
                wire.send(conn, {"stopping": True, "pid": os.getpid()})
                return False
            elif op == "run" and not fds:
                self._fork(listener, conn, request)
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
        self, listener: socket.socket, conn: socket.socket, request: dict[str, object]
    ) -> None:
        for stream in (sys.stdout, sys.stderr):  # nothing of the server's may reach the caller
            stream.flush()
        if os.fork() == 0:
            try:
                listener.close()
                fds = _descriptors(conn)
                if fds is not None:
                    _attend(conn, request, fds, self.run)
            finally:
                os._exit(70)


def _remove_if_empty(log: Path) -> None:
    try:
        if os.stat(log).st_size == 0:
            os.unlink(log)
    except OSError:
        pass  # none, or not ours to remove


class _Stop(Exception):
    pass


def _stop_now(signum: int, frame: object) -> NoReturn:
    raise _Stop


def _descriptors(conn: socket.socket) -> list[int] | None:
    """Ask the client for its descriptors, now that a process attends to it: sent with the
    request, they would sit in the socket's queue while the server is busy or stopped, and a
    client that gave up and ran the check itself would find its stdout's reader waiting for
    them to close (`cutlint check | cat` never ending)."""
    try:
        wire.send(conn, {"fds": True})
        got = wire.receive(conn, deadline=time.monotonic() + DESCRIPTORS_S)
    except (OSError, wire.WireError):
        return None
    if got is None:
        return None
    message, fds = got
    if message.get("op") != "fds" or len(fds) not in (3, 4):
        for fd in fds:
            os.close(fd)
        return None
    return fds


def _attend(conn: socket.socket, request: dict[str, object], fds: list[int], run: Run) -> None:
    """The attendant (module docstring); ends the process."""
    for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    conn.settimeout(None)
    here, there = socket.socketpair()
    signal.pthread_sigmask(signal.SIG_BLOCK, wire.FORWARDED)  # the run's, until it begins
    attendant = os.getpid()
    pid = os.fork()
    if pid == 0:
        conn.close()
        here.close()
        _begin(request, fds, there, attendant, run)
    there.close()
    try:
        os.setpgid(pid, pid)  # as the run does itself: a signal passed on reaches its group
    except OSError:
        pass
    for fd in fds:
        os.close(fd)
    if here.recv(1) != b"r":  # it could not become the caller's process
        os.waitpid(pid, 0)
        _tell(conn, {"refused": "the run could not take the caller's state"})
        os._exit(0)
    conn.settimeout(GO_S)
    try:
        _tell(conn, {"pid": pid})
        got = wire.receive(conn)
    except (OSError, wire.WireError):
        got = None
    if got is None or got[0].get("op") != "go":  # the client gave up: the run never began
        _signal(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os._exit(0)
    conn.settimeout(None)
    here.sendall(b"g")
    status = _watch(conn, pid)
    _tell(conn, {"exit": status})
    os._exit(0)


def _tell(conn: socket.socket, message: dict[str, object]) -> None:
    try:
        wire.send(conn, message)
    except OSError:
        pass  # the client is gone


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
            if message is None:  # the client is gone, as the check's own process would be
                client = False
                _signal(pid, signal.SIGKILL)
            elif message[0].get("op") == "signal":
                number = message[0].get("signal")
                if isinstance(number, int) and number in wire.FORWARDED:
                    _signal(pid, number)


def _signal(pid: int, number: int) -> None:
    try:
        os.killpg(pid, number)
    except OSError:
        try:
            os.kill(pid, number)
        except OSError:
            pass  # already gone


def _begin(
    request: dict[str, object],
    fds: list[int],
    attendant: socket.socket,
    attendant_pid: int,
    run: Run,
) -> NoReturn:
    """The run: become the caller's process, say so, wait for the go, then run."""
    try:
        _die_with(signal.SIGKILL, attendant_pid)
        _become(request, fds)
    except Exception:  # nothing written yet: the client runs the check itself
        os._exit(CANNOT_BEGIN)
    attendant.sendall(b"r")
    if attendant.recv(1) != b"g":
        os._exit(CANNOT_BEGIN)
    attendant.close()
    try:
        _restore_signals(request)  # a Ctrl-C held until now is raised here, as at a start
        run()
    except SystemExit as done:
        _exit_as_python(done.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Python ends by the signal it was sent
        os.kill(os.getpid(), signal.SIGINT)
        os._exit(130)
    except BaseException:
        traceback.print_exc()
        _exit_as_python(1)
    _exit_as_python(0)


def _die_with(number: int, parent: int) -> None:
    """End this process when its parent (the attendant) ends, where Linux can say so
    (PR_SET_PDEATHSIG): a run whose attendant was killed has no one to tell its client that it
    ended, and the client has already said that it went away."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, number, 0, 0, 0)  # PR_SET_PDEATHSIG = 1 (linux/prctl.h)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the attendant ended before the call
        os._exit(CANNOT_BEGIN)


def _become(request: dict[str, object], fds: list[int]) -> None:
    """Turn this fork into the caller's process, as far as a check can tell."""
    os.setpgid(0, 0)
    for target, fd in enumerate(fds[:3]):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    cwd = str(request["cwd"])
    if len(fds) == 4:  # the directory itself: its path may name another one here
        os.fchdir(fds[3])
        os.close(fds[3])
    else:
        os.chdir(cwd)
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
    ignored = request.get("ignored")
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGQUIT, signal.SIGTSTP):
        signal.signal(s, signal.SIG_DFL)
    # Python's own SIGINT handler, unless the caller ignores it (Python keeps an inherited
    # SIG_IGN for SIGINT, as for the others).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in ignored if isinstance(ignored, list) else []:
        if number in wire.IGNORABLE:
            signal.signal(number, signal.SIG_IGN)
    _fresh_streams()


def _restore_signals(request: dict[str, object]) -> None:
    """The caller's blocked-signal mask, which also unblocks what the attendant blocked."""
    mask = request.get("mask")
    blocked = (
        {signal.Signals(n) for n in mask if isinstance(n, int)} if isinstance(mask, list) else set()
    )
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _fresh_streams() -> None:
    """New sys.stdin, stdout and stderr on descriptors 0-2, made as Python makes them at start
    (CPython's create_stdio): a terminal's stdout line-buffered, stderr always line-buffered and
    with backslashreplace, unbuffered under `-u` or PYTHONUNBUFFERED (as the daemon's own are:
    PYTHON* is in its key), the encoding and error handlers of this interpreter's own (the
    locale and PYTHONIOENCODING are in the key too)."""
    old = (sys.stdin, sys.stdout, sys.stderr)
    made = []
    for fd, stream in enumerate(old):
        writing = fd > 0
        unbuffered = writing and isinstance(getattr(stream, "buffer", None), io.FileIO)
        binary: Any = open(
            fd, "wb" if writing else "rb", buffering=0 if unbuffered else -1, closefd=False
        )
        raw = binary if unbuffered else binary.raw
        raw.name = f"<{('stdin', 'stdout', 'stderr')[fd]}>"
        text = io.TextIOWrapper(
            binary,
            encoding=getattr(stream, "encoding", None),
            errors=getattr(stream, "errors", None),
            newline="\n",
            line_buffering=writing and (fd == 2 or os.isatty(fd)),
            write_through=bool(getattr(stream, "write_through", False)),
        )
        text.mode = "w" if writing else "r"  # type: ignore[misc]
        made.append(text)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]


def _exit_as_python(code: object) -> NoReturn:
    """End as CPython's exit ends a process whose main module raised SystemExit(code): the
    code (None: 0; an int; anything else printed on stderr, 1), the atexit handlers, then
    stdout and stderr flushed, a failure to flush reported as an exception ignored and the
    status 120 (`Py_FinalizeEx`'s flush_std_files). The process's heap is not torn down."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        try:
            sys.stderr.write(f"{code}\n")
        except (OSError, ValueError):
            pass
        status = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()  # Python waits for its threads
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as err:
        try:
            sys.stderr.write(
                f"Exception ignored in: {sys.stdout!r}\n"
                + "".join(traceback.format_exception_only(type(err), err))
            )
        except (OSError, ValueError):
            pass
        status = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        status = 120
    os._exit(status & 0xFF)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
