"""Turn what run.sh wrote on the GPU machine into tests/data/h200_initialize.json.

Inputs (run.sh's $OUT): results.jsonl (one H200_RESULT object per kernel, or its build or run
failure), resource_usage.txt (``cuobjdump --dump-resource-usage`` of each binary), ptxas.txt
(``ptxas -v`` of each unit, for spill stores and loads), versions.txt, origin.json.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kernels import (
    CB_KERNELS,
    FLASHINFER_VERSION,
    GROUPED_KERNELS,
    MIXED_KERNELS,
    SM90_OPTIN,
    CbKernel,
)

GEMM_KERNEL_PREFIX = "_ZN7cutlass13device_kernel"  # cutlass::device_kernel<GemmKernel>

_FUNCTION = re.compile(r"^\s*Function (\S+):\s*$")
_USAGE = re.compile(r"(\w+(?:\[\d+\])?):(\d+)")


def resource_usage(text: str) -> dict[str, dict[str, dict[str, int]]]:
    """Per binary (the `== name` sections run.sh writes), per function: REG, STACK, SHARED,
    LOCAL, ... as cuobjdump prints them."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    binary = function = None
    for line in text.splitlines():
        if line.startswith("== "):
            binary, function = line[3:].strip(), None
            out[binary] = {}
            continue
        m = _FUNCTION.match(line)
        if m:
            function = m.group(1)
            continue
        if binary and function and "REG:" in line:
            out[binary][function] = {k: int(v) for k, v in _USAGE.findall(line)}
            function = None
    return out


_ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(\w+)'")
_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")


