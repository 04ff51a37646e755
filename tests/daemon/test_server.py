"""The daemon's server and client (cutlint/daemon), with runs that stand in for a check: what a
run is given of its caller, how its end is told, signals, a client that goes away, and the
sockets a client must not trust. Each server is a fork of the test process; each client a
process of its own, as a `cutlint check` is."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cutlint.daemon import client, wire
from cutlint.daemon.server import Server

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the daemon needs fork")

CLIENT = (
    "import sys\n"
    "from cutlint.daemon import client\n"
    "code = client.run_at(sys.argv[1], sys.argv[2:])\n"
    "if code is None:\n"
    "    print('no daemon', end='')\n"
    "sys.exit(99 if code is None else code)\n"
)


@pytest.fixture
def where(tmp_path: Path) -> Path:
    d = tmp_path / "d"
    d.mkdir(mode=0o700)
    return d / "k.sock"


def _serve(path: Path, run: Callable[[], object], **kw: float) -> int:
    """A server at `path` in a fork of this process; its pid, once it listens there."""
    before = _inode(path)
    pid = os.fork()
    if pid == 0:
        try:
            # as in a daemon started with its output to its log: buffered, as a run's own
            # streams are made from them (without PYTHONUNBUFFERED, which pytest's may be)
            sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), encoding="utf-8")
            sys.stderr = io.TextIOWrapper(
                open(2, "wb", closefd=False),
                encoding="utf-8",
                errors="backslashreplace",
                line_buffering=True,
            )
            Server(
                path, "test-key", kw.get("idle_s", 60.0), run, look_s=kw.get("look_s", 0.1)
            ).serve()
        finally:
            os._exit(0)
    deadline = time.monotonic() + 10
    while _inode(path) in (None, before):
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    return pid


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


@pytest.fixture
def servers() -> Iterator[list[int]]:
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _client(
    path: Path, *argv: str, code: str = CLIENT, env: dict[str, str] | None = None, **kw: Any
) -> subprocess.Popen[str]:
    """A check's process handing `argv` to the daemon at `path` (`code`: the client's program),
    its stdout and stderr piped unless `kw` sends them elsewhere."""
    whole = {k: v for k, v in os.environ.items() if k != "CUTLINT_NO_DAEMON"}
    whole.update(env or {})
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(path), *argv],
        stdin=subprocess.DEVNULL,
        text=True,
        env=whole,
        **kw,
    )


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return True
        except ChildProcessError:  # not ours: alive while it can be signalled
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        time.sleep(0.02)
    return False


def _report() -> None:
    """A run that says what it was given, on its stdout and stderr, and exits 3."""
    state = {
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "umask": os.umask(0),
        "env": os.environ.get("CUTLINT_TEST_VALUE"),
        "group_leader": os.getpgid(0) == os.getpid(),
        "stdout_line_buffered": sys.stdout.line_buffering,
        "stderr_line_buffered": sys.stderr.line_buffering,
        "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
    }
    sys.stdout.write(json.dumps(state))
    sys.stderr.write("to stderr\n")
    sys.exit(3)


def test_a_run_is_its_callers_process(where: Path, servers: list[int], tmp_path: Path) -> None:
    servers.append(_serve(where, _report))
    done = _client(
        where,
        "check",
        "a b",
        "--format",
        "json",
        cwd=tmp_path,
        env={"CUTLINT_TEST_VALUE": "é x"},
        preexec_fn=lambda: os.umask(0o027),
    )
    out, err = done.communicate(timeout=30)
    assert done.returncode == 3
    assert err == "to stderr\n"
    state = json.loads(out)
    assert state["argv"][1:] == ["check", "a b", "--format", "json"]
    assert state["cwd"] == str(tmp_path)
    assert state["umask"] == 0o027
    assert state["env"] == "é x"
    assert state["group_leader"] and state["sigint"]
    # pipes, as for a fresh process: stdout block-buffered, stderr line-buffered
    assert state["stdout_line_buffered"] is False and state["stderr_line_buffered"] is True
    assert client.ask(where, "status")["served"] == 1  # type: ignore[index]


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)


def test_a_run_killed_by_a_signal_kills_its_client_by_it(where: Path, servers: list[int]) -> None:
    servers.append(_serve(where, _kill_self))
    done = _client(where, "check")
    done.communicate(timeout=30)
    assert done.returncode == -signal.SIGTERM


def _wait_for_ctrl_c() -> None:
    try:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        time.sleep(30)
    except KeyboardInterrupt:
        sys.stdout.write("interrupted\n")
        sys.stdout.flush()
        os._exit(130)


def test_ctrl_c_reaches_the_run(where: Path, servers: list[int]) -> None:
    servers.append(_serve(where, _wait_for_ctrl_c))
    done = _client(where, "check")
    assert done.stdout is not None
    assert done.stdout.readline() == "ready\n"
    done.send_signal(signal.SIGINT)
    out, _ = done.communicate(timeout=30)
    assert (done.returncode, out) == (130, "interrupted\n")


def _sleep_with_pid(tmp: Path) -> Callable[[], None]:
    def run() -> None:
        (tmp / "pid").write_text(str(os.getpid()))
        time.sleep(30)

    return run


def _run_pid(tmp: Path) -> int:
    """The pid `_sleep_with_pid`'s run wrote, once it has."""
    deadline = time.monotonic() + 10
    while not (tmp / "pid").exists():
        assert time.monotonic() < deadline, "the run did not begin"
        time.sleep(0.01)
    time.sleep(0.1)  # written, and not half-written
    return int((tmp / "pid").read_text())


