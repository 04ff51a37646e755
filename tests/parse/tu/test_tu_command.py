"""Compile commands in nvcc's and clang's spellings, and compile_commands.json entries."""

from __future__ import annotations

import json
from pathlib import Path

from cutlint.parse.tu.command import from_compile_commands, normalize


def test_nvcc_command_keeps_what_decides_types() -> None:
    flags, arches = normalize(
        [
            "/usr/local/cuda/bin/nvcc",
            "-DENABLE_SCALED_MM_SM120=1",
            "-I/src/csrc",
            "-isystem",
            "/t/include",
            "-O3",
            "--expt-relaxed-constexpr",
            "-std=c++17",
            "-gencode",
            "arch=compute_120a,code=sm_120a",
            "--generate-code=arch=compute_100a,code=[compute_100a,sm_100a]",
            "-o",
            "x.o",
        ]
    )
    assert flags == [
        "-DENABLE_SCALED_MM_SM120=1",
        "-I/src/csrc",
        "-isystem",
        "/t/include",
        "-std=c++17",
    ]
    assert arches == ["sm_120a", "sm_100a"]


def test_clang_and_arch_spellings() -> None:
    assert normalize(["--cuda-gpu-arch=sm_90a", "-arch=sm_120f"])[1] == ["sm_90a", "sm_120f"]


def test_compile_database_entry(tmp_path: Path) -> None:
    src = tmp_path / "a.cu"
    src.write_text("")
    db = tmp_path / "compile_commands.json"
    entry = {
        "directory": str(tmp_path),
        "file": "a.cu",
        "command": "nvcc -Iinc -DX=1 -gencode arch=compute_90a,code=sm_90a -c a.cu",
    }
    db.write_text(json.dumps([entry]))
    command = from_compile_commands(db, src)
    assert command is not None
    assert command.args == (f"-I{tmp_path / 'inc'}", "-DX=1")
    assert command.arches == ("sm_90a",)
    assert from_compile_commands(db, tmp_path / "other.cu") is None
