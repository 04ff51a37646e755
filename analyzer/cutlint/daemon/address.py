"""Where a daemon listens, and which daemon a process may hand its check to.

A daemon's socket is named by a key of everything its imported state depends on. A client
computes the same key from its own process; an equal key means the daemon's modules, data and
environment are the ones the client would load itself, and any difference is another name:

- cutlint's tool key (engine/tool.py: its version and every source, table and rule file);
- the interpreter (`sys.executable`, its version, its flags) and the module path, with the stat
  of each `site-packages` on it (an installed or upgraded package changes that directory's
  mtime, so a daemon never answers with a pydantic or click that is no longer the one
  installed);
- the environment a check reads (engine/replay.py's ENV_EXACT and ENV_PREFIXES: colour, CI, the
  locale, `CUTLINT_*`, `PYTHON*`, `PYDANTIC_*`, which libclang is loaded, where a toolkit is
  found), and the temporary directory;
- the process's own settings, which a run inherits from the daemon and not from its caller:
  user and groups, resource limits, priority, CPUs, the control group's limits, mount
  namespace and root (`_process`).

The directory is `$CUTLINT_DAEMON_DIR`, else `$XDG_RUNTIME_DIR/cutlint`, else
`$TMPDIR/cutlint-<uid>` (`/tmp` without TMPDIR): short (a Unix socket's path is at most 107 bytes), and on a local file
system, which a socket needs.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

ENV_DIR = "CUTLINT_DAEMON_DIR"
ENV_OFF = "CUTLINT_NO_DAEMON"
"""Set (to anything but empty) to run every check in its own process, daemon or not."""
ENV_DAEMON = frozenset({"TMPDIR", "TEMP", "TMP"})
"""Read once per process (tempfile.gettempdir keeps its answer), so that a daemon's answer is
its runs' too."""
PLUGINS, PLUGINS_OFF = "PYDANTIC_DISABLE_PLUGINS", "__all__"
SUFFIX = ".sock"
MAX_SOCKET_PATH = 107
"""sizeof(sockaddr_un.sun_path) on Linux is 108, with the terminating NUL."""


class AddressError(Exception):
    """The daemon directory cannot be used: not ours, open to others, or its path too long."""


def directory() -> Path:
    given = os.environ.get(ENV_DIR)
    if given:
        return Path(given).expanduser()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "cutlint"
    # Not tempfile.gettempdir(): it keeps its answer for the process's life, and a daemon's
    # runs must each find their own caller's TMPDIR.
    return Path(os.environ.get("TMPDIR") or "/tmp") / f"cutlint-{os.getuid()}"


def may_run() -> bool:
    """Whether any daemon may be listening: the directory holds a socket. Decided with one
    listing and no key, so that a check where no daemon was ever started pays nothing more.
    Never for a process given `-X`, `-W` or `-u` (`python -X importtime -m cutlint`): what
    they change happens at the daemon's start, not at the run's."""
    if os.environ.get(ENV_OFF) or not hasattr(os, "fork") or refused_options():
        return False
    try:
        with os.scandir(directory()) as entries:
            return any(e.name.endswith(SUFFIX) and e.name[0] != "." for e in entries)
    except OSError:
        return False


def key() -> str:
    """The key of this process's imported state, as its daemon would compute it."""
    from cutlint.engine.replay import ENV_EXACT, ENV_PREFIXES
    from cutlint.engine.tool import tool_key

    read = {
        k: v
        for k, v in os.environ.items()
        if k in ENV_EXACT or k in ENV_DAEMON or k.startswith(ENV_PREFIXES)
    }
    # The command's process sets it when unset (cutlint.cli.command_process), so that unset and
    # its default are one environment, whether the command's modules were imported yet or not.
    read.setdefault(PLUGINS, PLUGINS_OFF)
    parts = (
        "cutlint-daemon 1",
        tool_key(),
        sys.executable,
        sys.version,
        [(entry, _stat(entry)) for entry in sys.path],
        sorted(read.items()),
        repr(sys.flags),
        interpreter_options(),
        _process(),
    )
    data = repr(parts).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _process() -> tuple[object, ...]:
    """What a run inherits from the daemon, not from its caller, and a check could feel: the
    user and groups, every resource limit (`ulimit -f` makes a report that cannot be written),
    the scheduling priority and CPUs, the control group's limits, the mount namespace and the root
    (another namespace's paths name other files). A caller that differs in any is another
    daemon's, or runs the check itself."""
    import resource

    limits = [
        (name, resource.getrlimit(getattr(resource, name)))
        for name in sorted(dir(resource))
        if name.startswith("RLIMIT_")
    ]
    try:
        cpus: object = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = None
    try:
        priority: object = os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):
        priority = None
    return (
        os.getuid(),
        os.getgid(),
        sorted(os.getgroups()),
        limits,
        priority,
        cpus,
        _cgroup_limits(),
        _inode("/proc/self/ns/mnt"),
        _inode("/"),
    )