def test_a_client_that_goes_away_takes_its_run(
    where: Path, servers: list[int], tmp_path: Path
) -> None:
    servers.append(_serve(where, _sleep_with_pid(tmp_path)))
    done = _client(where, "check")
    run = _run_pid(tmp_path)
    done.kill()
    done.communicate(timeout=10)
    assert _gone(run)


def test_a_directory_open_to_others_is_not_trusted(where: Path, servers: list[int]) -> None:
    servers.append(_serve(where, _report))
    where.parent.chmod(0o755)
    done = _client(where, "check")
    out, _ = done.communicate(timeout=30)
    assert (done.returncode, out) == (99, "no daemon")
    assert client.ask(where, "status")["served"] == 0  # type: ignore[index]


def test_a_dead_socket_is_not_a_daemon_and_is_removed(where: Path) -> None:
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(where))
    dead.close()  # the file stays; nobody listens
    done = _client(where, "check")
    out, _ = done.communicate(timeout=30)
    assert (done.returncode, out) == (99, "no daemon")
    assert not where.exists()


def test_stop_and_idle_and_a_replaced_socket_end_the_server(
    where: Path, servers: list[int]
) -> None:
    log, kept = where.with_suffix(".log"), where.with_name("other.log")
    log.write_text("")
    kept.write_text("")
    first = _serve(where, _report)
    servers.append(first)
    assert client.ask(where, "stop") == {"stopping": True, "pid": first}
    assert _gone(first) and not where.exists()
    assert not log.exists() and kept.exists()  # its own empty log goes with it

    idle = _serve(where, _report, idle_s=0.3)
    servers.append(idle)
    assert _gone(idle) and not where.exists()

    old = _serve(where, _report)
    servers.append(old)
    new = _serve(where, _report)  # another `start`: its socket moved in over the old one's
    servers.append(new)
    assert _gone(old)
    assert where.exists() and client.ask(where, "status")["pid"] == new  # type: ignore[index]


def test_a_malformed_request_costs_its_connection_only(where: Path, servers: list[int]) -> None:
    servers.append(_serve(where, _report))
    for junk in (b"\xff\xff\xff\xff", b"\x00\x00\x00\x05[1,2]", b"\x00\x00\x00\x09not json!"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(where))
            sock.sendall(junk)
            sock.settimeout(10)
            assert sock.recv(10) == b""  # closed, unanswered
    done = _client(where, "check")
    done.communicate(timeout=30)
    assert done.returncode == 3


def _dispositions() -> None:
    """A run that says which signals it ignores and blocks, and exits 3."""
    state = {
        "hup_ignored": signal.getsignal(signal.SIGHUP) is signal.SIG_IGN,
        "int_ignored": signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
        "blocked": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
    }
    sys.stdout.write(json.dumps(state))
    sys.exit(3)


def _ignore_hup_block_usr1() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})


def test_a_run_ignores_and_blocks_what_its_caller_does(where: Path, servers: list[int]) -> None:
    """As a fresh process inherits them across exec (nohup, `trap '' HUP`); the attendant's
    blocking until the run began is undone."""
    servers.append(_serve(where, _dispositions))
    done = _client(where, "check", preexec_fn=_ignore_hup_block_usr1)
    out, _ = done.communicate(timeout=30)
    assert done.returncode == 3
    assert json.loads(out) == {
        "hup_ignored": True,
        "int_ignored": False,
        "blocked": [int(signal.SIGUSR1)],
    }


def test_an_ignored_signal_is_not_passed_on(where: Path, servers: list[int]) -> None:
    servers.append(_serve(where, _wait_for_ctrl_c))
    done = _client(where, "check", preexec_fn=_ignore_hup_block_usr1)
    assert done.stdout is not None
    assert done.stdout.readline() == "ready\n"
    done.send_signal(signal.SIGHUP)  # nohup'd: neither the client nor the run ends
    time.sleep(0.3)
    assert done.poll() is None
    done.send_signal(signal.SIGINT)
    out, _ = done.communicate(timeout=30)
    assert (done.returncode, out) == (130, "interrupted\n")


