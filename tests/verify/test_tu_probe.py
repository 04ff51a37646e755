"""`cutlint tu --verify`: nvcc's host pass as the referee for the kernels `cutlint tu` measures.

The fast tests build the probe from a small read and compare rows; the recorded truth
(tests/data/nvcc_tu_vllm_truth.json, written by tests/tools/make_nvcc_tu_truth.py) is replayed
against libclang's reading of vLLM 0.34.0 and, in the compiler test, made again by nvcc."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cutlint.report.tu import render_checks_text
from cutlint.tu_records import CallSite, CompileCommand, TuKernel, TuRead
from cutlint.verify.tu_probe import NvccRow, compare, gencode, nvcc_flags, probe_source
from tests.tools.tu_truth import truth_read

TRUTH = Path(__file__).resolve().parents[1] / "data" / "nvcc_tu_vllm_truth.json"


def _kernel(expr: str, smem: int | None, stages: int | None) -> TuKernel:
    site = CallSite(path="/src/a.cu", line=3, call="f<X>(...)", conditions=())
    return TuKernel(
        paths=((site,),),
        type_expr=expr,
        kernel_type="K",
        shared_storage=smem,
        stages=stages,
        tile=None,
        cluster=None,
        dispatch_policy=None,
        elements=None,
        max_threads=None,
        compile_error=None,
    )


def _read(tmp_path: Path, kernels: tuple[TuKernel, ...]) -> TuRead:
    (tmp_path / "d.cuh").write_text("#pragma once\n")
    main = tmp_path / "a.cu"
    main.write_text('#include "d.cuh"\n#include <torch/all.h>\nvoid entry() {}\n')
    command = CompileCommand(
        file=str(main),
        args=(
            "-I/inc",
            "-DENABLE_X=1",
            "-std=c++17",
            "-Wall",
            "-isystem",
            "/sys",
            "-idirafter",
            "/l",
        ),
        arches=("sm_120a",),
        origin="flags",
    )
    return TuRead(
        command=command,
        arch="sm_120a",
        kernels=kernels,
        missing_headers=("torch/all.h",),
        unresolved=(),
        seconds=0.0,
    )


def test_probe_holds_the_includes_and_one_line_per_measured_kernel(tmp_path: Path) -> None:
    read = _read(tmp_path, (_kernel("::ns::Cfg<int>::Gemm", 1024, 3), _kernel("::x", None, None)))
    src = probe_source(read)
    assert f'#include "{(tmp_path / "d.cuh").resolve()}"' in src
    assert "#include <torch/all.h>" in src
    assert "void entry()" not in src  # the TU's own bodies stay out
    assert src.index("#ifndef __CUDA_ARCH__") < src.index("cutlint_k0")
    assert "using cutlint_k0 = ::cutlint_tu::kernel_t<::ns::Cfg<int>::Gemm>;" in src
    assert "cutlint_k1" not in src  # nothing measured: nothing to referee
    # a CUTLASS 2.x kernel has no SharedStorageSize: the trait falls back to sizeof(SharedStorage)
    assert "(long)::cutlint_tu::smem_size<cutlint_k0>::value" in src
    assert "::SharedStorageSize, " not in src


def test_a_kernel_the_main_file_names_brings_the_main_file_host_only(tmp_path: Path) -> None:
    """CUTLASS's examples name their kernel by a namespace-scope `using` of the `.cu` itself:
    the probe compiles the main file too (host pass, its `main` renamed)."""
    read = _read(tmp_path, (_kernel("::GemmKernel", 98304, 4),))
    site = CallSite(path=read.command.file, line=133, call="using GemmKernel", conditions=())
    kernel = read.kernels[0].model_copy(update={"paths": ((site,),)})
    src = probe_source(read.model_copy(update={"kernels": (kernel,)}))
    guard = src.index("#ifndef __CUDA_ARCH__")
    own = src.index(f'#include "{Path(read.command.file).resolve()}"')
    assert guard < src.index("#define main cutlint_tu_main_of_the_tu") < own
    assert own < src.index("#undef main") < src.index("using cutlint_k0 = ")
    assert "d.cuh" not in src  # the main file includes its headers itself, once
    assert "cutlint_tu_main_of_the_tu" not in probe_source(read)  # a header's kernel: not needed


def test_nvcc_flags_keep_what_decides_a_type(tmp_path: Path) -> None:
    flags = nvcc_flags(_read(tmp_path, ()))
    assert flags[:3] == ["-x", "cu", "-DCUTLINT_TU_NVCC"]
    assert "-I/inc" in flags and "-DENABLE_X=1" in flags and "-std=c++17" in flags
    assert flags[flags.index("-isystem") + 1] == "/sys"
    assert flags[flags.index("/l") - 1] == "-isystem"  # nvcc has no -idirafter
    assert "-Wall" not in flags
    assert flags[-1] == gencode("sm_120a") == "-gencode=arch=compute_120a,code=sm_120a"


def test_agree_and_differ_with_both_numbers(tmp_path: Path) -> None:
    read = _read(tmp_path, (_kernel("A", 96256, 9), _kernel("B", 92160, 7), _kernel("C", 5, 1)))
    checks = compare(read, [NvccRow(0, 96256, 96256, 9), NvccRow(1, 94208, 94208, 7)])
    assert [c.agrees for c in checks] == [True, False, False]
    assert checks[2].nvcc_shared_storage is None  # no row: differ, never agree
    text = render_checks_text(checks)
    assert "agree   smem 96,256 / nvcc 96,256 B  stages 9 / nvcc 9" in text
    assert "differ  smem 92,160 / nvcc 94,208 B" in text
    assert "1 of 3 kernel(s) agree, 2 differ" in text


def test_recorded_truth_agrees_everywhere() -> None:
    data = json.loads(TRUTH.read_text())
    kernels = [k for f in data["files"] for k in f["kernels"]]
    assert kernels and all(k["agree"] for k in kernels)
    for k in kernels:
        assert k["nvcc"]["shared_storage"] == k["libclang"]["shared_storage"]
        assert k["nvcc"]["shared_storage_size"] == k["nvcc"]["shared_storage"]
        assert k["nvcc"]["stages"] == k["libclang"]["stages"]


def _files() -> list[Any]:
    return [
        pytest.param(f, id=Path(f["file"]).stem) for f in json.loads(TRUTH.read_text())["files"]
    ]


_FAMILY = {
    "scaled_mm_sm120_fp8.cu": "sm120-dense-gemm",
    "scaled_mm_blockwise_sm120_fp8.cu": "sm120-collective-builder",
    "scaled_mm_sm90_fp8.cu": "sm90-collective-builder",
    "scaled_mm_sm100_fp8.cu": "sm100-collective-builder",
    "w4a8_mm_entry.cu": "sm90-collective-builder",
    "w4a8_grouped_mm_entry.cu": "sm90-collective-builder",
}


def _truth_read(entry: dict[str, Any], include: Path, version: str) -> TuRead:
    return truth_read(entry, include, version)


@pytest.mark.parametrize("entry", _files())
def test_family_models_equal_the_recorded_nvcc_numbers(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    """Every recorded kernel, from the builders clang resolved, is claimed by its family and
    modeled as nvcc laid it out (no libclang, no compiler): the SM100 family's model for CUTLASS
    4.5.0's one-problem dense chain stands on these 20 rows."""
    from cutlint.engine.tu_model import model

    data = json.loads(TRUTH.read_text())
    version = data["cutlass"].split()[0]
    read = _truth_read(entry, tmp_path / "include", version)
    family = _FAMILY[Path(entry["file"]).name]
    models = model(read)
    assert len(models) == len(read.kernels) > 0
    for k, m in zip(read.kernels, models, strict=True):
        assert m is not None and m.family == family, (k.type_expr, m)
        assert m.reason is None, (k.type_expr, m.reason)
        assert (m.shared_storage, m.stages) == (k.shared_storage, k.stages), k.type_expr


