"""`resolve`: each field from the strongest evidence, and its origin said."""

from __future__ import annotations

import json
from pathlib import Path

from cutlint.build_context import BuildInfo, Origin, Request
from cutlint.context.resolve import resolve
from cutlint.producers.flashinfer.jit_build import write_build_ninja

VERSION_H = "#define CUTLASS_MAJOR {}\n#define CUTLASS_MINOR {}\n#define CUTLASS_PATCH {}\n"


def cutlass_tree(root: Path, version: str) -> Path:
    inc = root / "include"
    (inc / "cutlass").mkdir(parents=True)
    (inc / "cutlass" / "version.h").write_text(VERSION_H.format(*version.split(".")))
    return inc


def fake_wheel(root: Path, version: str, cutlass: str) -> Path:
    """What resolve reads of an unpacked flashinfer-python wheel: its version file and the
    CUTLASS it vendors."""
    pkg = root / "flashinfer"
    (pkg / "data" / "cutlass").mkdir(parents=True)
    (pkg / "_build_meta.py").write_text(f'__version__ = "{version}"\n')
    cutlass_tree(pkg / "data" / "cutlass", cutlass)
    return root


def test_nothing_known_is_default_and_path(tmp_path: Path) -> None:
    f = tmp_path / "flat" / "kernel_sm100_x.cu"
    f.parent.mkdir()
    f.write_text("")
    ctx = resolve(str(f))
    assert ctx.gpu is not None and (ctx.gpu.value, ctx.gpu.origin) == (100, Origin.LAYOUT)
    assert ctx.cutlass_version is None and ctx.targets is None
    g = tmp_path / "flat" / "renamed.cu"
    g.write_text("")
    assert resolve(str(g)).gpu.origin is Origin.DEFAULT  # type: ignore[union-attr]


def test_compile_commands_json_via_p_and_found_above(tmp_path: Path) -> None:
    inc = cutlass_tree(tmp_path / "cutlass", "4.4.2")
    src = tmp_path / "src" / "k.cu"
    src.parent.mkdir()
    src.write_text("")
    build = tmp_path / "build"
    build.mkdir()
    entry = {
        "directory": str(build),
        "file": str(src),
        "command": f"nvcc -I{inc} -DFOO -gencode arch=compute_90a,code=sm_90a -c {src}",
    }
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    ctx = resolve(str(src), BuildInfo(database=str(build)))
    assert ctx.gpu is not None and (ctx.gpu.value, ctx.gpu.origin) == (90, Origin.COMMAND)
    assert ctx.cutlass_version is not None
    assert (ctx.cutlass_version.value, ctx.cutlass_version.origin) == ("4.4.2", Origin.HEADER)
    assert ctx.defines is not None and ctx.defines.value == ("FOO",)
    # clangd's way: a compile_commands.json in a directory above the file
    (build / "compile_commands.json").rename(tmp_path / "compile_commands.json")
    assert resolve(str(src)).gpu.origin is Origin.COMMAND  # type: ignore[union-attr]


def test_a_multi_arch_command_does_not_say_the_gpu(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("")
    cmd = "nvcc -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_120a,code=sm_120a"
    ctx = resolve(str(src), BuildInfo(command=cmd))
    assert ctx.gpu is not None and ctx.gpu.origin is Origin.DEFAULT
    assert [t.name for t in ctx.loaded(120)] == ["sm_120a"]
    assert ctx.loaded(121) == ()


def test_flashinfer_build_ninja_beside_generated(tmp_path: Path) -> None:
    wheel = fake_wheel(tmp_path / "wheel", "0.6.8.post1", "4.4.2")
    ws = tmp_path / "cache" / "flashinfer" / "0.6.8.post1" / "103a"
    src = ws / "generated" / "cutlass_instantiations" / "103" / "gemm_grouped" / "k.cu"
    src.parent.mkdir(parents=True)
    src.write_text("")
    write_build_ninja(
        wheel,
        ws,
        "fused_moe_103",
        ["-DENABLE_FP4", "-gencode=arch=compute_103a,code=sm_103a"],
        [src],
    )
    ctx = resolve(str(src))
    fields = {k: (v.value, v.origin) for k, v in ctx.fields().items()}
    assert fields["gpu"] == (103, Origin.COMMAND)
    assert fields["release"] == ("0.6.8.post1", Origin.HEADER)
    assert fields["cutlass_version"] == ("4.4.2", Origin.HEADER)
    assert fields["jit_module"] == ("fused_moe_103", Origin.COMMAND)
    assert fields["defines"] == (("ENABLE_FP4",), Origin.COMMAND)


def test_the_users_flags_win(tmp_path: Path) -> None:
    wheel = fake_wheel(tmp_path / "wheel", "0.7.4", "4.5.0")
    src = wheel / "flashinfer" / "data" / "csrc" / "k.cu"
    src.parent.mkdir(parents=True)
    src.write_text("")
    found = resolve(str(src))
    assert found.release is not None and found.release.origin is Origin.HEADER
    assert found.cutlass_version is not None and found.cutlass_version.value == "4.5.0"
    said = resolve(str(src), None, Request(gpu="dgx-spark", cutlass_version="4.2.1"))
    assert said.gpu is not None and (said.gpu.value, said.gpu.origin) == (121, Origin.OPTION)
    assert said.cutlass_version is not None and said.cutlass_version.value == "4.2.1"
