"""Append the compiler's numbers from `cutlint verify --format json` outputs to the committed
truth files of the families they belong to, in each file's own row format.

`cutlint verify` compiles the real generated file against the release's own launcher or header
(the same probes as the families' truth tools), and its JSON carries the compiler's numbers
(`stages`, `smem_bytes`, ..., `members`) beside the model's. This keeps a release's sample rows
(one or a few generated files verified one at a time, as on a shared machine) in the files the
families' truth tests read, without a second compile:

    nice .venv/bin/cutlint verify FILE --jobs 1 --format json > v.json
    .venv/bin/python tests/tools/truth_from_verify.py v.json [...]

Rows already present (same release, file, line and kernel) are left alone. Only the compiler's
numbers are written, never the model's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
SM100 = DATA / "nvcc_sm100_truth.json"
SM90_MIXED_MOE = DATA / "nvcc_sm90_mixed_moe_truth.json"
SM100_JIT = DATA / "nvcc_sm100_jit_gemm_truth.json"
MIXED_LAUNCHER = (
    "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/"
    "moe_gemm_tma_ws_mixed_input_launcher.inl"
)


def cutlass_of(headers: Path) -> str:
    text = (headers / "flashinfer/data/cutlass/include/cutlass/version.h").read_text()
    parts = [
        re.search(rf"#define\s+CUTLASS_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")
    ]
    return ".".join(m.group(1) for m in parts if m)


def _write_rows_per_line(path: Path, payload: dict[str, Any]) -> None:
    """The sm100 file's layout: one row per line, so that a diff shows which rows changed."""
    text = json.dumps(payload, indent=None, separators=(",", ":"))
    text = text.replace('"rows":[[', '"rows":[\n[').replace("],[", "],\n[")
    path.write_text(text + "\n")


def add_sm100(insts: list[dict[str, Any]], files: dict[str, dict[str, Any]]) -> int:
    data = json.loads(SM100.read_text())
    cols: list[str] = data["columns"]
    have = {(r[0], r[2], r[3]) for r in data["rows"]}
    added = 0
    for i in insts:
        f = files[i["path"]]
        key = (f["flashinfer_version"], Path(i["path"]).name, i["line"])
        if key in have or i.get("stages") is None:
            continue
        m = i["members"]
        head = {
            "version": key[0],
            "cutlass": cutlass_of(Path(f["headers"])),
            "file": key[1],
            "line": key[2],
            "args": ",".join(i["args"]),
            "stages": i["stages"],
            "mainloop_smem": i["mainloop_smem_bytes"],
            "epilogue_smem": i["epilogue_smem_bytes"],
            "kernel_smem": i["smem_bytes"],
            "kernel_align": i["smem_align"],
            "max_threads_per_block": i["max_threads_per_block"],
        }
        data["rows"].append([head[c] if c in head else m.get(c) for c in cols])
        have.add(key)
        added += 1
    _write_rows_per_line(SM100, data)
    return added


def add_sm90_mixed_moe(insts: list[dict[str, Any]], files: dict[str, dict[str, Any]]) -> int:
    data = json.loads(SM90_MIXED_MOE.read_text())
    have = {(v, r["file"], r["line"]) for r in data["rows"] for v in r["versions"]}
    # the member keys the committed rows compare (the model predicts these)
    keys = {k for r in data["rows"] for k in r["members"]}
    added = 0
    for i in insts:
        f = files[i["path"]]
        version, name = f["flashinfer_version"], Path(i["path"]).name
        if (version, name, i["line"]) in have or i.get("stages") is None:
            continue
        data["rows"].append(
            {
                "versions": [version],
                "file": name,
                "line": i["line"],
                "args": i["args"],
                "stages": i["stages"],
                "mainloop_size": i["mainloop_smem_bytes"],
                "epilogue_size": i["epilogue_smem_bytes"],
                "smem_size": i["smem_bytes"],
                "max_threads_per_block": i["max_threads_per_block"],
                "members": {k: v for k, v in i["members"].items() if k in keys},
            }
        )
        headers = Path(f["headers"])
        run = data["runs"].setdefault(
            version,
            {
                "cutlass": cutlass_of(headers),
                "launcher_md5": hashlib.md5((headers / MIXED_LAUNCHER).read_bytes()).hexdigest(),
                "files": [],
                "seconds": 0.0,
                "flags": "the SM90 fused-MoE module's, as `cutlint verify` compiles it",
            },
        )
        if name not in run["files"]:
            run["files"].append(name)
            run["seconds"] = round(run["seconds"] + f["seconds"], 1)
        added += 1
    # the file's layout: `about` and `runs` indented, one row per line
    head = json.dumps({k: v for k, v in data.items() if k != "rows"}, indent=1)[:-2]
    rows = ",\n".join(f"  {json.dumps(r)}" for r in data["rows"])
    SM90_MIXED_MOE.write_text(f'{head},\n "rows": [\n{rows}\n ]\n}}\n')
    return added


def add_sm100_jit(insts: list[dict[str, Any]], files: dict[str, dict[str, Any]]) -> int:
    from cutlint.families.sm100_jit_gemm.model import family_data

    modules = {n: m["module"] for n, m in family_data()["macros"].items()}
    modules |= {n: m["module"] for n, m in family_data()["launchers"].items()}
    data = json.loads(SM100_JIT.read_text())
    have = {(r["version"], r["file"], r["line"], r["label"]) for r in data["rows"]}
    added = 0
    for i in insts:
        f = files[i["path"]]
        version, name = f["flashinfer_version"], Path(i["path"]).name
        label = i.get("kernel") or "default"
        if (version, name, i["line"], label) in have or i.get("stages") is None:
            continue
        data["rows"].append(
            {
                "version": version,
                "module": modules[i["name"]],
                "file": name,
                "line": i["line"],
                "name": i["name"],
                "args": i["args"],
                "probed_in": version,
                "label": label,
                "stages": i["stages"],
                "mainloop_smem": i["mainloop_smem_bytes"],
                "epilogue_smem": i["epilogue_smem_bytes"],
                "kernel_smem": i["smem_bytes"],
                "kernel_align": i["smem_align"],
                "max_threads_per_block": i["max_threads_per_block"],
                "members": i["members"],
            }
        )
        added += 1
    SM100_JIT.write_text(json.dumps(data, indent=1) + "\n")
    return added


ADD = {
    "sm100-tma-ws-grouped": add_sm100,
    "sm90-mixed-moe": add_sm90_mixed_moe,
    "sm100-jit-gemm": add_sm100_jit,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outputs", nargs="+", type=Path, help="`cutlint verify --format json` outputs")
    args = ap.parse_args()
    for out in args.outputs:
        report = json.loads(out.read_text())
        files = {f["path"]: f for f in report["files"] if f["compiled"]}
        by_family: dict[str, list[dict[str, Any]]] = {}
        for i in report["instantiations"]:
            if i["path"] in files and i.get("family") in ADD:
                by_family.setdefault(i["family"], []).append(i)
        for family, insts in by_family.items():
            print(f"{out.name}: {family}: {ADD[family](insts, files)} rows added")
    return 0


if __name__ == "__main__":
    sys.exit(main())
