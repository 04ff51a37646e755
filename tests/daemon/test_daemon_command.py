"""`cutlint daemon start|status|stop` and checks handed to it, end to end: every check the daemon
runs writes the bytes, the stderr and the exit code that the same command writes in its own
process; a daemon of another environment is not used; stop ends it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the daemon needs fork")

FIXTURES = Path(__file__).parents[2] / "fixtures"
CHECKS = (
    ["--format", "text"],
    ["--format", "json"],
    ["--format", "sarif", "-q"],
    ["--format", "concise", "--statistics"],
    ["--select", "NOSUCH"],  # a usage error: exit code 2
)


def _run(
    argv: list[str], env: dict[str, str], cwd: Path, **kw: Any
) -> subprocess.CompletedProcess[str]:
    """`argv` to its end, stdout and stderr captured unless `kw` sends them elsewhere."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(
        argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, text=True, timeout=300, check=False, **kw
    )


def _cutlint(
    env: dict[str, str], *args: str, cwd: Path, **kw: Any
) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "cutlint", *args], env, cwd, **kw)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    e = {k: v for k, v in os.environ.items() if k != "CUTLINT_NO_DAEMON"}
    e["CUTLINT_DAEMON_DIR"] = str(tmp_path / "daemon")
    yield e
    _cutlint(e, "daemon", "stop", cwd=tmp_path)


