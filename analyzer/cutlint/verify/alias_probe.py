"""Ask nvcc for the numbers of kernels defined by `using` chains (cutlass_library's kernel files,
hand-written CollectiveBuilder code): `sizeof(Kernel::SharedStorage)` and its alignment, the
mainloop's and the epilogue's storage, the stage count and the threads per block.

A kernel file is compiled as the generator wrote it, up to its `namespace cutlass { namespace
library {` part (the `initialize_<kernel>(Manifest&)` that registers it; it launches nothing and
would need the library's objects to link), followed by the probe's C++ (the family layer's, found through the registry:
`registry.probe_spec("cutlass-alias")`), which prints
each kernel's numbers from a `main()`. No kernel is launched, so nvcc generates no GEMM device code.
Several files go into one translation unit (their kernel names are unique); a batch that does not
compile is split until the failing files are alone, and their compiler error is kept: a
`static_assert` in a builder is a kernel that does not compile (failure class C).

The headers are CUTLASS's (`include`), the library's (`tools/library/include`, `.../src`) and its
utilities (`tools/util/include`), as the nvidia-cutlass wheel carries them under
`cutlass_library/source`; cuBLAS and cuRAND headers, which only the library's reference code
names, are the real ones when nvcc finds them, else cutlint's shims (cutlint.verify.cublas,
cutlint.verify.curand).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.families.registry import probe_spec
from cutlint.parse.extract import parse_source
from cutlint.records import FormKind, Instantiation
from cutlint.verify import cublas, curand

PROBE = "cutlass-alias"
_LIBRARY_PART = re.compile(r"namespace\s+cutlass\s*\{\s*namespace\s+library\s*\{")


@dataclass(frozen=True)
class Kernel:
    path: Path
    name: str
    """The kernel's type: the alias the instantiation defines."""
    line: int


@dataclass(frozen=True)
class Failure:
    path: Path
    error: str
    """The compiler's error lines."""


def kernels_in(path: Path, found: Sequence[Instantiation] | None = None) -> list[Kernel]:
    """The file's `using`-chain kernels: `found` (check's records, as verify hands them), else
    by cutlint's own parser (the truth tools)."""
    insts = parse_source(str(path), path.read_bytes()).instantiations if found is None else found
    return [
        Kernel(path, i.chain[0].name, i.span.line)
        for i in insts
        if i.form is FormKind.TYPE_ALIAS and i.chain
    ]


def include_flags(source: Path, shims: Path) -> list[str]:
    """`source`: the wheel's `cutlass_library/source` (or a CUTLASS checkout's root)."""
    dirs = ["include", "tools/library/include", "tools/library/src", "tools/util/include"]
    return [*(f"-I{source / d}" for d in dirs), "-isystem", str(shims)]


def probe(
    files: Sequence[Path],
    source: Path,
    workdir: Path,
    arch: str = "120a",
    nvcc: str = "nvcc",
    batch: int = 16,
    progress: Callable[[str], None] | None = None,
    found: Mapping[str, Sequence[Instantiation]] | None = None,
) -> tuple[list[dict[str, object]], list[Failure]]:
    """Rows (one JSON object per kernel, with `file` and `line` of its definition) and the files
    that do not compile. `arch`: what `-gencode` targets (`120a`, `90a`, `100a`). `found`: check's
    instantiations by the file's path as given (kernels_in)."""
    workdir.mkdir(parents=True, exist_ok=True)
    shims = workdir / "shims"
    if curand.find_real_header(nvcc, []) is None:
        curand.write_shim(shims)
    if cublas.find_real_headers(nvcc, []) is None:
        cublas.write_shim(shims)
    spec = probe_spec(PROBE)
    (workdir / spec.PROBE_HPP).write_text(spec.PROBE_CPP)
    flags = [
        "-std=c++17",
        "-O0",
        f"-gencode=arch=compute_{arch},code=sm_{arch}",
        *include_flags(source, shims),
    ]
    rows: list[dict[str, object]] = []
    failures: list[Failure] = []
    todo = [list(files[i : i + batch]) for i in range(0, len(files), batch)]
    while todo:
        group = todo.pop(0)
        say = progress or (lambda _: None)
        say(f"compiling {len(group)} file(s) ({len(rows)} rows so far)")
        got = _compile_and_run(group, workdir, flags, nvcc, found)
        if isinstance(got, list):
            rows += got
        elif len(group) == 1:
            failures.append(Failure(group[0], got))
        else:
            half = len(group) // 2
            todo[:0] = [group[:half], group[half:]]
    return rows, failures


def _compile_and_run(
    group: Sequence[Path],
    workdir: Path,
    flags: Sequence[str],
    nvcc: str,
    found: Mapping[str, Sequence[Instantiation]] | None = None,
) -> list[dict[str, object]] | str:
    lines: list[str] = []
    calls: list[str] = []
    for i, path in enumerate(group):
        text = path.read_text()
        cut = _LIBRARY_PART.search(text)
        part = workdir / f"k{i}.cu"
        part.write_text(text[: cut.start()] if cut else text)
        lines.append(f'#include "{part.name}"')
        for k in kernels_in(path, None if found is None else found.get(str(path), ())):
            calls.append(f'  cutlint_probe::print<{k.name}>("{k.name}", "{path}", {k.line});')
    source = workdir / "probe.cu"
    source.write_text(
        "\n".join(
            [
                *lines,
                f'#include "{probe_spec(PROBE).PROBE_HPP}"',
                "int main() {",
                *calls,
                "  return 0;",
                "}",
            ]
        )
        + "\n"
    )
    exe = workdir / "probe"
    done = subprocess.run(
        [nvcc, *flags, str(source), "-o", str(exe)], capture_output=True, text=True, cwd=workdir
    )
    if done.returncode != 0:
        errors = [ln for ln in done.stderr.splitlines() if re.search(r"\berror\b", ln)]
        return "\n".join(errors[:10]) or done.stderr[-2000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
