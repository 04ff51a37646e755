"""Keep a whole-cache `cutlint verify --format json` run as a compact record in tests/data: every
instantiation's place, status and the compiler's numbers, and how the run went.

    .venv/bin/python tests/tools/verify_record.py verify-whole.json \\
        --run run.json > tests/data/verify_fi074_100a_h200.json

`--run` is a JSON object of what the report does not say (host, date, command, workers,
translation units, the checkout that ran); the report's own summary is kept beside it.
tests/verify/test_verify_fi074_100a_h200_replay.py holds the model against the record.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

COLUMNS = (
    "file",
    "line",
    "family",
    "status",
    "stages",
    "smem_bytes",
    "mainloop_smem_bytes",
    "epilogue_smem_bytes",
    "max_threads_per_block",
    "note",
)
"""A row: the index of its file in `files`, the line, the family, the status, the compiler's
numbers (null where the probe does not measure them, or for an instantiation compiled out), and
the index of its note in `notes` (null: none)."""


def record(report: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    files = sorted({i["path"] for i in report["instantiations"]})
    notes = sorted({i["note"] for i in report["instantiations"] if i.get("note")})
    rows = []
    for i in report["instantiations"]:
        unmeasured = set(i.get("unmeasured") or ())
        numbers = [
            None if c in unmeasured else i.get(c)
            for c in (
                "stages",
                "smem_bytes",
                "mainloop_smem_bytes",
                "epilogue_smem_bytes",
                "max_threads_per_block",
            )
        ]
        note = notes.index(i["note"]) if i.get("note") else None
        rows.append(
            [files.index(i["path"]), i["line"], i.get("family"), i["status"], *numbers, note]
        )
    return {
        "about": "cutlint verify of FlashInfer 0.7.4's whole 100a cache (--sm 100 --jit-gemm) "
        "on the H200 host; written by tests/tools/verify_record.py",
        "run": run,
        "compiler": report["compiler"],
        "summary": report["summary"],
        "columns": list(COLUMNS),
        "files": files,
        "notes": notes,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--run", type=Path, required=True)
    args = parser.parse_args(argv)
    out = record(json.loads(args.report.read_text()), json.loads(args.run.read_text()))
    text = json.dumps(out, separators=(",", ":"))
    # one row a line: a diff of a new run reads row by row
    text = text.replace("],[", "],\n[")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