def _vllm_read(rel: str, arch: str) -> TuRead:
    pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")
    from cutlint.parse.tu import from_flags, read_tu
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist

    try:
        vllm = download_sdist("0.34.0")
        include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    except Exception as err:  # no network: say so
        pytest.skip(f"inputs unavailable: {err}")
    return read_tu(from_flags(vllm / rel, cmake_flags(vllm, include, arch)), use_cache=False)


@pytest.mark.slow
@pytest.mark.parametrize("entry", _files())
def test_libclang_measures_the_recorded_nvcc_numbers(entry: dict[str, Any]) -> None:
    read = _vllm_read(entry["file"], entry["arch"])
    measured = {k.type_expr: (k.shared_storage, k.stages) for k in read.kernels}
    recorded = {
        k["type_expr"]: (k["nvcc"]["shared_storage"], k["nvcc"]["stages"]) for k in entry["kernels"]
    }
    assert measured == recorded


@pytest.mark.slow
@pytest.mark.compiler
def test_nvcc_recompiles_the_recorded_numbers() -> None:
    from cutlint.verify.tu_probe import check

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    entry = json.loads(TRUTH.read_text())["files"]
    sm120 = next(f for f in entry if f["file"].endswith("/scaled_mm_sm120_fp8.cu"))
    read = _vllm_read(sm120["file"], sm120["arch"])
    checks = check(read, use_cache=False)
    recorded = {k["type_expr"]: k["nvcc"] for k in sm120["kernels"]}
    assert len(checks) == len(recorded) == 16
    for c in checks:
        assert c.agrees, c
        assert recorded[c.type_expr] == {
            "shared_storage": c.nvcc_shared_storage,
            "shared_storage_size": c.nvcc_shared_storage_size,
            "stages": c.nvcc_stages,
        }