CGROUP_LIMITS = ("memory.max", "memory.high", "memory.swap.max", "cpu.max", "pids.max")
"""What a control group can hold a process to (cgroup v2). Not the group's name: a desktop
gives each terminal its own group, and a daemon started in one would serve no other."""


def _cgroup_limits() -> object:
    """The limits of this process's control group and its ancestors (cgroup v2); the groups'
    names where their limits cannot be read (cgroup v1, no /sys/fs/cgroup)."""
    text = _read("/proc/self/cgroup")
    if text is None:
        return None
    unified = [line[3:] for line in text.splitlines() if line.startswith("0::")]
    if len(text.splitlines()) != 1 or not unified:
        return text  # v1 or hybrid: the names, as the safe answer
    limits = []
    group = unified[0].strip("/")
    while True:
        where = os.path.join("/sys/fs/cgroup", group)
        for name in CGROUP_LIMITS:
            value = _read(os.path.join(where, name))
            if value is not None:
                limits.append((name, value.strip()))
        if not group:
            break
        group = os.path.dirname(group)
    return limits


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _inode(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _stat(entry: str) -> tuple[int, int] | None:
    """Where packages are installed, the directory's stat: an install, upgrade or removal adds or
    removes a `.dist-info` there. Not other entries' (a working directory on the path, `python -m`'s,
    changes whenever a file is written in it)."""
    if not entry.endswith(("site-packages", "dist-packages")):
        return None
    try:
        st = os.stat(entry or ".")
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ino)


def interpreter_options() -> list[str]:
    """The options this interpreter was started with, before its script, `-m` or `-c`."""
    argv = list(getattr(sys, "orig_argv", []))[1:]
    options: list[str] = []
    while argv and argv[0].startswith("-") and argv[0] not in ("-", "-m", "-c"):
        option = argv.pop(0)
        options.append(option)
        if option in ("-X", "-W") and argv:  # these take the next word
            options.append(argv.pop(0))
    return options


def refused_options() -> list[str]:
    """The interpreter options a daemon cannot take for its runs: `-X` (import times, dev mode,
    ...) and `-W` act while modules are imported, `-u` on the streams Python makes at start.
    Others (`-s`, `-E`, `-O`, `-B`, a script's shebang may carry them) show in `sys.flags`,
    which is in the key, and the daemon is started with them."""
    return [
        o
        for o in interpreter_options()
        if not o.startswith("--") and (o.startswith(("-X", "-W")) or "u" in o[1:])
    ]


def socket_path(daemon_key: str) -> Path:
    return directory() / f"{daemon_key[:24]}{SUFFIX}"


def log_path(socket: Path) -> Path:
    """Where the daemon at `socket` writes what it has to say (its start's errors): removed by
    the daemon when it stops with nothing written, so that the directory does not fill with one
    empty log per cutlint and environment ever served."""
    return socket.with_suffix(".log")


def untrusted(where: Path) -> str | None:
    """Why the daemon directory `where` may not be trusted, or None: it must be a directory (not
    a link another user made in /tmp), this user's own, and open to no one else."""
    try:
        st = os.lstat(where)
    except OSError as err:
        return f"cannot be read: {err}"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory (a link?)"
    if st.st_uid != os.getuid():
        return "belongs to another user"
    if st.st_mode & 0o077:
        return f"is open to other users (mode {st.st_mode & 0o777:o}); it must be 700"
    return None


def usable(path: Path) -> Path:
    """`path`, once its directory exists, is ours and open to no one else; AddressError why not."""
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise AddressError(
            f"the daemon's socket path is {len(os.fsencode(path))} bytes, more than a Unix "
            f"socket's {MAX_SOCKET_PATH}: {path} (set {ENV_DIR} to a shorter directory)"
        )
    where = path.parent
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise AddressError(f"the daemon directory {where} cannot be made: {err}") from err
    why = untrusted(where)
    if why is not None:
        raise AddressError(f"the daemon directory {where} {why}")
    return path
