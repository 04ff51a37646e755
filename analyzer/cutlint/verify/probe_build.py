"""Running nvcc and the probe: one step at a time, errors with the compiler's own words.

Also builds, once per FlashInfer tree and shared by parallel probes, the objects every probe
links: TensorRT-LLM's host helpers and the empty main() of probe_cpp/probe_main.cpp.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from cutlint.verify.probe_flags import SUPPORT_SOURCES, FlashInferTree
from cutlint.verify.probe_records import ProbeError

# Part of the cache's probe method hash (cutlint.verify.cache), like the launcher's helpers.
PROBE_MAIN_CPP = (
    resources.files("cutlint.verify")
    .joinpath("probe_cpp", "probe_main.cpp")
    .read_text(encoding="utf-8")
)


def _tail(text: str, lines: int = 40, max_errors: int = 10) -> str:
    """The compiler's error lines (EDG prints the static_assert text far above the end, under
    pages of instantiation context) followed by the last lines of stderr."""
    all_lines = text.splitlines()
    errors = [ln for ln in all_lines[:-lines] if re.search(r"\berror\b", ln)][:max_errors]
    head = [*errors, "..."] if errors else []
    return "\n".join(head + all_lines[-lines:])


def run_step(
    cmd: Sequence[str], what: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, cwd=cwd, check=False)
    except OSError as exc:
        raise ProbeError(f"{what}: cannot run {cmd[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise ProbeError(
            f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}", _tail(proc.stderr)
        )
    return proc


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialize building the shared support objects between parallel probes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def support_objects(
    tree: FlashInferTree, nvcc: str, cache: Path, system_includes: Sequence[Path]
) -> list[Path]:
    """Compile (once per FlashInfer tree) the TensorRT-LLM host helpers and the empty main()."""
    ident = "|".join([str(tree.root.resolve()), nvcc, *map(str, system_includes)])
    key = hashlib.sha256(ident.encode()).hexdigest()[:12]
    out = cache / f"support-{key}"
    objs = [out / (Path(src).stem + ".o") for src in SUPPORT_SOURCES] + [out / "probe_main.o"]
    with _locked(cache / f"support-{key}.lock"):
        if all(o.is_file() for o in objs):
            return objs
        out.mkdir(parents=True, exist_ok=True)
        main_src = out / "probe_main.cpp"
        main_src.write_text(PROBE_MAIN_CPP)
        includes = [f"-I{tree.nv_internal}", f"-I{tree.nv_internal / 'include'}"]
        for d in system_includes:
            includes += ["-isystem", str(d)]
        sources = [tree.nv_internal / s for s in SUPPORT_SOURCES] + [main_src]
        base_flags = ["-std=c++17", "-O1", "-D_GLIBCXX_USE_CXX11_ABI=1", *includes]
        for src, obj in zip(sources, objs, strict=True):
            partial = obj.with_suffix(".o.partial")  # an interrupted build leaves no .o behind
            cmd = [nvcc, *base_flags, "-c", str(src), "-o", str(partial)]
            run_step(cmd, f"compiling support file {src.name}")
            partial.replace(obj)
        return objs


def job_dir(workdir: Path, generated_cu: Path) -> Path:
    """This file's build directory: its name, and a hash of its absolute path."""
    key = hashlib.sha256(str(generated_cu.resolve()).encode()).hexdigest()[:10]
    return workdir / f"{generated_cu.name.split('.')[0]}-{key}"


__all__ = ["PROBE_MAIN_CPP", "job_dir", "run_step", "support_objects"]
