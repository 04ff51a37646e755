"""Compiler truth for the SM100 / SM103 fused-MoE families: nvcc's numbers for every
`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm100|Sm103, ...)` call that FlashInfer's own generator
writes (`generate_gemm_operations(out, "100;100-real")` and `"103;103-real"`).

The compile is cutlint's nvcc probe (cutlint.verify.nvcc_probe.run_probe: the real launcher,
patched after its type definitions, FlashInfer's JIT flags of the arch's module). A host-only
probe of one generated file costs ~40 s of CPU of which ~0.7 s is per instantiation: the rest is
parsing the headers twice (host and device pass). So the calls are probed in batches: a batch is a
translation unit holding the bodies of several generated files of one release and arch, copied
verbatim (each macro call byte for byte, under its own `#if`), and every row is mapped back to its
file and line. A batch that does not compile is split in two until the failing calls are alone;
their compiler error is recorded (class C: a static_assert stops the build).

The Sm100 files of the SM103 module (`103a/.../gemm_grouped/100`) are byte-identical to the SM100
module's and are not probed twice (deduplicated by file content).

Run from the worktree root, one compile at a time, niced:
    nice -n 10 .venv/bin/python tests/tools/make_nvcc_sm100_truth.py --versions 0.6.3 0.7.4
Progress is appended to `<workdir>/rows.jsonl`, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cutlint.producers.flashinfer.wheel import download_wheel, generate_cache
from cutlint.verify.nvcc_probe import ProbeError, run_probe
from cutlint.verify.probe_output import moe_macro_calls as find_macro_calls

ROOT = Path(__file__).parents[2]
# FlashInfer 0.5.3 on writes its calls into cutlass_kernels_oss, 0.5.2 into cutlass_kernels
NS_OPEN = re.compile(r"namespace\s+(cutlass_kernels(?:_oss)?)\s*\{\s*\n")
NS_CLOSE = re.compile(r"\}\s*//\s*namespace\s+cutlass_kernels(?:_oss)?\b")


@dataclass(frozen=True)
class Call:
    version: str
    file: str  # file name
    line: int  # line of the macro name in the generated file
    args: tuple[str, ...]


@dataclass(frozen=True)
class Body:
    """The namespace body of one generated file, and the calls it holds."""

    version: str
    path: Path
    text: str
    first_line: int  # line of the body's first line in the generated file
    calls: tuple[Call, ...]
    namespace: str = "cutlass_kernels_oss"  # the generated file's own innermost namespace


def bodies(version: str, root: Path, base: Path) -> list[Body]:
    out: list[Body] = []
    seen: set[str] = set()
    for sm, sub in ((100, "100"), (103, "103")):
        gen = generate_cache(root, version, base, sm).parent
        for path in sorted((gen / sub).glob("*.generated.cu")):
            text = path.read_text()
            digest = hashlib.sha256(text.encode()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            m_open, m_close = NS_OPEN.search(text), NS_CLOSE.search(text)
            assert m_open and m_close, path
            first_line = text.count("\n", 0, m_open.end()) + 1
            body = text[m_open.end() : m_close.start()]
            calls = tuple(Call(version, path.name, c.line, c.args) for c in find_macro_calls(text))
            out.append(Body(version, path, body, first_line, calls, m_open.group(1)))
    return out


def batch_source(batch: list[Body], launcher_include: str) -> tuple[str, dict[int, Call]]:
    """One translation unit of several bodies; batch line of each macro name -> its call."""
    ns = batch[0].namespace
    head = (
        f'#include "{launcher_include}"\n'
        f"namespace tensorrt_llm\n{{\nnamespace kernels\n{{\nnamespace {ns}\n{{\n"
    )
    parts = [head]
    line = head.count("\n") + 1
    where: dict[int, Call] = {}
    for b in batch:
        for c in b.calls:
            where[line + c.line - b.first_line] = c
        parts.append(b.text if b.text.endswith("\n") else b.text + "\n")
        line += parts[-1].count("\n")
    parts.append(f"}} // namespace {ns}\n}} // namespace kernels\n}} // namespace tensorrt_llm\n")
    return "".join(parts), where


LAUNCHER_INCLUDE = (
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
)


def first_errors(text: str, n: int = 6) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines() if re.search(r"\berror\b", ln)]
    return lines[:n]


def probe_batch(
    batch: list[Body], root: Path, work: Path, emit: Emit, split_calls: bool = True
) -> None:
    """Probe `batch`; on a compile error split it (files, then single calls) and record why."""
    src, where = batch_source(batch, LAUNCHER_INCLUDE)
    key = hashlib.sha256(src.encode()).hexdigest()[:10]
    cu = work / "batches" / f"b-{batch[0].version}-{key}.cu"
    cu.parent.mkdir(parents=True, exist_ok=True)
    cu.write_text(src)
    t0 = time.monotonic()
    try:
        run = run_probe(cu, root, "nvcc", workdir=work / "build", keep_build=False)
    except ProbeError as e:
        n = sum(len(b.calls) for b in batch)
        print(f"  batch of {n} calls failed after {time.monotonic() - t0:.0f} s", flush=True)
        for line in first_errors(e.stderr_tail or str(e), 3):
            print(f"    {line[:300]}", flush=True)
        if e.rows or "compiling" not in str(e).splitlines()[0]:
            # compiled, but a launcher call reported an error (or the probe failed otherwise)
            emit.rows(e.rows, where, batch, time.monotonic() - t0)
            done = {where[r.line] for r in e.rows}
            for c in (c for b in batch for c in b.calls if c not in done):
                emit.failure(c, "probe", first_errors(str(e)) or [str(e).splitlines()[0]])
            return
        if len(batch) > 1:
            half = len(batch) // 2
            probe_batch(batch[:half], root, work, emit)
            probe_batch(batch[half:], root, work, emit)
            return
        body = batch[0]
        if len(body.calls) > 1 and split_calls:
            for c in body.calls:
                probe_batch([single(body, c)], root, work, emit, split_calls=False)
            return
        for c in body.calls:
            emit.failure(c, "compile", first_errors(e.stderr_tail) or [str(e).splitlines()[0]])
        return
    finally:
        cu.unlink(missing_ok=True)
    emit.rows(run.rows, where, batch, run.seconds)


def single(body: Body, call: Call) -> Body:
    """The body with only `call` kept (its `#if` block), other calls blanked line for line."""
    lines = body.text.split("\n")
    keep_from = call.line - body.first_line
    out = []
    # the call's block: from its #if line back to its #endif forward
    start = keep_from
    while start > 0 and not lines[start].lstrip().startswith("#if"):
        start -= 1
    end = keep_from
    while end < len(lines) - 1 and not lines[end].lstrip().startswith("#endif"):
        end += 1
    for i, ln in enumerate(lines):
        out.append(ln if start <= i <= end else "")
    return Body(body.version, body.path, "\n".join(out), body.first_line, (call,), body.namespace)


class Emit:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: set[tuple[str, str, int]] = set()
        if path.is_file():
            for line in path.read_text().splitlines():
                r = json.loads(line)
                self.done.add((r["version"], r["file"], r["line"]))

    def _write(self, record: dict[str, object]) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")

    def rows(self, rows: object, where: dict[int, Call], batch: list[Body], seconds: float) -> None:
        n = 0
        for r in rows:  # type: ignore[attr-defined]
            c = where[r.line]
            assert tuple(r.args) == c.args, (r.args, c.args)
            self._write(
                {
                    "version": c.version,
                    "file": c.file,
                    "line": c.line,
                    "args": list(c.args),
                    "status": "ok",
                    "stages": r.stages,
                    "mainloop_smem": r.mainloop_smem,
                    "epilogue_smem": r.epilogue_smem,
                    "kernel_smem": r.kernel_smem,
                    "kernel_align": r.kernel_align,
                    "max_threads_per_block": r.max_threads_per_block,
                    "members": r.members,
                    "batch_seconds": round(seconds, 1),
                }
            )
            n += 1
        print(f"  {n} rows in {seconds:.0f} s", flush=True)

    def failure(self, c: Call, stage: str, errors: list[str]) -> None:
        self._write(
            {
                "version": c.version,
                "file": c.file,
                "line": c.line,
                "args": list(c.args),
                "status": f"{stage} error",
                "errors": errors,
            }
        )
        print(f"  {c.file}:{c.line} {stage} error: {errors[:1]}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", nargs="+", default=["0.6.3", "0.7.4"])
    ap.add_argument("--batch", type=int, default=48, help="instantiations per translation unit")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/cutlint-sm100-truth"))
    ap.add_argument("--limit", type=int, default=0, help="stop after this many batches (0: all)")
    ap.add_argument("--only", default="", help="regex on file names")
    ap.add_argument(
        "--write-json",
        type=Path,
        default=None,
        help="only write the committed file (tests/data/nvcc_sm100_truth.json) from rows.jsonl",
    )
    args = ap.parse_args()
    if args.write_json is not None:
        nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=False)
        release = re.search(r"release [\d.]+, V([\d.]+)", nvcc.stdout)
        write_json(
            args.workdir, args.write_json, args.versions, f"nvcc {release[1] if release else '?'}"
        )
        return 0
    work: Path = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    emit = Emit(work / "rows.jsonl")
    cache = Path.home() / ".cache" / "cutlint-tests"
    batches_run = 0
    for version in args.versions:
        root = download_wheel(version, cache)
        todo = [
            b
            for b in bodies(version, root, work / "gen")
            if re.search(args.only, b.path.name)
            and any((c.version, c.file, c.line) not in emit.done for c in b.calls)
        ]
        # Sm100 and Sm103 files never share a translation unit (one arch's flags per compile).
        for arch in ("Sm100", "Sm103"):
            mine = [b for b in todo if b.calls and b.calls[0].args[0] == arch]
            batch: list[Body] = []
            for b in [*mine, None]:  # type: ignore[list-item]
                if b is not None and sum(len(x.calls) for x in batch) + len(b.calls) <= args.batch:
                    batch.append(b)
                    continue
                if batch:
                    n = sum(len(x.calls) for x in batch)
                    print(f"{version} {arch}: {len(batch)} files, {n} calls", flush=True)
                    probe_batch(batch, root, work, emit)
                    batches_run += 1
                    if args.limit and batches_run >= args.limit:
                        return 0
                batch = [b] if b is not None else []
    return 0


# --- the committed file ------------------------------------------------------------------------

MEMBER_COLUMNS = (
    "kernel.pipelines.size",
    "kernel.pipelines.epi_load.size",
    "kernel.pipelines.accumulator.size",
    "kernel.clc_response.offset",
    "kernel.clc_response.size",
    "kernel.tmem_base_ptr.offset",
    "kernel.tensormaps.offset",
    "kernel.tensormaps.size",
    "kernel.tensors.offset",
    "kernel.tensors.size",
    "kernel.tensors.mainloop.offset",
    "mainloop.tensors.smem_A.size",
    "mainloop.tensors.smem_B.size",
    "mainloop.tensors.smem_SFA.size",
    "mainloop.tensors.smem_SFB.size",
    "mainloop.pipeline.size",
    "epilogue.tensors.collective.size",
    "epilogue.tensors.thread.size",
    "epilogue.EpilogueTile.M",
    "epilogue.EpilogueTile.N",
    "epilogue.StagesC",
    "epilogue.StagesD",
    "kernel.AccumulatorPipelineStageCount",
    "kernel.NumTensorMapUpdaterThreads",
    "tmem.accumulators",
    "tmem.sfa",
    "tmem.sfb",
    "tmem.allocated",
)
"""The probe's members kept in the committed file (every one the model predicts)."""

