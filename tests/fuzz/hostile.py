"""Hostile inputs for cutlint, made from a random.Random, and the oracles every run must pass.

One generator serves both the property-based tests (hypothesis draws the Random, and shrinks the
choices that make a failure) and the long run (tests/fuzz/run.py, a Random per input from a
seed). Every input is a workspace: a directory holding the *good files* (copies of real
generated files, never touched) among hostile ones (mutated sources, links that sort before the
good files, loops, FIFOs, names that are not UTF-8 or carry escape sequences, paths longer than
PATH_MAX), perhaps a pyproject.toml, a baseline and a log, and a command line to run on it.

The oracles (`judge`):

- **traceback**: the exit code is 0, 1 or 2, and nothing on stderr is a Python traceback or the
  top-level handler's "internal error" line (an unforeseen exception is a bug even when it is
  caught);
- **hang**: the run ends within `Limits.seconds`;
- **good file changed**: each good file's result (every instantiation's line, verdict, findings
  and fingerprints) is the one it has when checked alone with the same options;
- **bad output**: JSON and SARIF parse; text and GitHub output carry no control character
  but newlines and tabs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CORPUS = Path(__file__).resolve().parent / "corpus"

GOOD_FILES = {
    # name in the workspace -> fixture: real generated files (the generator's own output shape),
    # with the headline failure, so a changed result shows in every field.
    "zz_good/cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu": (
        "parse/cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu"
    ),
    "zz_good/headline_sm120.cu": "sm120-blockscaled-grouped/CUT101-headline-flashinfer-0.7.2.cu",
}
SEEDS = sorted(p.read_bytes() for p in FIXTURES.rglob("*.cu"))
"""Every fixture: a real source of every family (issue 25 drew the families' own files too)."""
UNICODE_DIGITS = ["\u0966", "\uff10", "\U0001d7ce", "\u2070", "\u00b2", "\u2460"]
"""Zero in Devanagari, fullwidth and mathematical bold (str.isdecimal), superscript zero and two
and a circled one (str.isdigit only): the bases of digits `int()` does or does not read."""
UNICODE_SPACES = ["\u00a0", "\u200b", "\u2009", "\u3000", "\ufeff"]
LOG_SEEDS = [p.read_bytes() for p in sorted((FIXTURES / "logs").glob("*.log"))]
MACRO = b"INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"


def corpus(name: str) -> list[bytes]:
    """The hostile snippets of corpus/<name>: one per line, `\\n`, `\\r`, `\\xNN` escapes
    decoded; `#` lines are comments."""
    out = []
    for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("# "):
            continue
        out.append(
            line.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        )
    return out


PIECES = corpus("source_pieces.txt")
LOG_PIECES = corpus("log_lines.txt")
NAMES = corpus("file_names.txt")
DEFINES = corpus("defines.txt")


# --- sources -------------------------------------------------------------------------------------


def huge_number(rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:
        return str(2**31 + rng.randrange(1000)).encode()
    if kind == 1:
        return b"1" * rng.choice([19, 20, 21, 30, 4301, 5000])
    if kind == 2:
        return b"0x" + b"f" * rng.choice([8, 16, 17, 3600])
    if kind == 3:
        return b"0b" + b"1" * rng.choice([31, 64, 65, 20000])
    if kind == 4:
        return rng.choice(
            [b"0", b"-1", b"08", b"1'28", b"0x", b"1e5", b"128u", b"128ull", b"(128)"]
        )
    return str(rng.randrange(1, 1 << 40)).encode()


def mutate_source(rng: random.Random, text: bytes) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        op = rng.randrange(12)
        if op == 0:
            text = text[:at]
        elif op == 1:
            text = text[:at] + rng.choice(PIECES) + text[at:]
        elif op == 2:
            lines = text.split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = b"\n".join(lines)
        elif op == 3:
            text = text[:at] + text[at + rng.randint(1, 64) :]
        elif op == 4:
            text = text.replace(b"\n", rng.choice([b"\r", b"\r\n", b"\n\r"]))
        elif op == 5:
            numbers = list(re.finditer(rb"\b\d+\b", text))
            if numbers:
                m = rng.choice(numbers)
                text = text[: m.start()] + huge_number(rng) + text[m.end() :]
        elif op == 6:
            text = (
                text[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + text[at:]
            )
        elif op == 7:
            calls = [m.start() for m in re.finditer(MACRO, text)]
            if calls:
                c = rng.choice(calls)
                text = (
                    text[:c] + rng.choice([b'"', b"'", b"/*", b"//", b"#", b"@", b"\\"]) + text[c:]
                )
        elif op == 8:
            text = (
                text[:at]
                + rng.choice([b"#if 0\n", b"#endif\n", b"#else\n", b"#error x\n", b"}\n", b"{\n"])
                + text[at:]
            )
        elif op == 9:
            text = text[:at] + rng.choice(PIECES) * rng.choice([2, 100, 5000]) + text[at:]
        elif op == 10:
            text = _unicode_lookalike(rng, text)
        else:
            text = _equivalent_spelling(rng, text)
    return text


def _unicode_lookalike(rng: random.Random, text: bytes) -> bytes:
    """A digit of a number made a non-ASCII digit, or a space a non-ASCII space."""
    numbers = list(re.finditer(rb"[0-9]", text))
    if numbers and rng.random() < 0.6:
        m = rng.choice(numbers)
        base = ord(rng.choice(UNICODE_DIGITS))
        digit = chr(base + int(m.group()) if base in (0x966, 0xFF10, 0x1D7CE) else base)
        return text[: m.start()] + digit.encode() + text[m.end() :]
    spaces = [m.start() for m in re.finditer(rb" ", text)]
    if not spaces:
        return text
    at = rng.choice(spaces)
    return text[:at] + rng.choice(UNICODE_SPACES).encode() + text[at + 1 :]


def _equivalent_spelling(rng: random.Random, text: bytes) -> bytes:
    """What C++ spells another way with the same meaning: a hex or separated number, a digraph,
    a line splice inside a name, a UTF-8 letter in an alias name."""
    kind = rng.randrange(4)
    numbers = list(re.finditer(rb"(?<![\w.'])[1-9][0-9]{1,5}(?![\w.'])", text))
    if kind == 0 and numbers:
        m = rng.choice(numbers)
        n = int(m.group())
        spelled = rng.choice(
            [hex(n).encode(), f"{n:,}".replace(",", "'").encode(), b"0" + oct(n)[2:].encode()]
        )
        return text[: m.start()] + spelled + text[m.end() :]
    if kind == 1:
        return text.replace(b"{", b"<%", 1).replace(b"}", b"%>", 1)
    if kind == 2:
        calls = [m.start() for m in re.finditer(MACRO, text)]
        if calls:
            c = rng.choice(calls) + rng.randint(1, len(MACRO) - 1)
            return text[:c] + b"\\\n" + text[c:]
    aliases = list(re.finditer(rb"using (\w+) =", text))
    if aliases:
        m = rng.choice(aliases)
        name = m.group(1)
        return text.replace(name, name + "\u00e9".encode())
    return text


def source(rng: random.Random) -> bytes:
    return mutate_source(rng, rng.choice(SEEDS))


# --- the workspace --------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _bytes_path(directory: Path, name: bytes) -> bytes:
    return os.path.join(os.fsencode(directory), name)


@dataclass
class Workspace:
    root: Path
    args: list[str]
    """The command line after `cutlint`, paths relative to `root` (the working directory)."""
    good: list[str]
    """The good files' paths relative to `root`."""
    options: list[str] = field(default_factory=list)
    """The options of `args` (no paths): the alone-run uses the same."""
    kind: str = "check"

    @property
    def fmt(self) -> str:
        if "--format" in self.args:
            return self.args[self.args.index("--format") + 1]
        return "text"


def _deep(directory: Path, name: bytes, data: bytes) -> str:
    """A file below a path longer than PATH_MAX (made with openat, since no path can name it)."""
    fd = os.open(directory, os.O_RDONLY)
    parts = []
    try:
        for _ in range(22):
            part = "d" * 200
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            nxt = os.open(part, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
            parts.append(part)
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd)
        os.write(f, data)
        os.close(f)
    finally:
        os.close(fd)
    return os.path.join(*parts)


def tree(rng: random.Random, root: Path) -> list[str]:
    """Good files, then 1-6 hostile entries around them. Returns the good files' paths."""
    for name, fixture in GOOD_FILES.items():
        _write(root / name, (FIXTURES / fixture).read_bytes())
    good = list(GOOD_FILES)
    hostile = root / rng.choice(
        ["", "zz_good", "a", "sm_120a", "runs/42", "sm_42a", "120f", "x/sm_87"]
    )
    hostile.mkdir(parents=True, exist_ok=True)
    for _ in range(rng.randint(1, 6)):
        kind = rng.randrange(14)
        name = rng.choice(NAMES) if rng.random() < 0.5 else f"h{rng.randrange(100)}.cu".encode()
        target = _bytes_path(hostile, name)
        if os.path.lexists(target):
            # A name drawn twice: opening a FIFO made earlier for writing would wait for a reader
            # forever (the harness hung on seed 7, input 279).
            continue
        with contextlib.suppress(OSError):
            if kind <= 3:
                with open(target, "wb") as f:
                    f.write(source(rng))
            elif kind == 4:  # a link to a good file, named to sort first
                rel = os.path.relpath(root / rng.choice(good), hostile)
                os.symlink(rel, _bytes_path(hostile, b"0_link_" + name))
            elif kind == 5:  # a hard link to a good file, named to sort first
                os.link(root / rng.choice(good), _bytes_path(hostile, b"0_hard_" + name))
            elif kind == 6:
                os.symlink(name, target)  # a link to itself
            elif kind == 7:
                os.symlink(b"cycle_b.cu", _bytes_path(hostile, b"cycle_a.cu"))
                os.symlink(b"cycle_a.cu", _bytes_path(hostile, b"cycle_b.cu"))
            elif kind == 8:
                os.mkfifo(target)
            elif kind == 9:
                os.mkdir(target)  # a directory named like a source
                _write(Path(os.fsdecode(target)) / "inner.cu", source(rng))
            elif kind == 10:
                _deep(hostile, name, source(rng))
            elif kind == 12:  # a directory link out of the tree: never to be walked
                os.symlink(rng.choice([b"/", b"/proc", b"/sys", b"/dev"]), target + b"_dir")
            elif kind == 13:  # directories linking to each other: the paths must not multiply
                subdirs = [_bytes_path(hostile, f"mesh{i}".encode()) for i in range(6)]
                for d in subdirs:
                    os.makedirs(d, exist_ok=True)
                for d in subdirs:
                    for j in range(4):
                        with contextlib.suppress(OSError):
                            os.symlink(rng.choice(subdirs), os.path.join(d, f"l{j}".encode()))
                _write(Path(os.fsdecode(subdirs[0])) / "m.cu", source(rng))
            else:
                os.symlink(b"nowhere.cu", target)  # dangling
    return good


def pyproject(rng: random.Random) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:
        return b"[tool.cutlint]\nfail-on = 'error'\nx = " + huge_number(rng) + b"\n"
    if kind == 1:
        return b"[project]\nname = 'x'\nv = " + huge_number(rng) + b"\n"
    if kind == 2:
        return (
            b"a = " + b"[" * rng.choice([10, 70, 5000]) + b"]" * rng.choice([10, 70, 5000]) + b"\n"
        )
    if kind == 3:
        return (
            b"[tool.cutlint]\ndefines = { "
            + json.dumps(rng.choice(DEFINES).decode("latin-1")).encode()
            + b" = '1' }\n"
        )
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    if kind == 5:
        arch = rng.choice(["sm_120", "sm_121", "sm_87", "sm_110", "sm_42", "1" * 50, "sm_\x1b"])
        return f"[tool.cutlint]\narch = {json.dumps(arch)}\n".encode()
    if kind == 6:
        return (
            b"[tool.cutlint]\ncutlass-version = "
            + rng.choice([b"'4.5.0'", b"'include'", b"'9" * 3 + b"'", b"'x'"])
            + b"\n"
        )
    return b"[tool.cutlint]\nselect = ['CUT0', 'CUT1']\n"


def baseline(rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:
        return b"[" * rng.choice([10, 100, 100_000]) + b"]" * 10
    if kind == 1:
        return (
            b'{"version": 1, "tool": "cutlint", "fingerprint_version": ' + huge_number(rng) + b"}"
        )
    if kind == 2:
        return json.dumps(
            {"version": 1, "tool": "cutlint", "fingerprint_version": 1,
             "findings": [{"fingerprint": "0" * 16 + ":1", "rule": "CUT101", "name": "x", "path": "\x1b[2J",
                           "line": rng.choice([1, None, -5]), "message": "m" * rng.choice([1, 100_000])}]}
        ).encode()  # fmt: skip
    if kind == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    if kind == 4:
        return b'{"version": NaN}'
    return b'{"version": 1, "tool": "cutlint", "fingerprint_version": 1, "findings": []}'


def options(rng: random.Random, root: Path) -> list[str]:
    out: list[str] = []
    for _ in range(rng.choice([0, 0, 0, 1, 2, 3])):  # half the runs reach the parser unhindered
        kind = rng.randrange(7)
        if kind == 0:
            out += ["-D", rng.choice(DEFINES).decode("latin-1")]
        elif kind == 1:
            out += ["-U", rng.choice(DEFINES).decode("latin-1")]
        elif kind == 2:
            out += [
                "--arch",
                rng.choice(["sm_120", "sm_87", "sm_110", "sm_42", "9" * 5000, "sm_120\n"]),
            ]
        elif kind == 3:
            inc = root / "cutlass_include"
            (inc / "cutlass").mkdir(parents=True, exist_ok=True)
            header = inc / "cutlass" / "version.h"
            with contextlib.suppress(OSError):
                header.unlink()
            choice = rng.randrange(4)
            if choice == 0:
                os.mkfifo(header)
            elif choice == 1:
                header.write_text(
                    "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 5\n#define CUTLASS_PATCH 0\n"
                )
            elif choice == 2:
                header.write_bytes(b"#define CUTLASS_MAJOR " + huge_number(rng) + b"\n")
            out += [
                "--cutlass-version",
                rng.choice(["cutlass_include", ".", "4.5.0", "4.2.1", "99.0"]),
            ]
        elif kind == 4:
            out += ["--select", rng.choice(["CUT0", "CUT1", "CUT999", "X" * 1000])]
        elif kind == 5:
            out += ["--parse-timeout", rng.choice(["5", "20", "inf", "nan", "1e308", "1e12"])]
        elif kind == 6 and rng.random() < 0.5:
            out += ["-o", _output_target(rng, root)]
        else:
            out += ["--fail-on", rng.choice(["error", "warning", "never"])]
    return out


def _output_target(rng: random.Random, root: Path) -> str:
    """An -o that must be refused (a good file, a FIFO, a device, /proc) or written whole."""
    choice = rng.randrange(5)
    if choice == 0:
        return str(root / rng.choice(list(GOOD_FILES)))  # the good file must stay as it is
    if choice == 1:
        fifo = root / "report.fifo"
        with contextlib.suppress(OSError):
            os.mkfifo(fifo)
        return str(fifo)
    if choice == 2:
        return rng.choice(["/dev/full", "/proc/self/mem", "/dev/zero"])
    if choice == 3:
        return str(root / "zz_good")  # a directory
    return str(root / "report.out")


LOG_BUDGET = 40 << 20
"""The most bytes a generated log may have (a million-line log is ~150 MB; 40 MB keeps a run
within seconds while still far beyond any real log's lines)."""


def log_text(rng: random.Random) -> bytes:
    lines = rng.choice(LOG_SEEDS).split(b"\n")
    size = sum(len(line) + 1 for line in lines)
    for _ in range(rng.randint(1, 6)):
        kind = rng.randrange(6)
        at = rng.randint(0, len(lines))
        if kind == 0:
            new = [rng.choice(LOG_PIECES)]
        elif kind == 1:
            new = [rng.choice(LOG_PIECES) * rng.choice([2, 1000, 20_000])]
        elif kind == 2 and lines:
            new = [lines[rng.randrange(len(lines))]] * rng.choice([2, 1000, 100_000])
        elif kind == 3 and lines:
            i = rng.randrange(len(lines))
            lines[i] = re.sub(rb"\d+", lambda m: huge_number(rng), lines[i], count=1)
            continue
        elif kind == 4:
            new = [bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))]
        else:
            factor = rng.choice([2, 10_000])
            grown = sum(line.count(b"(") for line in lines) * (factor - 1)
            if size + grown <= LOG_BUDGET:
                lines = [line.replace(b"(", b"(" * factor) for line in lines]
                size += grown
            continue
        extra = sum(len(line) + 1 for line in new)
        if size + extra <= LOG_BUDGET:
            lines[at:at] = new
            size += extra
    return b"\n".join(lines)


def workspace(rng: random.Random, root: Path, kind: str | None = None) -> Workspace:
    """One hostile input: `kind` "check" (a tree), "config" (a pyproject.toml or --config, a
    baseline), "log" (explain --log), or drawn at random."""
    kind = kind or rng.choice(["check", "check", "config", "log"])
    good = tree(rng, root) if kind != "log" or rng.random() < 0.5 else _good_only(root)
    fmt = rng.choice(["json", "json", "text", "github", "sarif"])
    if kind == "log":
        special = rng.randrange(10)
        if special == 0:
            log = "/dev/zero"
        elif special == 1:
            os.mkfifo(root / "run.log")
            log = "run.log"
        else:
            _write(root / "run.log", log_text(rng))
            log = "run.log"
        args = ["explain", "--log", log, "--cache", ".", "--format", rng.choice(["text", "json"])]
        return Workspace(root, args, good, kind="log")
    opts = ["--format", fmt]
    if kind == "config":
        if rng.random() < 0.6:
            _write(root / "pyproject.toml", pyproject(rng))
        elif rng.random() < 0.5:
            os.mkfifo(root / "pyproject.toml")
        if rng.random() < 0.6:
            special = rng.randrange(8)
            if special == 0:
                opts += ["--baseline", "/dev/zero"]
            elif special == 1:
                os.mkfifo(root / "baseline.json")
                opts += ["--baseline", "baseline.json"]
            elif special == 2:
                opts += [
                    "--write-baseline",
                    "--baseline",
                    rng.choice(["zz_good", "x/y.json", "pyproject.toml/b"]),
                ]
            else:
                _write(root / "baseline.json", baseline(rng))
                opts += ["--baseline", "baseline.json"]
    else:
        opts += ["--no-config"]
    opts += options(rng, root)
    paths = ["."] if rng.random() < 0.7 else [".", *good]
    return Workspace(root, ["check", *opts, "--root", ".", *paths], good, options=opts, kind=kind)


def _good_only(root: Path) -> list[str]:
    for name, fixture in GOOD_FILES.items():
        _write(root / name, (FIXTURES / fixture).read_bytes())
    return list(GOOD_FILES)


# --- running and judging -----------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    hung: bool = False


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expired(signum: int, frame: FrameType | None) -> None:
        raise _Hang

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_in_process(args: list[str], cwd: Path, seconds: float) -> Outcome:
    """cutlint's click command in this process (fast; for the default test run)."""
    from click.testing import CliRunner

    from cutlint.cli import main

    start = time.monotonic()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with _alarm(seconds):
            result = CliRunner().invoke(main, args)
    except _Hang:
        return Outcome(None, "", "", time.monotonic() - start, hung=True)
    finally:
        os.chdir(old)
    if isinstance(result.exception, _Hang):
        return Outcome(None, "", "", time.monotonic() - start, hung=True)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        stderr += "".join(traceback.format_exception(result.exception))
    return Outcome(result.exit_code, result.stdout, stderr, time.monotonic() - start)


def run_subprocess(
    args: list[str], cwd: Path, seconds: float, python: str = sys.executable
) -> Outcome:
    """A whole `python -m cutlint` process (for the long run: a crash or a hang is seen as it is)."""
    start = time.monotonic()
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.Popen(
        [python, "-m", "cutlint", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its parser workers are killed with it on a hang
    )
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Outcome(
            None,
            out.decode("utf-8", "replace"),
            err.decode("utf-8", "replace"),
            time.monotonic() - start,
            hung=True,
        )
    return Outcome(
        proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        time.monotonic() - start,
    )


Runner = Callable[[list[str], Path, float], Outcome]


def good_results(out: Outcome, good: list[str]) -> dict[str, Any] | None:
    """The good files' results in a JSON report: path -> [(line, verdict, findings)]."""
    try:
        report = json.loads(out.stdout)
    except ValueError:
        return None
    found: dict[str, Any] = {}
    for i in report.get("instantiations", []):
        path = os.path.normpath(i["path"])
        if path in good:
            found.setdefault(path, []).append(
                (
                    i["line"],
                    i["verdict"],
                    [(f["rule"], f["message"], f["fingerprint"]) for f in i["findings"]],
                )
            )
    return found


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def judge(ws: Workspace, out: Outcome, alone: Callable[[], Outcome] | None) -> list[str]:
    """The oracles' verdicts on one run: an empty list when it passed."""
    failures: list[str] = []
    if out.hung:
        return ["hang"]
    if out.exit_code not in (0, 1, 2):
        failures.append(f"traceback: exit code {out.exit_code}: {out.stderr[-300:]}")
    elif "Traceback (most recent call last)" in out.stderr or "internal error" in out.stderr:
        failures.append(f"traceback: {out.stderr[-300:]}")
    if out.exit_code in (0, 1, 2) and out.stdout:
        if ws.kind != "log" and ws.fmt in ("json", "sarif"):
            try:
                json.loads(out.stdout)
            except ValueError as e:
                failures.append(f"bad output: {ws.fmt} does not parse: {e}")
        elif _CONTROL.search(out.stdout):
            failures.append(f"bad output: a raw control character: {_CONTROL.search(out.stdout)!r}")
    for name in ws.good:  # `-o` naming a good file must be refused, never write over it
        fixture = GOOD_FILES.get(name)
        with contextlib.suppress(OSError):
            if fixture and (ws.root / name).read_bytes() != (FIXTURES / fixture).read_bytes():
                failures.append(f"good file changed: {name} was written over")
    if out.exit_code in (0, 1, 2) and alone is not None and ws.kind != "log" and ws.fmt == "json":
        mine = good_results(out, ws.good)
        if mine is not None:
            expected = good_results(alone(), ws.good)
            if expected is not None and mine != expected:
                failures.append(
                    f"good file changed: {sorted(set(mine) ^ set(expected)) or 'results differ'}"
                )
    return failures


def alone_run(ws: Workspace, runner: Runner, seconds: float) -> Callable[[], Outcome]:
    """The good files checked alone with the same options, in a copy of the workspace that holds
    only them (and the config and baseline)."""

    def go() -> Outcome:
        copy = ws.root.parent / (ws.root.name + "-alone")
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir()
        for name in ws.good:
            _write(copy / name, (ws.root / name).read_bytes())
        for extra in ("pyproject.toml", "baseline.json", "cutlass_include"):
            src = ws.root / extra
            with contextlib.suppress(OSError):
                if src.is_file() and not src.is_symlink():
                    shutil.copy(src, copy / extra)
                elif src.is_dir() and not (src / "cutlass" / "version.h").is_fifo():
                    shutil.copytree(src, copy / extra)
        try:
            return runner(["check", *ws.options, "--root", ".", *ws.good], copy, seconds)
        finally:
            shutil.rmtree(copy, ignore_errors=True)

    return go


def clean(root: Path) -> None:
    """Remove a workspace, FIFOs, loops and paths beyond PATH_MAX included."""
    shutil.rmtree(root, ignore_errors=True)  # fd-based: long paths are fine
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=False)


def one_input(
    rng: random.Random, base: Path, runner: Runner, seconds: float, kind: str | None = None
) -> tuple[Workspace, Outcome, list[str]]:
    root = base / f"ws{rng.randrange(1 << 30)}"
    root.mkdir(parents=True)
    try:
        ws = workspace(rng, root, kind)
        out = runner(ws.args, root, seconds)
        failures = judge(ws, out, alone_run(ws, runner, seconds))
        return ws, out, failures
    finally:
        clean(root)


def quiet_stdio() -> contextlib.AbstractContextManager[Any]:
    return contextlib.redirect_stderr(io.StringIO())
