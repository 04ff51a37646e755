"""Benchmark of the binary reader (not a timed test): a module directory's worth of cubins.

    .venv/bin/python tests/binaries/bench_read.py [DIR]

Without DIR it builds one: a small kernel file compiled with nvcc for sm_90a and sm_120a with
every fatbin entry compressed (zstd), its fatbin container repeated to the size of a FlashInfer
JIT module (a fused-MoE module's .so holds a few hundred CUTLASS cubins), written as 8 shared
objects' worth of .fatbin files; then times read_paths over the directory."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "analyzer"))

from cutlint.binaries.elf import read_elf  # noqa: E402
from cutlint.binaries.read import read_paths  # noqa: E402

COPIES = 100
FILES = 8


def build(dest: Path) -> None:
    src = (HERE / "conftest.py").read_text().split('SOURCE = r"""')[1].split('"""')[0]
    (dest / "k.cu").write_text(src)
    subprocess.run(
        ["nvcc", "-c", "-Xfatbin", "-compress-all", "-gencode", "arch=compute_90a,code=sm_90a",
         "-gencode", "arch=compute_120a,code=sm_120a", "-o", str(dest / "k.o"), str(dest / "k.cu")],
        check=True,
    )  # fmt: skip
    obj = read_elf((dest / "k.o").read_bytes())
    sec = obj.section(".nv_fatbin")
    assert sec is not None
    container = obj.bytes_of(sec)
    (size,) = struct.unpack_from("<Q", container, 8)
    entries = container[16 : 16 + size]
    body = entries * COPIES
    blob = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body
    for i in range(FILES):
        (dest / f"module_{i}.fatbin").write_bytes(blob)
    (dest / "k.o").unlink()


def main() -> None:
    if len(sys.argv) > 1:
        where = Path(sys.argv[1])
    else:
        if shutil.which("nvcc") is None:
            sys.exit("nvcc is not on PATH: give a directory of binaries")
        where = Path(tempfile.mkdtemp(prefix="cutlint-bench-"))
        build(where)
    size = sum(f.stat().st_size for f in where.rglob("*") if f.is_file())
    t0 = time.perf_counter()
    reading = read_paths([where])
    seconds = time.perf_counter() - t0
    print(
        f"{where}: {reading.files} files, {size / 1e6:.1f} MB, {len(reading.kernels)} kernels "
        f"read in {seconds:.2f} s; problems: {len(reading.problems)}"
    )


if __name__ == "__main__":
    main()