COLUMNS = (
    "version",
    "cutlass",
    "file",
    "line",
    "args",
    "stages",
    "mainloop_smem",
    "epilogue_smem",
    "kernel_smem",
    "kernel_align",
    "max_threads_per_block",
    *MEMBER_COLUMNS,
)


def cutlass_of(root: Path) -> str:
    text = (
        root / "flashinfer" / "data" / "cutlass" / "include" / "cutlass" / "version.h"
    ).read_text()
    parts = [
        re.search(rf"#define\s+CUTLASS_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")
    ]
    return ".".join(m.group(1) for m in parts if m)


def write_json(work: Path, out: Path, versions: list[str], nvcc: str) -> None:
    cache = Path.home() / ".cache" / "cutlint-tests"
    cutlass = {v: cutlass_of(download_wheel(v, cache)) for v in versions}
    records = [json.loads(line) for line in (work / "rows.jsonl").read_text().splitlines()]
    records = [r for r in records if r["version"] in versions]
    key = lambda r: (versions.index(r["version"]), r["args"][0], r["file"], r["line"])  # noqa: E731
    seen: set[tuple[str, str, int]] = set()
    rows, failures, seconds = [], [], 0.0
    for r in sorted(records, key=key):
        ident = (r["version"], r["file"], r["line"])
        if ident in seen:
            continue
        seen.add(ident)
        if r["status"] != "ok":
            failures.append(
                {k: r[k] for k in ("version", "file", "line", "args", "status", "errors")}
            )
            continue
        m = r["members"]
        rows.append(
            [
                r["version"],
                cutlass[r["version"]],
                r["file"],
                r["line"],
                ",".join(r["args"]),
                *(r[k] for k in COLUMNS[5:11]),
                *(m.get(k) for k in MEMBER_COLUMNS),
            ]
        )
    about = (
        f"Compiler truth: {nvcc}, host-only probe (cutlint.verify.nvcc_probe.run_probe, the backend "
        "of `cutlint verify`), for every INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm100|Sm103, ...) "
        "call that FlashInfer's own generator writes (generate_gemm_operations(out, '100;100-real') "
        "and '103;103-real') for flashinfer-python "
        + " and ".join(f"{v} (CUTLASS {cutlass[v]})" for v in versions)
        + ", compiled against the launcher, CUTLASS headers and JIT flags of the same wheel "
        "(tests/tools/make_nvcc_sm100_truth.py: calls batched into translation units of several "
        "generated files, each call byte for byte; the SM103 module's gemm_grouped/100 files are "
        "the SM100 module's and are probed once). One row per instantiation; `columns` names the "
        "fields; `members` columns are the probe's offsetof/sizeof and static members (null: "
        "the kernel has no such member). `failures`: calls the compiler refused, with its errors."
    )
    payload = {"about": about, "columns": list(COLUMNS), "rows": rows, "failures": failures}
    text = json.dumps(payload, indent=None, separators=(",", ":"))
    # one row per line, so that a diff shows which rows changed
    text = text.replace('"rows":[[', '"rows":[\n[').replace("],[", "],\n[")
    out.write_text(text + "\n")
    print(f"wrote {len(rows)} rows, {len(failures)} failures to {out} ({seconds:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