def ptxas_report(text: str) -> dict[str, dict[str, dict[str, int]]]:
    """Per unit (`== name` sections), per entry function: stack frame, spill stores and loads,
    registers, from ptxas -v."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    unit = entry = None
    for line in text.splitlines():
        if line.startswith("== "):
            unit, entry = line[3:].strip(), None
            out[unit] = {}
            continue
        m = _ENTRY.search(line)
        if m and unit is not None:
            entry = m.group(1)
            out[unit][entry] = {}
            continue
        if unit is None or entry is None:
            continue
        s = _SPILL.search(line)
        if s:
            stack, stores, loads = map(int, s.groups())
            out[unit][entry].update(stack_frame=stack, spill_stores=stores, spill_loads=loads)
        r = _REGS.search(line)
        if r:
            out[unit][entry]["registers"] = int(r.group(1))
    return out


def _gemm_entry(functions: dict[str, dict[str, int]]) -> tuple[str, dict[str, int]] | None:
    gemm = [(n, u) for n, u in functions.items() if n.startswith(GEMM_KERNEL_PREFIX)]
    return gemm[0] if len(gemm) == 1 else None


def _versions(text: str) -> dict[str, str]:
    v: dict[str, str] = {}
    m = re.search(r"Driver Version:\s*([\d.]+)\s+CUDA Version:\s*([\d.]+)", text)
    if m:
        v["nvidia_smi_driver"], v["nvidia_smi_cuda"] = m.groups()
    m = re.search(r"Cuda compilation tools, release ([\d.]+), (V[\d.]+)", text)
    if m:
        v["nvcc"] = f"{m.group(1)} ({m.group(2)})"
    m = re.search(r"cuobjdump.*?release ([\d.]+), (V[\d.]+)", text, re.S)
    if m:
        v["cuobjdump"] = f"{m.group(1)} ({m.group(2)})"
    m = re.search(r"== date\n(.+)", text)
    if m:
        v["date"] = m.group(1).strip()
    m = re.search(r"\|\s+\d+\s+(NVIDIA H\d+[^|]*?)\s{2,}", text)
    if m:
        v["gpu"] = m.group(1).strip()
    return v


def _cb_kernel(name: str) -> CbKernel:
    return next(k for k in CB_KERNELS if k.name == name)


def _config(name: str) -> dict[str, Any]:
    for k in CB_KERNELS:
        if k.name == name:
            return {"recipe": "CollectiveBuilder", **asdict(k)}
    for g in GROUPED_KERNELS:
        if g.name == name:
            return {"recipe": "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM", **asdict(g)}
    for x in MIXED_KERNELS:
        if x.name == name:
            return {"recipe": "sm90_generic_mixed_gemm_kernelLauncher", **asdict(x)}
    raise KeyError(name)


def build_results(src: Path) -> dict[str, Any]:
    results = [json.loads(line) for line in (src / "results.jsonl").read_text().splitlines()]
    usage = resource_usage((src / "resource_usage.txt").read_text())
    ptxas = ptxas_report((src / "ptxas.txt").read_text()) if (src / "ptxas.txt").is_file() else {}
    origin = (
        json.loads((src / "origin.json").read_text()) if (src / "origin.json").is_file() else {}
    )
    versions = _versions((src / "versions.txt").read_text())
    rows = []
    device: dict[str, Any] = {}
    for r in results:
        name = r["name"]
        config = _config(name)
        why = config.pop("why")
        config.pop("name")
        row: dict[str, Any] = {"name": name, "family": r.get("family"), "why": why}
        row["config"] = config
        if name in origin:
            row["generated_file"] = origin[name]["file"]
            row["source"] = origin[name]["source"]
        elif config["recipe"] == "CollectiveBuilder":
            row["generated_file"] = f"{name}.cu"
            row["source"] = _cb_kernel(name).source()
        if "initialize_status" not in r:
            row["outcome"] = {k: v for k, v in r.items() if k != "name"}
            rows.append(row)
            continue
        device = r["device"]
        optin = device["smem_optin_per_block"]
        row["shared_storage_size"] = r["shared_storage_size"]
        row["stages"] = r["stages"]
        row["max_threads_per_block"] = r["max_threads_per_block"]
        row["smem_optin"] = optin
        row["slack"] = optin - r["shared_storage_size"]
        row["gpu"] = {
            k: r.get(k)
            for k in (
                "can_implement",
                "initialize_status",
                "cuda_error_after_initialize",
                "launcher_error",
                "run_status",
                "launch_error",
                "sync_error",
                "relative_error",
                "problem",
                "set_attribute",
                "occupancy",
                "func_attributes_before_initialize",
                "func_attributes_after_initialize",
                "setup_error",
            )
            if k in r
        }
        row["gpu_initializes"] = r["initialize_status"] == "Success"
        entry = _gemm_entry(usage.get(name, {}))
        if entry is not None:
            fn, u = entry
            row["cubin"] = {"function": fn, **u}
            spills = next(
                (p for unit in (name,) for f, p in ptxas.get(unit, {}).items() if f == fn), None
            )
            if spills is not None:
                row["ptxas"] = spills
        rows.append(row)
    return {
        "about": (
            "GemmUniversalAdapter::initialize() of SM90 kernels on an H200, against the rule "
            "'SharedStorageSize <= the opt-in limit' (docs/hardware.md). Written by "
            "tests/hardware/h200/build.py collect from the output of run.sh."
        ),
        "flashinfer_version": FLASHINFER_VERSION,
        "cutlass_version": "4.5.0",
        "sm90_smem_capacity_bytes": SM90_OPTIN,
        "device": device,
        "toolchain": versions,
        "rows": rows,
    }


def _cell_run(row: dict[str, Any]) -> str:
    gpu = row["gpu"]
    if gpu["run_status"] != "Success":
        return f"not launched: run() = {gpu['run_status']}"
    err = gpu.get("relative_error")
    return "ran, output not checked" if err is None else f"ran, rel. err {err:.1e}"


def markdown_table(data: dict[str, Any]) -> str:
    """The results table of docs/hardware.md."""
    head = (
        "| kernel | stages | SharedStorageSize (B) | slack (B) | rule: fits? | GPU: initialize() |"
        " cudaFuncSetAttribute(size) | run() | REG | stack / spills (B) |\n"
        "|---|---:|---:|---:|---|---|---|---|---:|---|\n"
    )
    lines = []
    for row in data["rows"]:
        if "gpu" not in row:
            lines.append(f"| {row['name']} | | | | | {row.get('outcome')} | | | | |")
            continue
        gpu = row["gpu"]
        fits = row["shared_storage_size"] <= row["smem_optin"]
        cubin = row.get("cubin", {})
        ptxas = row.get("ptxas", {})
        spills = (
            f"{ptxas.get('stack_frame', '?')} / {ptxas.get('spill_stores', '?')} st, "
            f"{ptxas.get('spill_loads', '?')} ld"
            if ptxas
            else f"{cubin.get('STACK', '?')} / ?"
        )
        lines.append(
            f"| `{row['name']}` | {row['stages']} | {row['shared_storage_size']:,} |"
            f" {row['slack']:+,} | {'yes' if fits else 'no'} | {gpu['initialize_status']} |"
            f" {gpu['set_attribute']['at_shared_storage_size']} | {_cell_run(row)} |"
            f" {cubin.get('REG', '?')} | {spills} |"
        )
    return head + "\n".join(lines) + "\n"
