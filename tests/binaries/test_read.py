"""The binary reader against ptxas's own report, on kernels compiled here with nvcc.

The kernels below cover what the reader takes from a cubin: registers under a launch-bounds cap
(heavy: 384 threads -> a cap of 168), a stack frame (local array), forced spills (a cap of 32),
static shared memory, and a kernel without launch bounds. Each is read from a cubin, a host
object (`-c`), a zstd-compressed object (`-Xfatbin -compress-all`) and a shared library with two
targets, and compared with `ptxas -v` of the same compile (and with cuobjdump, where present)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cutlint.binaries import read as binaries_read
from cutlint.binaries.ptxas import PtxasKernel, parse
from cutlint.binaries.read import parse_resource_usage, read_paths
from cutlint.model.arch import arch_for
from cutlint.model.occupancy import register_cap

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


def _nvcc(*args: str) -> str:
    assert NVCC is not None
    run = subprocess.run([NVCC, *args], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, kernel_source: str
) -> tuple[Path, dict[str, list[PtxasKernel]]]:
    d = tmp_path_factory.mktemp("binaries")
    src = d / "k.cu"
    src.write_text(kernel_source)
    reports = {
        "k.cubin": _nvcc(
            "-cubin", "-arch=sm_90a", "-Xptxas", "-v", "-o", str(d / "k.cubin"), str(src)
        ),
        "k.o": _nvcc("-c", "-arch=sm_90a", "-Xptxas", "-v", "-o", str(d / "k.o"), str(src)),
        "kz.o": _nvcc(
            "-c",
            "-arch=sm_90a",
            "-Xfatbin",
            "-compress-all",
            "-Xptxas",
            "-v",
            "-o",
            str(d / "kz.o"),
            str(src),
        ),
        "k.so": _nvcc(
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-Xptxas",
            "-v",
            "-gencode",
            "arch=compute_90a,code=sm_90a",
            "-gencode",
            "arch=compute_80,code=sm_80",
            "-o",
            str(d / "k.so"),
            str(src),
        ),
    }
    return d, {name: parse(text) for name, text in reports.items()}


def test_every_kernel_of_every_binary_equals_ptxas(
    built: tuple[Path, dict[str, list[PtxasKernel]]],
) -> None:
    d, reports = built
    reading = read_paths([d])
    assert reading.problems == [] and reading.files == 4
    for name, report in reports.items():
        ptxas = {(k.name, int(k.target.removeprefix("sm_").rstrip("af"))): k for k in report}
        read = {
            (k.kernel.name, k.kernel.sm): k.kernel
            for k in reading.kernels
            if k.path.endswith("/" + name)
        }
        assert set(read) == set(ptxas), name
        for key, kernel in read.items():
            want = ptxas[key]
            assert kernel.registers == want.registers, (name, key)
            assert kernel.frame_size == want.stack_frame, (name, key)
            assert kernel.static_smem == want.static_smem, (name, key)


def test_launch_bounds_and_the_cap_equal_the_models(
    built: tuple[Path, dict[str, list[PtxasKernel]]],
) -> None:
    d, reports = built
    kernels = {k.kernel.name: k.kernel for k in read_paths([d / "k.cubin"]).kernels}
    sm90 = arch_for("sm_90")
    heavy, squeezed, light = (
        kernels[n] for n in ("_Z5heavyPfPKfi", "_Z8squeezedPfPKfi", "_Z5lightPi")
    )
    assert heavy.max_threads == (384, 1, 1) and squeezed.max_threads == (1024, 1, 1)
    assert light.max_threads is None
    assert heavy.register_cap == register_cap(384, 1, sm90)[0] == 168
    assert squeezed.register_cap == register_cap(1024, 2, sm90)[0] == 32
    assert light.register_cap == 255
    assert squeezed.registers is not None and squeezed.registers <= 32
    # the spills ptxas reports show in the cubin only as a frame
    spilled = next(k for k in reports["k.cubin"] if k.name == "_Z8squeezedPfPKfi")
    assert spilled.spill_stores > 0 and squeezed.frame_size == spilled.stack_frame > 0


@pytest.mark.skipif(shutil.which("cuobjdump") is None, reason="cuobjdump is not on PATH")
def test_every_kernel_equals_cuobjdump(built: tuple[Path, dict[str, list[PtxasKernel]]]) -> None:
    d, _ = built
    for path in sorted(d.glob("k*.*")):
        if path.suffix == ".cu":
            continue
        text = subprocess.run(
            ["cuobjdump", "--dump-resource-usage", str(path)], capture_output=True, text=True
        ).stdout
        theirs = {(k.name, k.sm): k for k in parse_resource_usage(text)}
        ours = {(k.kernel.name, k.kernel.sm): k.kernel for k in read_paths([path]).kernels}
        assert set(ours) == set(theirs), path.name
        for key, k in ours.items():
            assert k.registers == theirs[key].registers
            assert k.shared_section == theirs[key].shared_section


def test_cuobjdump_report_is_parsed() -> None:
    # the form cuobjdump 13.0 prints (tests/data/h200_initialize.json's rows came from it)
    text = (
        "Fatbin elf code:\n================\narch = sm_90a\ncode version = [1,8]\n"
        "host = linux\ncompile_size = 64bit\n\nResource usage:\n Common:\n  GLOBAL:0\n"
        " Function _Z5lightPi:\n  REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:536 TEXTURE:0"
        " SURFACE:0 SAMPLER:0\n"
    )
    (k,) = parse_resource_usage(text)
    assert (k.name, k.sm, k.registers, k.max_stack_size, k.shared_section) == (
        "_Z5lightPi",
        90,
        8,
        0,
        0,
    )


def test_a_file_that_is_not_a_binary_is_skipped_and_a_bad_one_said(tmp_path: Path) -> None:
    (tmp_path / "notes.o").write_bytes(b"just some text, not an object file")
    (tmp_path / "bad.cubin").write_bytes(b"\x7fELF\x02\x01" + b"\0" * 20)
    reading = read_paths([tmp_path])
    assert reading.kernels == []
    assert [p for p, _ in reading.problems] == [str(tmp_path / "bad.cubin")]


def test_a_compressed_entry_without_a_decoder_is_said_not_guessed(
    built: tuple[Path, dict[str, list[PtxasKernel]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    d, _ = built
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard -> ImportError
    monkeypatch.setattr(binaries_read, "find_cuobjdump", lambda: None)  # and no cuobjdump
    reading = read_paths([d / "kz.o"])
    assert reading.kernels == []
    ((path, why),) = reading.problems
    assert path.endswith("kz.o") and "zstd" in why and "no cuobjdump" in why