def test_cli_verify_prints_both_numbers_and_exits_1_on_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    import cutlint.parse.tu as front
    import cutlint.verify.tu_probe as probe
    from cutlint.cli.commands.tu import tu

    read = _read(tmp_path, (_kernel("A", 96256, 9), _kernel("B", 92160, 7)))
    monkeypatch.setattr(front, "read_tu", lambda command, arch=None, use_cache=True: read)
    rows = [NvccRow(0, 96256, 96256, 9), NvccRow(1, 92160, 92160, 7)]
    monkeypatch.setattr(probe, "run", lambda read, nvcc="nvcc", use_cache=True: (rows, False))
    main = read.command.file
    ok = CliRunner().invoke(tu, [main, "--verify", "--", "-DX", "--cuda-gpu-arch=sm_120a"])
    assert ok.exit_code == 0, ok.output
    assert "2 of 2 kernel(s) agree, 0 differ" in ok.output
    rows[1] = NvccRow(1, 94208, 94208, 8)
    bad = CliRunner().invoke(tu, [main, "--verify", "--format", "json", "--", "-DX"])
    assert bad.exit_code == 1, bad.output
    nvcc = json.loads(bad.output)["nvcc"]
    assert [c["agrees"] for c in nvcc] == [True, False]
    assert nvcc[1]["nvcc_shared_storage"] == 94208 and nvcc[1]["shared_storage"] == 92160


def test_declarations_only_keeps_the_classes_and_drops_the_bodies() -> None:
    """vLLM's W4A8 kernels are the main file's own class templates: the probe compiles the
    file's declarations, never its bodies (stable-ABI torch calls the stubs only declare)."""
    from cutlint.verify.tu_probe import declarations_only

    text = (
        '#include "w4a8_utils.cuh"\n'
        "namespace w { // a comment {\n"
        "template <class T> struct K {\n"
        "  using GemmKernel = int;\n"
        '  static int mm(int a) { if (a) { return torch::stable::empty("}"); } return 0; }\n'
        "};\n"
        "using K1 = K<int>;\n"
        "int dispatch(int s) const { return K1::mm(s); }\n"
        "STABLE_TORCH_LIBRARY_IMPL(_C, CUDA, m) { m.impl(1); }\n"
        "}\n"
    )
    out = declarations_only(text)
    assert "#include" not in out and "torch::stable" not in out and "comment" not in out
    assert "static int mm(int a);" in out and "int dispatch(int s) const;" in out
    assert "using GemmKernel = int;" in out and "using K1 = K<int>;" in out
    assert "STABLE_TORCH_LIBRARY_IMPL" not in out
    assert out.count("{") == out.count("}") == 2  # the namespace's and the struct's


def test_declarations_only_reads_digit_separators_and_raw_strings_as_the_lexer_does() -> None:
    """The lexical mask decides what is a literal: `1'000` is a number, not a character literal
    opening, and a raw string's `}` closes no block (a hand-written scan misread both)."""
    from cutlint.verify.tu_probe import declarations_only

    text = (
        "constexpr int kSmem = 232'448;\n"
        "struct Config { using Tile = int; };\n"
        'int f() { auto s = R"(})"; return 1\'000; }\n'
        "using Next = Config;\n"
    )
    out = declarations_only(text)
    assert "constexpr int kSmem = 232'448;" in out and "struct Config { using Tile = int; };" in out
    assert "int f();" in out and "using Next = Config;" in out and 'R"' not in out
