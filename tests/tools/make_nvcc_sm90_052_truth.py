"""Write tests/data/nvcc_sm90_052_truth.json from `cutlint verify --format json` reports on FlashInfer
0.5.2's generated `gemm_grouped/90` files (the 14-parameter launcher: model.Tactic.legacy).

    cutlint generate flashinfer 0.5.2 --sm 90 --out CACHE
    cutlint verify --headers <0.5.2 wheel root> --arch sm_90 --format json FILE... > REPORT.json
    python tests/tools/make_nvcc_sm90_052_truth.py REPORT.json [REPORT.json ...]

Rows in the format of tests/data/nvcc_sm90_truth.json (one per instantiation nvcc measured), the
arguments as the 0.5.2 file writes them (14).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).parents[1] / "data" / "nvcc_sm90_052_truth.json"


def rows(report: dict[str, object]) -> list[dict[str, object]]:
    out = []
    for i in report["instantiations"]:  # type: ignore[attr-defined]
        if i["members"] is None or i["stages"] is None:
            continue
        out.append(
            {
                "version": i["flashinfer_version"],
                "file": Path(i["path"]).name,
                "line": i["line"],
                "args": i["args"],
                "stages": i["stages"],
                "mainloop_smem": i["mainloop_smem_bytes"],
                "epilogue_smem": i["epilogue_smem_bytes"],
                "kernel_smem": i["smem_bytes"],
                "kernel_align": i["smem_align"],
                "max_threads_per_block": i["max_threads_per_block"],
                "members": i["members"],
            }
        )
    return out


def main() -> None:
    reports = [json.loads(Path(p).read_text()) for p in sys.argv[1:]]
    got = sorted(
        (r for rep in reports for r in rows(rep)), key=lambda r: (str(r["file"]), int(r["line"]))
    )
    compiler = reports[0]["compiler"]
    about = (
        f"Compiler truth: {compiler['name']} {compiler['version']}, {compiler['method']} "
        "(`cutlint verify`, the nvcc probe) against the launcher and headers of the "
        "flashinfer-python 0.5.2 wheel (CUTLASS 4.2.1), on gemm_grouped/90 files that "
        "`cutlint generate flashinfer 0.5.2 --sm 90` writes (FlashInfer's own generator). "
        "Made by tests/tools/make_nvcc_sm90_052_truth.py. A representative subset of the 180 "
        f"Sm90 calls: {len(got)} rows."
    )
    OUT.write_text(json.dumps({"about": about, "rows": got}, indent=1) + "\n")


if __name__ == "__main__":
    main()
