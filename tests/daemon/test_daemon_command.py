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


def _cutlint(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cutlint", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


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
