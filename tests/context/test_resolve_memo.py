"""Files of one directory built by one command share their resolution (context/resolve.py
DIRECTORY_MEMO): every answer is the one the file gets resolved on its own, wherever what sets
two files of one directory apart is their own (a compile command, a name the layout reads, the
text SGLang's JIT is asked about, the working directory a relative path is read from)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutlint.build_context import BuildContext, BuildInfo
from cutlint.context import resolve as resolving
from cutlint.context.resolve import resolve

VERSION_H = "#define CUTLASS_MAJOR {}\n#define CUTLASS_MINOR {}\n#define CUTLASS_PATCH {}\n"


def _touch(path: Path, text: str = "") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _both(paths: list[str], build: BuildInfo | None = None) -> list[BuildContext]:
    """Each path resolved with the memo, in order, and each checked against its resolution
    without it."""
    shared = [resolve(p, build) for p in paths]
    resolving.DIRECTORY_MEMO = False
    try:
        alone = [resolve(p, build) for p in paths]
    finally:
        resolving.DIRECTORY_MEMO = True
    for p, a, b in zip(paths, shared, alone, strict=True):
        assert a == b, p
    return shared


def test_one_directory_of_a_compile_database(tmp_path: Path) -> None:
    """Two kernels of one directory compiled for two targets, and one the database does not
    list: three resolutions; two kernels of one command: one record."""
    kernels = tmp_path / "build" / "generated" / "gemm" / "100" / "x"
    k1, k2, k3, k4 = (_touch(kernels / f"k{i}.cu") for i in range(1, 5))

    def entry(f: str, sm: str) -> dict[str, object]:
        gencode = f"-gencode=arch=compute_{sm},code=sm_{sm}"
        return {
            "directory": str(tmp_path / "build"),
            "file": f,
            "arguments": ["nvcc", gencode, "-c", f, "-o", f + ".o"],
        }

    db = [entry(k1, "100a"), entry(k2, "90a"), entry(k4, "100a")]
    (tmp_path / "build" / "compile_commands.json").write_text(json.dumps(db))
    c1, c2, c3, c4 = _both([k1, k2, k3, k4])
    assert c1.gpu is not None and c1.gpu.value == 100
    assert c2.gpu is not None and c2.gpu.value == 90
    assert c3.targets is None and c3.producer is not None
    assert c3.producer.value == "cutlass_library"
    assert c4 is c1


def test_a_name_the_layout_reads_and_a_name_that_says_the_arch(tmp_path: Path) -> None:
    """FlashInfer's layout reads `generated` among a path's parts, the file's own name with
    them; `_sm100_` in a name says the GPU."""
    arch = tmp_path / "flashinfer" / "0.7.4" / "120a"
    paths = [
        _touch(arch / "generated"),
        _touch(arch / "other.cu"),
        _touch(tmp_path / "flat" / "kernel_sm100_x.cu"),
        _touch(tmp_path / "flat" / "renamed.cu"),
    ]
    named, other, sm100, renamed = _both(paths)
    assert named.release is not None and named.release.value == "0.7.4"
    assert other.release is None
    assert sm100.gpu is not None and sm100.gpu.value == 100
    assert renamed.gpu is not None and renamed.gpu.value != 100


def test_an_sglang_jit_source_by_its_own_text(tmp_path: Path) -> None:
    """With SGLang installed, a file outside its JIT tree is its source when it includes the
    JIT's headers: two files of one directory, one each way, in either order."""
    site = tmp_path / "site-packages"
    info = site / "sglang-0.5.23.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")
    build = BuildInfo(site_packages=(str(site),))
    mine = tmp_path / "mine"
    jit = _touch(mine / "a.cuh", "#include <sgl_kernel/utils.h>\n")
    plain = _touch(mine / "b.cuh", "#include <cuda.h>\n")
    again = _touch(mine / "c.cuh", "#include <sgl_kernel/utils.h>\n")
    a, b, c = _both([jit, plain, again], build)
    assert a.producer is not None and a.producer.value == "sglang"
    assert b.producer is None
    assert c == a
    b2, a2 = _both([plain, jit], build)
    assert (a2, b2) == (a, b)


def test_a_relative_path_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sub/k.cu` in two checkouts: the CUTLASS found above it is each one's own."""
    for name, version in (("one", (4, 2, 0)), ("two", (4, 3, 1))):
        _touch(tmp_path / name / "include" / "cutlass" / "version.h", VERSION_H.format(*version))
        _touch(tmp_path / name / "sub" / "k.cu")
    monkeypatch.chdir(tmp_path / "one")
    (one,) = _both(["sub/k.cu"])
    monkeypatch.chdir(tmp_path / "two")
    (two,) = _both(["sub/k.cu"])
    assert one.cutlass_version is not None and one.cutlass_version.value == "4.2.0"
    assert two.cutlass_version is not None and two.cutlass_version.value == "4.3.1"
