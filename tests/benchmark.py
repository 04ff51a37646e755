"""Benchmark: start-up, whole-process time and instantiations per second of `cutlint check`.

    python tests/benchmark.py [--runs 5] [--startup-runs 21] [--synthetic 10000] [--workdir DIR]

0. start-up: `cutlint --version` and `cutlint check` of one real file, whole process, as medians
   of many runs beside `python -c pass` on the same machine at the same time (a shared machine's
   load moves all three; the load average is printed with them);
1. the real FlashInfer 0.7.2.post1 SM120 cache, written by FlashInfer's own generator;
2. a synthetic cache of N instantiations: copies of those real files under new names;
3. a real cutlass_library build for 120a (CUTLASS's own generator from the nvidia-cutlass wheel:
   1,337 kernel files and 323 manifests), checked for sm_120;
4. the largest FlashInfer cache: 0.7.4 for sm_103 (B300), the generator's fused-MoE files and
   the JIT's SM100/SM103 GEMM modules (`cutlint generate flashinfer 0.7.4 --sm 103 --jit-gemm`:
   2,623 instantiations in 367 files).
5. `cutlint tu` on a real hand-written translation unit: vLLM 0.34.0's
   `c3x/scaled_mm_sm120_fp8.cu` with its CMake flags for 12.0a, against FlashInfer 0.7.4's CUTLASS
   4.5.0 headers (`--tu-only` runs this case alone): a first read (`--no-cache`: libclang parses
   the TU twice, the second time with the probe, its preamble precompiled) and a second read
   answered from the cache; wall time and the process's CPU time (user + sys), since the target
   is per core.

Processes run with bytecode caching on (PYTHONDONTWRITEBYTECODE removed), as an installed package
runs: `pip install` compiles it.

Each case runs `cutlint check DIR --format json` as a fresh process (Python start-up and imports
included) and reports the best and median wall time over the runs, instantiations per second,
and the peak resident memory of the process tree (GNU time's maximum RSS of the main process and
of the largest parser worker). This is a script, not a timed test: timings belong in a report,
not in a pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cutlint.producers.cutlass_library import generate as cutlass_library
from cutlint.producers.flashinfer.jit_modules import render_modules
from cutlint.producers.flashinfer.wheel import download_wheel, generate_cache

VERSION = "0.7.2.post1"
LARGEST = ("0.7.4", 103)
"""The release and arch of the largest cache FlashInfer writes (issue: the datacenter caches)."""


def count_instantiations(out: str) -> int:
    n: int = json.loads(out)["summary"]["instantiations"]
    return n


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def command(target: Path, fmt: str, extra: tuple[str, ...] = ()) -> list[str]:
    return [
        sys.executable,
        "-m",
        "cutlint",
        "check",
        str(target),
        "--format",
        fmt,
        "--fail-on",
        "never",
        "--no-config",
        *extra,
    ]


def run_once(target: Path, fmt: str, extra: tuple[str, ...] = ()) -> float:
    """Wall seconds of one whole `cutlint check` process."""
    start = time.perf_counter()
    done = subprocess.run(command(target, fmt, extra), capture_output=True, text=True, env=ENV)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"cutlint failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds


def count(target: Path, extra: tuple[str, ...] = ()) -> int:
    done = subprocess.run(command(target, "json", extra), capture_output=True, text=True, env=ENV)
    return count_instantiations(done.stdout)


def gnu_time_peak(target: Path, fmt: str, extra: tuple[str, ...] = ()) -> int | None:
    """Max RSS (KiB) of the largest process of the run via GNU time, when it is there."""
    if not Path("/usr/bin/time").exists():
        return None
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command(target, fmt, extra)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    return int(done.stderr.strip().splitlines()[-1])


def synthetic(real: Path, dest: Path, wanted: int) -> Path:
    files = sorted(real.glob("*.generated.cu"))
    per_file = {f: f.read_text().count("INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(") for f in files}
    out = dest / "gemm_grouped" / "120"
    out.mkdir(parents=True, exist_ok=True)
    total, i = 0, 0
    while total < wanted:
        src = files[i % len(files)]
        shutil.copyfile(src, out / f"copy{i:05d}_{src.name}")
        total += per_file[src]
        i += 1
    return out


def report(label: str, target: Path, runs: int, extra: tuple[str, ...] = ()) -> None:
    n = count(target, extra)
    files = len(list(target.rglob("*.cu")))
    print(f"{label}: {n:,} instantiations in {files:,} files")
    for fmt in ("text", "json"):
        times = [run_once(target, fmt, extra) for _ in range(runs)]
        peak = gnu_time_peak(target, fmt, extra)
        best, median = min(times), statistics.median(times)
        memory = f"; peak RSS {peak / 1024:.0f} MiB" if peak else ""
        print(
            f"  --format {fmt}: whole process best {best:.3f} s, median {median:.3f} s over {runs} "
            f"runs; {n / best:,.0f} instantiations/s{memory}"
        )


def startup(one_file: Path, runs: int) -> None:
    """The start-up cost on its own line: the three commands interleaved, run by run, so that
    the machine's load falls on them alike."""
    cutlint = [sys.executable, "-m", "cutlint"]
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "cutlint --version": [*cutlint, "--version"],
        "one-file check": [*cutlint, "check", str(one_file), "--no-config", "--fail-on", "never"],
    }
    for argv in cases.values():  # warm-up: bytecode written, files in the page cache
        subprocess.run(argv, capture_output=True, env=ENV, check=False)
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, env=ENV, check=False)
            samples[name].append(1000 * (time.perf_counter() - start))
    medians = {name: statistics.median(v) for name, v in samples.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"start-up: cutlint --version {medians['cutlint --version']:.0f} ms, one-file check "
        f"{medians['one-file check']:.0f} ms ({one_file.name}); python -c pass "
        f"{medians['python -c pass']:.0f} ms; whole-process medians of {runs} runs, "
        f"load average {load:.1f}"
    )


