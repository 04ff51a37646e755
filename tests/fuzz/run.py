"""The long fuzz run: hostile inputs for `cutlint check`, `explain --log`, baselines and
configuration, each run as a whole process, judged by tests/fuzz/hostile.py's oracles.

    python tests/fuzz/run.py [--minutes 20] [--inputs N] [--seed 1] [--python PY] [--keep DIR]

`--python` runs another cutlint (a virtual environment's python, or a script that sets
PYTHONPATH to another checkout): how the suite was shown to find issue 12's items in the code
before they were fixed. Failing inputs are kept under `--keep` (default: /tmp/cutlint-fuzz),
one directory each with the command line in `ARGS` and what the oracles said in `FAILURES`.

Prints one line per failure as it happens, and at the end:

    inputs tried 1234 (check 600, config 300, log 334); tracebacks 0; hangs 0; good files changed 0; bad output 0
"""

from __future__ import annotations

import argparse
import collections
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile
import oracles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--inputs", type=int, default=0, help="stop after this many (0: by time)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--seconds", type=float, default=90.0, help="a run longer than this is a hang")
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "cutlint-fuzz")
    args = ap.parse_args()

    def runner(argv: list[str], cwd: Path, seconds: float) -> hostile.Outcome:
        return hostile.run_subprocess(argv, cwd, seconds, args.python)

    base = Path(tempfile.mkdtemp(prefix="cutlint-fuzz-"))
    counts: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    changes: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + args.minutes * 60
    n = 0
    try:
        while (args.inputs and n < args.inputs) or (
            not args.inputs and time.monotonic() < deadline
        ):
            rng = random.Random(args.seed * 1_000_003 + n)
            root = base / f"ws{n}"
            root.mkdir()
            ws = hostile.workspace(rng, root)
            kinds[ws.kind] += 1
            out = runner(ws.args, root, args.seconds)
            failures = hostile.judge(ws, out, hostile.alone_run(ws, runner, args.seconds))
            for f in failures:
                counts[f.split(":")[0]] += 1
            if failures:
                kept = args.keep / f"seed{args.seed}-input{n}"
                shutil.rmtree(kept, ignore_errors=True)
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(root), kept)
                (kept / "ARGS").write_text(" ".join(ws.args) + "\n")
                (kept / "FAILURES").write_text("\n".join(failures) + "\n" + out.stderr[-4000:])
                print(f"input {n} ({ws.kind}): {failures[0][:200]}  [kept in {kept}]", flush=True)
            else:
                hostile.clean(root)
            # The two oracles of tests/fuzz/oracles.py, on one changed real source each input.
            what, failure = oracles.one(rng, base)
            changes[what.split(":")[0]] += 1
            if failure is not None:
                counts[failure.split(":")[0]] += 1
                print(f"input {n} (oracles): {failure[:300]}", flush=True)
            n += 1
            if n % 25 == 0:
                print(f"... {n} inputs, {dict(counts)}", file=sys.stderr, flush=True)
    finally:
        hostile.clean(base)
    detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    print(
        f"inputs tried {n} ({detail}); tracebacks {counts['traceback']}; hangs {counts['hang']}; "
        f"good files changed {counts['good file changed']}; bad output {counts['bad output']}; "
        f"changed real sources {changes['bad'] + changes['equivalent']} (bad {changes['bad']}, "
        f"equivalent {changes['equivalent']}; drawn unchanged {changes['unchanged']}); unnamed bad inputs {counts['unnamed bad input']}; "
        f"broken equivalences {counts['broken equivalence']}"
    )
    return 1 if sum(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
