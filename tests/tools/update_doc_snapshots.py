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
other tag (`sh`, a bare fence) are examples, not run.

When the output legitimately changes, rewrite every snapshot from what the commands print now:

    python -m tests.tools.update_doc_snapshots [--slow] [FILE.md ...]

and read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```console\n(.*?)^```\n", re.M | re.S)
SLOW = "<!-- snapshot: slow -->"


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
    """What `command` prints, as the doc shows it: stdout and stderr, then `[exit N]`."""
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", CUTLINT_PARSE_TIMEOUT="120")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )
    out = done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n"
    return out + (f"[exit {done.returncode}]\n" if done.returncode else "")


def update(doc: Path, slow: bool = False) -> int:
    """Rewrite the doc's snapshots; the number changed."""
    text = doc.read_text(encoding="utf-8")
    changed = 0
    for c in reversed(commands(doc)):
        if c.slow and not slow:
            continue
        now = run(c.command)
        if now == c.shown:
            continue
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
