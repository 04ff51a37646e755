"""The commands the docs show, run, and their shown output compared (tests/test_doc_snapshots.py)
or rewritten (this script), as cram and ruff's insta snapshots do for theirs.

A snapshot is a fenced block tagged `console` in README.md or docs/*.md:

    ```console
    $ cutlint check fixtures/sm120-blockscaled-grouped/CUT101-headline-flashinfer-0.7.2.cu -q
    <what it prints, stdout and stderr as a terminal shows them>
    [exit 1]
    ```

Each `$ ` line is run with bash from the repository root (`cutlint` is this checkout's, columns
100, no colour); the lines after it, up to the next `$ ` line, are what it prints, then
`[exit N]` when N is not 0. A block right after an HTML comment `<!-- snapshot: slow -->` needs
minutes or the network: the default test run skips it (`pytest -m slow` runs it). Blocks of any
other tag (`sh`, a bare fence) are examples, not run: commands with nothing to show (install
lines, a CI step, a build on a GPU machine).

Two things keep a shown output short and stable, as cram's and insta's do:

- a line that is `...` (after white space and a tree's `│├└─` drawing) stands for any number of
  lines, none included: a page shows the lines it talks about and the rest is still compared
  in order;
- what differs from run to run is replaced, in what the command prints, by a placeholder before
  it is compared (`FILTERS`: the checkout's path `[ROOT]`, cutlint's cache directory `[CACHE]`,
  durations `[T] s`).

An update keeps a block's `...` lines and rewrites the lines between them from the nearest
lines of the new output; a block whose lines no longer fit is rewritten whole (read the diff
and put the `...` back where the page wants them).

When the output legitimately changes, rewrite every snapshot from what the commands print now:

    python -m tests.tools.update_doc_snapshots [--slow] [FILE.md ...]

and read the diff before committing it.
"""

from __future__ import annotations

import difflib
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```console\n(.*?)^```\n", re.M | re.S)
SLOW = "<!-- snapshot: slow -->"
SLOW_TIMEOUT = 1800
"""Seconds a slow block may take: `verify` compiles 16 files with nvcc (250 s of wall on an idle
2-core machine, over 600 s on a loaded one)."""
ELLIPSIS = re.compile(r"^[\s│├└─]*\.\.\.$")
FILTERS = (
    (re.compile(re.escape(str(ROOT))), "[ROOT]"),
    (
        re.compile(
            re.escape(os.environ.get("CUTLINT_CACHE") or str(Path.home() / ".cache" / "cutlint"))
        ),
        "[CACHE]",
    ),
    (re.compile(r"\b\d+(?:\.\d+)? s\b"), "[T] s"),
)


@dataclass(frozen=True)
class Command:
    doc: Path
    line: int
    """1-based line of the `$ ` line in the doc."""
    command: str
    shown: str
    """What the doc shows below it (with the `[exit N]` line)."""
    slow: bool


def docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands(doc: Path) -> list[Command]:
    text = doc.read_text(encoding="utf-8")
    found = []
    for block in FENCE.finditer(text):
        slow = text[: block.start()].rstrip().endswith(SLOW)
        first_line = text.count("\n", 0, block.start(1)) + 1
        lines = block.group(1).splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for n, i in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            shown = "".join(f"{x}\n" for x in lines[i + 1 : end])
            found.append(Command(doc, first_line + i, lines[i][2:], shown, slow))
    return found


def run(command: str, timeout: float = 600) -> str:
    """What `command` prints, as the doc shows it: stdout and stderr, then `[exit N]`. A command
    that outlives `timeout` is stopped with everything it started (its own session: bash's
    children, a verify's nvcc), not left running, and raises TimeoutExpired."""
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", CUTLINT_PARSE_TIMEOUT="120")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout)
    out = done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n"
    for pattern, placeholder in FILTERS:
        out = pattern.sub(placeholder, out)
    return out + (f"[exit {done.returncode}]\n" if done.returncode else "")


def _segments(shown: list[str]) -> list[list[str] | None]:
    """The shown lines cut at each `...` line (None)."""
    out: list[list[str] | None] = []
    for line in shown:
        if ELLIPSIS.match(line):
            if out and out[-1] is None:
                continue
            out.append(None)
        elif out and out[-1] is not None:
            out[-1].append(line)  # type: ignore[union-attr]
        else:
            out.append([line])
    return out


def matches(shown: str, now: str) -> bool:
    """Whether `now` (what the command printed) is what the doc shows, `...` lines standing
    for any lines."""
    if shown == now:
        return True
    parts = _segments(shown.splitlines())
    if all(p is not None for p in parts):
        return False
    lines = now.splitlines()
    at = 0
    for n, part in enumerate(parts):
        if part is None:
            continue
        floating = n > 0  # after a `...`
        last = n == len(parts) - 1
        if last and floating:  # anchored at the end
            return len(lines) - len(part) >= at and lines[len(lines) - len(part) :] == part
        if not floating:
            if lines[at : at + len(part)] != part:
                return False
            at += len(part)
            continue
        found = next(
            (i for i in range(at, len(lines) - len(part) + 1) if lines[i : i + len(part)] == part),
            None,
        )
        if found is None:
            return False
        at = found + len(part)
    return parts[-1] is None or at == len(lines)


def refit(shown: str, now: str) -> str:
    """`now` as the doc shows it: each run of lines between `...` replaced by the run of new
    lines most like it, in order; the whole of `now` when a run finds no place."""
    parts = _segments(shown.splitlines())
    if all(p is not None for p in parts):
        return now
    lines = now.splitlines()
    out: list[str] = []
    at = 0
    for n, part in enumerate(parts):
        if part is None:
            out.append(next(x for x in shown.splitlines() if ELLIPSIS.match(x)))
            continue
        last = n == len(parts) - 1
        if n == 0:
            start = 0
        elif last:
            start = max(at, len(lines) - len(part))
        else:
            best = max(
                range(at, max(at, len(lines) - len(part)) + 1),
                key=lambda i: sum(
                    difflib.SequenceMatcher(None, a, b).quick_ratio()
                    for a, b in zip(part, lines[i : i + len(part)], strict=False)
                ),
                default=None,
            )
            if best is None:
                return now
            start = best
        if start + len(part) > len(lines):
            return now
        out += lines[start : start + len(part)]
        at = start + len(part)
    return "".join(f"{x}\n" for x in out)


def update(doc: Path, slow: bool = False) -> int:
    """Rewrite the doc's snapshots; the number changed."""
    text = doc.read_text(encoding="utf-8")
    changed = 0
    for c in reversed(commands(doc)):
        if c.slow and not slow:
            continue
        now = run(c.command, SLOW_TIMEOUT if c.slow else 600)
        if matches(c.shown, now):
            continue
        now = refit(c.shown, now)
        lines = text.split("\n")
        start = c.line  # the line after the command (0-based index = 1-based line)
        lines[start : start + c.shown.count("\n")] = now.rstrip("\n").split("\n")
        text = "\n".join(lines)
        changed += 1
    doc.write_text(text, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    slow = "--slow" in argv
    targets = [Path(a).resolve() for a in argv if not a.startswith("--")] or docs()
    for doc in targets:
        n = update(doc, slow)
        if n:
            print(f"{doc.relative_to(ROOT)}: {n} snapshot(s) rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
