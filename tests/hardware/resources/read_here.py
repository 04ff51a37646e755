"""The reading half of run.sh, on the GPU machine: standard library only (cutlint.binaries), so
that it runs with the machine's own python3 (no pydantic there).

    python3 read_here.py WORK BINARY... > resources.json

Writes one JSON object: the probe's answers (PROBE / LAUNCH lines), ptxas's reports, and for
every binary the kernels as cutlint's reader reads them from the binary itself and from the
cubins cuobjdump extracted, and as cuobjdump reports them; and how long the reader took."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from cutlint.binaries import ptxas
from cutlint.binaries.read import parse_resource_usage, read_paths


def _lines(path: Path, prefix: str) -> list[dict[str, object]]:
    return [
        json.loads(line.removeprefix(prefix))
        for line in path.read_text(errors="replace").splitlines()
        if line.startswith(prefix)
    ]


def _cuobjdump(path: Path) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    binary, chunk = "", list[str]()
    for line in [*path.read_text(errors="replace").splitlines(), "== "]:
        if line.startswith("== "):
            if binary:
                out[binary] = [asdict(k) for k in parse_resource_usage("\n".join(chunk))]
            binary, chunk = line[3:].strip(), []
        else:
            chunk.append(line)
    return out


def main() -> None:
    work, binaries = Path(sys.argv[1]), sys.argv[2:]
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]  # noqa: F401

        zstd = True
    except ImportError:
        zstd = False
    t0 = time.perf_counter()
    from_binaries = read_paths(binaries)
    seconds = time.perf_counter() - t0
    cubins = {b: read_paths([work / "cubins" / Path(b).name]) for b in binaries}
    print(
        json.dumps(
            {
                "zstandard": zstd,
                "read_seconds": seconds,
                "read_bytes": sum(Path(b).stat().st_size for b in binaries),
                "probe": _lines(work / "probe.out", "PROBE "),
                "launch": _lines(work / "probe.out", "LAUNCH "),
                "ptxas": [
                    asdict(k)
                    for log in ("probe.ptxas", "gemm.ptxas")
                    if (work / log).exists()
                    for k in ptxas.parse((work / log).read_text(errors="replace"))
                ],
                "binaries": {
                    b: {
                        "reader": [
                            {**asdict(k.kernel), "origin": k.origin}
                            for k in from_binaries.kernels
                            if k.path == b
                        ],
                        "reader_on_extracted_cubins": [asdict(k.kernel) for k in cubins[b].kernels],
                        "problems": [r for p, r in from_binaries.problems if p == b],
                    }
                    for b in binaries
                },
                "cuobjdump": _cuobjdump(work / "resource_usage.txt"),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