def _mark(tmp: Path) -> Callable[[], None]:
    def run() -> None:
        (tmp / "ran").write_text("")

    return run


def test_a_client_that_gave_up_gets_no_run(where: Path, servers: list[int], tmp_path: Path) -> None:
    """It runs the check itself: a run readied after it left must never begin on its
    descriptors."""
    servers.append(_serve(where, _mark(tmp_path)))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(where))
        wire.send(sock, {"op": "run", "argv": ["check"], "cwd": str(tmp_path), "env": {}})
        assert wire.receive(sock) == ({"fds": True}, [])
        wire.send(sock, {"op": "fds"}, [0, 1, 2])
        got = wire.receive(sock)
        assert got is not None and isinstance(got[0]["pid"], int)  # readied; no `go` follows
    time.sleep(1.0)
    assert not (tmp_path / "ran").exists()
    assert client.ask(where, "status")["served"] == 1  # type: ignore[index]


def test_a_daemon_that_never_accepts_is_no_daemon(where: Path) -> None:
    wedged = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    wedged.bind(str(where))
    wedged.listen(0)
    try:
        code = CLIENT.replace("code = client", "client.FIRST_S = 0.5\ncode = client")
        # more than the backlog: a connect that would block
        clients = [_client(where, "check", code=code) for _ in range(3)]
        for c in clients:
            out, _ = c.communicate(timeout=30)
            assert (c.returncode, out) == (99, "no daemon")
    finally:
        wedged.close()


def _write_and_exit(code: object) -> Callable[[], None]:
    def run() -> None:
        sys.stdout.write("x" * 100)
        raise SystemExit(code)

    return run


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize(
    ("code", "status", "stderr"),
    [
        (0, 120, "Exception ignored in: <_io.TextIOWrapper name='<stdout>' mode='w'"),
        ("a message", 120, "a message\nException ignored in"),
    ],
)
def test_a_run_ends_as_pythons_exit_ends(
    where: Path, servers: list[int], code: object, status: int, stderr: str
) -> None:
    """When cutlint's quick exit cannot end the run (stdout cannot be flushed: a full disk),
    the run's status and message are Python's own: not 0 with nothing said."""
    servers.append(_serve(where, _write_and_exit(code)))
    with open("/dev/full", "w") as full:
        done = _client(where, "check", stdout=full)
        _, err = done.communicate(timeout=30)
    assert done.returncode == status
    assert err.startswith(stderr)
    assert "OSError: [Errno 28]" in err


def test_ctrl_c_before_a_stopped_daemon_answers_ends_the_check_at_once(
    where: Path, servers: list[int]
) -> None:
    pid = _serve(where, _report)
    servers.append(pid)
    os.kill(pid, signal.SIGSTOP)  # accepts nothing: the client waits for its answer
    try:
        done = _client(where, "check")
        time.sleep(0.5)
        started = time.monotonic()
        done.send_signal(signal.SIGINT)
        done.communicate(timeout=30)
        assert time.monotonic() - started < 2.0  # not the hand-over's 3 s
        assert done.returncode == -signal.SIGINT  # this process's own Ctrl-C, as at a start
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_run_whose_attendant_is_killed_ends(
    where: Path, servers: list[int], tmp_path: Path
) -> None:
    servers.append(_serve(where, _sleep_with_pid(tmp_path)))
    done = _client(where, "check")
    run = _run_pid(tmp_path)
    attendant = int(Path(f"/proc/{run}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(attendant, signal.SIGKILL)
    _, err = done.communicate(timeout=30)
    assert done.returncode == 2 and "went away" in err
    assert _gone(run)


def test_ctrl_z_in_an_orphaned_group_stops_nothing(where: Path, servers: list[int]) -> None:
    """The kernel discards a SIGTSTP to a process whose group is orphaned (`exec cutlint check`,
    `ssh -t host cutlint check`): a check alone goes on, so the run must too, not stay stopped
    with its client waiting."""
    servers.append(_serve(where, _wait_for_ctrl_c))
    done = _client(where, "check", start_new_session=True)  # its own session: orphaned
    assert done.stdout is not None
    assert done.stdout.readline() == "ready\n"
    done.send_signal(signal.SIGTSTP)
    time.sleep(0.5)
    done.send_signal(signal.SIGINT)  # a run left stopped would never take it
    out, _ = done.communicate(timeout=30)
    assert (done.returncode, out) == (130, "interrupted\n")
