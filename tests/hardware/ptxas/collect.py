"""Read the ptxas batch's logs back (run.sh's $OUT) and record tests/data/ptxas_sm120.json.

    python tests/hardware/ptxas/collect.py DIR     # DIR holds ptxas_logs.tar.gz and versions.txt

Per sampled file: ptxas's report parsed by cutlint.binaries.ptxas (registers, stack frame, spill
stores and loads per entry function), cutlint's check of the same file (regenerated here with
`cutlint generate flashinfer 0.7.4 --sm 120 --jit-gemm`) for the model's register cap of each
instantiation, and the comparison: every kernel's registers within the cap, spills listed.

Kernels are matched to instantiations only where that is exact: where the macro pastes its
arguments into the name of a type the kernel is instantiated with (PASTED: FlashInfer's SM120
dense FP4 and MXFP8 macros), the mangled name holds that identifier, length-prefixed; and a file
with one instantiation owns all its `device_kernel` entries. Otherwise a kernel is "not
matched", and the cap it is compared with is the file's, when all its instantiations share one
cap (so the comparison holds whichever instantiation it is); else it is not compared.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DATA = REPO / "tests" / "data" / "ptxas_sm120.json"
sys.path.insert(0, str(HERE))

from samples import FLASHINFER_VERSION, GENERATE_ARGS, SAMPLES, TARGET  # noqa: E402

from cutlint.binaries import ptxas  # noqa: E402

PASTED = {
    # flashinfer/data/include/flashinfer/gemm/fp4_gemm_template_sm120.h (0.7.4):
    # struct DeviceGemmFp4GemmSm120_##T##_##CTA_M_##_##CTA_N_##_##CTA_K_##_##CGA_M_##_##CGA_N_##_##
    # CGA_K_##XSM_##SWAP_AB_
    "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": "DeviceGemmFp4GemmSm120_{0}_{1}_{2}_{3}_{4}_{5}_{6}{7}{8}",
    # mxfp8_gemm_template_sm120.h: struct DeviceGemmMxfp8GemmSm120_##T##_##CTA_M_##_##CTA_N_##_##
    # CTA_K_##SWAP_AB_
    "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120": "DeviceGemmMxfp8GemmSm120_{0}_{1}_{2}_{3}{4}",
}
_EXIT = re.compile(r"^== exit (\d+) after (\d+) s", re.MULTILINE)
_NVCC = re.compile(r"release (\d+\.\d+), (V[\d.]+)")


def read_logs(src: Path) -> tuple[dict[str, str], str]:
    """{sample name: its log} and versions.txt's text."""
    logs: dict[str, str] = {}
    with tarfile.open(src / "ptxas_logs.tar.gz") as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.startswith("log/") and m.name.endswith(".log"):
                f = tar.extractfile(m)
                assert f is not None
                logs[Path(m.name).stem] = io.TextIOWrapper(f, errors="replace").read()
    versions = (src / "versions.txt").read_text(errors="replace")
    return logs, versions


def ptxas_lines(log: str) -> str:
    """The lines ptxas.parse reads (what the recorded JSON keeps, for the replay)."""
    keep = ("ptxas info", "bytes stack frame")
    return "\n".join(line for line in log.splitlines() if any(k in line for k in keep))


def model_caps(base: Path) -> dict[str, list[dict[str, Any]]]:
    """cutlint's check of each sampled file: per instantiation its line, family and cap."""
    files = [str(base / rel) for rel in SAMPLES.values()]
    run = subprocess.run(
        [sys.executable, "-m", "cutlint", "check", "--arch", "sm_120", "--format", "json", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    data = json.loads(run.stdout)
    by_path: dict[str, list[dict[str, Any]]] = {}
    for inst in data["instantiations"]:
        use = inst.get("register_use") or {}
        by_path.setdefault(inst["path"], []).append(
            {
                "line": inst["line"],
                "family": inst["family"],
                "macro": inst["name"],
                "args": inst["args"],
                "cap": use.get("cap"),
                "cap_derivation": use.get("cap_derivation"),
            }
        )
    return {name: by_path.get(str(base / rel), []) for name, rel in SAMPLES.items()}


def matched_line(kernel: str, insts: list[dict[str, Any]]) -> int | str:
    """The line of the instantiation a kernel is exactly known to belong to, or "not matched"."""
    if "device_kernel" not in kernel:
        return "not matched"
    if len(insts) == 1:
        return int(insts[0]["line"])
    hits = []
    for i in insts:
        pattern = PASTED.get(i.get("macro", ""))
        if pattern is not None:
            ident = pattern.format(*(a.strip() for a in i["args"]))
            if f"{len(ident)}{ident}" in kernel:
                hits.append(int(i["line"]))
    return hits[0] if len(hits) == 1 else "not matched"


def judge(log: str, insts: list[dict[str, Any]]) -> dict[str, Any]:
    exit_m = _EXIT.search(log)
    kernels = ptxas.parse(log)
    caps = {i["cap"] for i in insts}
    cap = next(iter(caps)) if len(caps) == 1 else None
    rows = []
    for k in kernels:
        cutlass = "device_kernel" in k.name
        rows.append(
            {
                "name": k.name,
                "registers": k.registers,
                "stack_frame": k.stack_frame,
                "spill_stores": k.spill_stores,
                "spill_loads": k.spill_loads,
                "instantiation_line": matched_line(k.name, insts),
                "cap": cap if cutlass else None,
                "within_cap": (k.registers <= cap) if cutlass and cap is not None else None,
            }
        )
    return {
        "exit": int(exit_m[1]) if exit_m else None,
        "seconds": int(exit_m[2]) if exit_m else None,
        "families": sorted({i["family"] for i in insts if i["family"]}),
        "instantiations": insts,
        "kernels": rows,
        "spills": [r["name"] for r in rows if r["spill_stores"] or r["spill_loads"]],
        "ptxas": ptxas_lines(log),
        "error_tail": None if exit_m and exit_m[1] == "0" else log.strip().splitlines()[-6:],
    }


def collect(src: Path, out: Path = DATA) -> dict[str, Any]:
    logs, versions = read_logs(src)
    with tempfile.TemporaryDirectory(prefix="ptxas-collect-") as tmp:
        subprocess.run(
            [sys.executable, *GENERATE_ARGS, tmp],
            check=True,
            capture_output=True,
        )
        caps = model_caps(Path(tmp) / "flashinfer" / FLASHINFER_VERSION)
    nvcc = _NVCC.search(versions)
    result: dict[str, Any] = {
        "target": TARGET,
        "flashinfer": FLASHINFER_VERSION,
        "nvcc": f"{nvcc[1]} {nvcc[2]}" if nvcc else None,
        "samples": {
            name: {"file": SAMPLES[name], **judge(logs.get(name, ""), caps[name])}
            for name in SAMPLES
        },
    }
    out.write_text(json.dumps(result, indent=1) + "\n")
    for name, s in result["samples"].items():
        regs = [k["registers"] for k in s["kernels"] if k["cap"] is not None]
        print(
            f"{name}: exit {s['exit']} in {s['seconds']} s, {len(s['kernels'])} kernels, "
            f"registers {sorted(set(regs))} (cap {s['kernels'][0]['cap'] if s['kernels'] else '-'}), "
            f"{len(s['spills'])} with spills"
        )
    return result


if __name__ == "__main__":
    collect(Path(sys.argv[1]))