def tu_case(runs: int) -> None:
    """Case 5: one TU read cold (parsed) and warm (from the cache), as fresh processes."""
    import resource

    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist

    vllm = download_sdist("0.34.0")
    include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    tu = vllm / "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8.cu"
    argv = [sys.executable, "-m", "cutlint", "tu", str(tu), "--format", "json", "--"]
    argv += cmake_flags(vllm, include, "12.0a")
    for label, extra in (("first read (--no-cache)", ["--no-cache"]), ("from the cache", [])):
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            cmd = argv[:4] + extra + argv[4:]
            subprocess.run(cmd, check=False, capture_output=True)
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(
            f"cutlint tu vLLM scaled_mm_sm120_fp8.cu, {label}: wall best {min(walls):.2f} s, "
            f"median {statistics.median(walls):.2f} s; CPU median {statistics.median(cpus):.2f} s "
            f"(load {os.getloadavg()[0]:.1f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--startup-runs", type=int, default=21)
    ap.add_argument("--synthetic", type=int, default=10000)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--tu-only", action="store_true", help="run case 5 (cutlint tu) alone")
    args = ap.parse_args()
    if args.tu_only:
        tu_case(max(1, args.runs // 2))
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="cutlint-bench-"))
    root = download_wheel(VERSION)  # cutlint's wheel cache, shared with the tests
    real = generate_cache(root, VERSION, work / "jit")

    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    startup(sorted(real.glob("*M256*.generated.cu"))[0], args.startup_runs)
    report(f"real FlashInfer {VERSION} SM120 cache", real, args.runs)
    big = synthetic(real, work / "synthetic", args.synthetic)
    report(f"synthetic cache ({args.synthetic:,} wanted)", big, max(1, args.runs // 2))
    library = cutlass_library.generate(cutlass_library.download(), work / "cutlass-library", "120a")
    # the build's target and headers: its files say neither (docs/guide.md)
    target = ("--arch", "sm_120", "--cutlass-version", "4.2.0")
    report("cutlass_library 120a build, --arch sm_120", library, max(1, args.runs // 2), target)
    version, sm = LARGEST
    root = download_wheel(version)
    generate_cache(root, version, work / "largest", sm)
    render_modules(root, version, work / "largest", sm)
    largest = work / "largest" / "flashinfer" / version / f"{sm}a" / "generated"
    report(f"largest cache: FlashInfer {version} sm_{sm}", largest, max(1, args.runs // 2))
    tu_case(max(1, args.runs // 2))


if __name__ == "__main__":
    main()