def test_checks_run_by_the_daemon_are_the_checks_run_alone(
    env: dict[str, str], tmp_path: Path
) -> None:
    started = _cutlint(env, "daemon", "start", "--idle-timeout", "300", cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    assert "started" in started.stdout
    again = _cutlint(env, "daemon", "start", cwd=tmp_path)
    assert "already running" in again.stdout

    alone = {**env, "CUTLINT_NO_DAEMON": "1"}
    inputs = [str(FIXTURES / "sm90-collective-builder"), str(FIXTURES / "cutlass2-gemm-universal")]
    for args in CHECKS:
        served = _cutlint(env, "check", "--no-config", *inputs, *args, cwd=tmp_path)
        own = _cutlint(alone, "check", "--no-config", *inputs, *args, cwd=tmp_path)
        assert (served.returncode, served.stdout, served.stderr) == (
            own.returncode,
            own.stdout,
            own.stderr,
        ), args

    status = _cutlint(env, "daemon", "status", "--json", cwd=tmp_path)
    assert status.returncode == 0
    assert json.loads(status.stdout)["served"] == len(CHECKS)  # the CUTLINT_NO_DAEMON ones: not

    # Another environment as a check reads it is another daemon's: none runs for it.
    other = _cutlint({**env, "NO_COLOR": "1"}, "daemon", "status", "--json", cwd=tmp_path)
    assert other.returncode == 1 and json.loads(other.stdout) == {"running": False}
    _cutlint({**env, "NO_COLOR": "1"}, "check", "--no-config", inputs[0], cwd=tmp_path)
    status = _cutlint(env, "daemon", "status", "--json", cwd=tmp_path)
    assert json.loads(status.stdout)["served"] == len(CHECKS)

    stopped = _cutlint(env, "daemon", "stop", cwd=tmp_path)
    assert "stopped" in stopped.stdout
    after = _cutlint(env, "daemon", "status", cwd=tmp_path)
    assert after.returncode == 1 and "not running" in after.stdout


def _on_a_terminal(env: dict[str, str], *args: str, cwd: Path) -> tuple[int, bytes]:
    """`cutlint ARGS` with stdout on a terminal (a pty): its exit code and what it wrote there."""
    import pty

    leader, follower = pty.openpty()
    done = subprocess.Popen(
        [sys.executable, "-m", "cutlint", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: every writer closed it
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    done.communicate(timeout=300)
    return done.returncode, b"".join(chunks)


def test_a_terminal_stays_a_terminal(env: dict[str, str], tmp_path: Path) -> None:
    """The daemon's run writes on the caller's terminal itself: colour where a check in its own
    process colours, the same bytes."""
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm-256color"
    assert _cutlint(env, "daemon", "start", cwd=tmp_path).returncode == 0
    inputs = [str(FIXTURES / "sm90-collective-builder")]
    served = _on_a_terminal(env, "check", "--no-config", *inputs, cwd=tmp_path)
    own = _on_a_terminal(
        {**env, "CUTLINT_NO_DAEMON": "1"}, "check", "--no-config", *inputs, cwd=tmp_path
    )
    assert served == own
    assert b"\x1b[" in served[1]  # coloured: it was a terminal
    status = _cutlint(env, "daemon", "status", "--json", cwd=tmp_path)
    assert json.loads(status.stdout)["served"] == 1


def _served_count(env: dict[str, str], cwd: Path) -> int:
    status = _cutlint(env, "daemon", "status", "--json", cwd=cwd)
    return int(json.loads(status.stdout).get("served", -1))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_report_that_cannot_be_written_fails_as_alone(
    env: dict[str, str], tmp_path: Path, unbuffered: bool
) -> None:
    """A full disk (/dev/full): the same exit code and message served as alone, buffered
    (Python's exit reports the flush: 120) and under PYTHONUNBUFFERED (the write fails at once)."""
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    assert _cutlint(env, "daemon", "start", cwd=tmp_path).returncode == 0
    args = ["check", "--no-config", str(FIXTURES / "sm90-collective-builder"), "--format", "json"]
    ends = []
    for e in (env, {**env, "CUTLINT_NO_DAEMON": "1"}):
        with open("/dev/full", "w") as full:
            done = _cutlint(e, *args, cwd=tmp_path, stdout=full)
        ends.append((done.returncode, done.stderr))
    assert ends[0] == ends[1]
    assert ends[0][0] != 0
    assert _served_count(env, tmp_path) == 1


def test_other_limits_are_not_served(env: dict[str, str], tmp_path: Path) -> None:
    """A run inherits the daemon's resource limits: a check under another `ulimit` is not
    handed over, and ends as it does alone."""
    import resource

    assert _cutlint(env, "daemon", "start", cwd=tmp_path).returncode == 0
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    lower = 1 << 20 if soft == resource.RLIM_INFINITY else soft // 2

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (lower, hard))

    args = ["check", "--no-config", str(FIXTURES / "sm90-collective-builder"), "-q"]
    done = _cutlint(env, *args, cwd=tmp_path, preexec_fn=limited)
    assert done.returncode == 0, done.stderr
    assert _served_count(env, tmp_path) == 0
    _cutlint(env, *args, cwd=tmp_path)
    assert _served_count(env, tmp_path) == 1


def test_the_cache_and_its_replay_through_the_daemon(env: dict[str, str], tmp_path: Path) -> None:
    """With the cache on, the daemon's run keeps its report and a second run of the command is
    replayed, as alone; the bytes are the same as a run alone, with its own cache."""
    env.pop("CUTLINT_NO_CACHE", None)
    env["CUTLINT_CACHE"] = str(tmp_path / "cache")
    env["CUTLINT_REPLAY_LOG"] = str(tmp_path / "replay.log")
    assert _cutlint(env, "daemon", "start", cwd=tmp_path).returncode == 0
    args = ["check", "--no-config", str(FIXTURES / "sm90-collective-builder")]
    served = [_cutlint(env, *args, cwd=tmp_path) for _ in range(2)]
    alone_env = {**env, "CUTLINT_NO_DAEMON": "1", "CUTLINT_CACHE": str(tmp_path / "cache2")}
    alone = _cutlint(alone_env, *args, cwd=tmp_path)
    for s in served:
        assert (s.returncode, s.stdout, s.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    log = (tmp_path / "replay.log").read_text().splitlines()
    assert [line.split(":")[0] for line in log[:3]] == ["miss", "stored", "replayed"], log
    assert _served_count(env, tmp_path) == 2


def test_the_cutlint_command(env: dict[str, str], tmp_path: Path) -> None:
    """The installed `cutlint` script (its module path is not `python -m`'s): served as alone."""
    script = Path(sys.executable).with_name("cutlint")
    if not script.exists():
        pytest.skip("no `cutlint` script beside this interpreter")

    def run(e: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return _run([str(script), *args], e, tmp_path)

    assert run(env, "daemon", "start").returncode == 0
    check = ["check", "--no-config", str(FIXTURES / "sm90-collective-builder")]
    for args in (check, [*check, "--bogus"]):  # a report, and a usage error
        served = run(env, *args)
        alone = run({**env, "CUTLINT_NO_DAEMON": "1"}, *args)
        assert (served.returncode, served.stdout, served.stderr) == (
            alone.returncode,
            alone.stdout,
            alone.stderr,
        )
    status = json.loads(run(env, "daemon", "status", "--json").stdout)
    assert status["served"] == 2
    assert run(env, "daemon", "stop").returncode == 0


def test_what_does_not_go_over_is_not_served(env: dict[str, str], tmp_path: Path) -> None:
    """A descriptor beyond 0-2 meant for the check (`-o /dev/fd/3` with `3>out`) and interpreter
    options (`python -W ...`) do not reach a daemon's run: such a check runs in its own process,
    and ends as it does there."""
    assert _cutlint(env, "daemon", "start", cwd=tmp_path).returncode == 0
    fixture = str(FIXTURES / "sm90-collective-builder")
    out = tmp_path / "out.json"
    with open(out, "w") as target:
        to_fd = ["--format", "json", "-o", f"/dev/fd/{target.fileno()}"]
        check = ["check", "--no-config", fixture, *to_fd]
        done = _cutlint(env, *check, cwd=tmp_path, pass_fds=(target.fileno(),))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["files"]
    warned = [sys.executable, "-W", "ignore", "-m", "cutlint", "check", "--no-config", fixture]
    options = _run([*warned, "-q"], env, tmp_path)
    assert options.returncode == 0, options.stderr
    assert _served_count(env, tmp_path) == 0
