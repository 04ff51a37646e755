"""Compare what the H200 answered (run.sh's resources.json) with cutlint, and keep the record.

    .venv/bin/python tests/hardware/resources/collect.py OUT_DIR   # -> tests/data/h200_resources.json

- registers: every kernel of every binary, as cutlint's reader reads it from the binary and from
  the cubins cuobjdump extracts, against cuobjdump --dump-resource-usage (REG, SHARED);
- occupancy: every probe answer of cudaOccupancyMaxActiveBlocksPerMultiprocessor against
  cutlint.model.occupancy with the same registers, threads, static and dynamic shared memory (the
  probe sets cudaFuncAttributeMaxDynamicSharedMemorySize to opt-in minus static first);
- launch: the kernel cutlint says cannot launch (CUT108) and the error the runtime gave.
Prints the mismatches; exit 1 when there is one."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "analyzer"))

from cutlint.binaries.cubin import Kernel  # noqa: E402
from cutlint.binaries.judge import judge  # noqa: E402
from cutlint.binaries.read import KernelImage  # noqa: E402
from cutlint.model.arch import arch_for  # noqa: E402
from cutlint.model.occupancy import occupancy  # noqa: E402

DEST = REPO / "tests" / "data" / "h200_resources.json"


def registers(data: dict[str, Any]) -> tuple[int, list[str]]:
    compared, bad = 0, []
    for binary, got in data["binaries"].items():
        theirs = {(k["name"], k["sm"]): k for k in data["cuobjdump"].get(binary, [])}
        for source in ("reader", "reader_on_extracted_cubins"):
            ours = {(k["name"], k["sm"]): k for k in got[source]}
            if set(ours) != set(theirs):
                bad.append(f"{binary} {source}: kernels {sorted(set(ours) ^ set(theirs))}")
            for key in set(ours) & set(theirs):
                compared += 1
                a, b = ours[key], theirs[key]
                if (a["registers"], a["shared_section"]) != (b["registers"], b["shared_section"]):
                    bad.append(
                        f"{binary} {key}: cutlint {a['registers']} / cuobjdump {b['registers']}"
                    )
    return compared, bad


def occupancies(data: dict[str, Any]) -> tuple[int, list[str]]:
    sm90, bad = arch_for("sm_90"), []
    rows = [r for r in data["probe"] if r["error"] == "cudaSuccess"]
    for r in rows:
        occ = occupancy(
            sm90, r["threads"], r["dynamic_smem"], r["num_regs"],
            static_smem=r["static_smem"], max_dynamic_smem=sm90.smem_optin - r["static_smem"],
        )  # fmt: skip
        if occ.blocks_per_sm != r["blocks"]:
            bad.append(f"{r['kernel']} {r['threads']} threads {r['dynamic_smem']} B: "
                       f"GPU {r['blocks']}, cutlint {occ.blocks_per_sm} ({occ.derivation})")  # fmt: skip
    return len(rows), bad


def launches(data: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in data["launch"]:
        kernel = Kernel(r["kernel"], 90, r["num_regs"], None, None, None, 0, 0, None, None)
        (v,) = judge([KernelImage("probe", kernel, "cubin")], arch_for("sm_90"), r["threads"])
        out.append({**r, "cutlint": [f"{d.rule} {d.name}" for d in v.diagnostics]})
    return out


def main() -> None:
    data = json.loads((Path(sys.argv[1]) / "resources.json").read_text())
    n_regs, bad_regs = registers(data)
    n_occ, bad_occ = occupancies(data)
    launched = launches(data)
    bad_launch = [
        f"{r['threads']} threads: cutlint {r['cutlint']}, GPU {r['launch']}"
        for r in launched
        if bool(r["cutlint"]) != (r["launch"] == "cudaErrorLaunchOutOfResources")
    ]
    record = {
        "about": "tests/hardware/resources/run.sh on an H200, compared by collect.py",
        "zstandard_on_the_machine": data["zstandard"],
        "reader_seconds": data["read_seconds"],
        "reader_bytes": data["read_bytes"],
        "kernels_compared": n_regs,
        # `cubin`: read from the binary by cutlint; `cuobjdump`: its fallback (an entry it could
        # not decode on the machine), which compares cuobjdump with itself
        "reader_origins": {
            o: sum(k["origin"] == o for v in data["binaries"].values() for k in v["reader"])
            for o in ("cubin", "cuobjdump")
        },
        "occupancy_answers_compared": n_occ,
        "launches": launched,
        "mismatches": bad_regs + bad_occ + bad_launch,
        "binaries": {b: v["reader"] for b, v in data["binaries"].items()},
        "probe": data["probe"],
    }
    DEST.write_text(json.dumps(record, indent=1) + "\n")
    print(f"registers: {n_regs} kernel images equal cuobjdump's, {len(bad_regs)} differ")
    print(f"occupancy: {n_occ} answers of the occupancy API, {len(bad_occ)} differ from cutlint")
    for r in launched:
        print(f"launch wide, {r['threads']} threads, {r['num_regs']} registers: {r['launch']} "
              f"({r['message']}); cutlint: {r['cutlint'] or 'launches'}")  # fmt: skip
    print(f"reader: {data['read_seconds']:.3f} s for {data['read_bytes']:,} B of binaries, "
          f"kernels by origin {record['reader_origins']}")  # fmt: skip
    for line in record["mismatches"]:
        print("MISMATCH", line)
    print(f"wrote {DEST}")
    sys.exit(1 if record["mismatches"] else 0)


if __name__ == "__main__":
    main()
