"""`cutlint verify` runs the probe each family names (cutlint.verify.probes): the dispatch, the
fields a probe does not measure, and the real files of each newly wired kind.

The default run holds one compile (an SM80 fused-MoE file of 0.7.4: 4 instantiations, equal to the
committed truth); the JIT-module and SM90 mixed-input files are compiled by the slow tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.jit_module_family import JitModuleFamily
from cutlint.families.registry import families
from cutlint.verify import alias_run, probes
from cutlint.verify import run as verify_run
from cutlint.verify.cache import ResultCache
from cutlint.verify.probe_records import ProbeRow
from cutlint.verify.report import render_json, render_text
from cutlint.verify.result import CompilerNumbers, Numbers, Status, differences
from cutlint.verify.run import Shard, VerifyOptions, verify

DATA = Path(__file__).parent.parent / "data"
M128_1 = "cutlass_kernel_file_gemm_grouped_sm80_M128_group1.generated.cu"
KNOWN = {verify_run.PROBE, alias_run.ALIAS_PROBE, *probes.PROBES}


def test_every_family_names_a_probe_verify_runs() -> None:
    for family in families():
        assert family.probe in KNOWN, (family.name, family.probe)
    for family in families():
        if isinstance(family, JitModuleFamily):
            assert family.probe == probes.JIT_PROBE, family.name


def _row(**kw: Any) -> ProbeRow:
    base = dict(
        path="f.cu",
        line=3,
        args=("a",),
        stages=2,
        mainloop_smem=0,
        epilogue_smem=0,
        kernel_smem=100,
        kernel_align=16,
        max_threads_per_block=128,
    )
    return ProbeRow(**{**base, **kw})  # type: ignore[arg-type]


def test_an_unmeasured_field_is_not_compared_and_says_so(tmp_path: Path) -> None:
    model = Numbers(
        stages=2,
        smem_bytes=100,
        mainloop_smem_bytes=90,
        epilogue_smem_bytes=10,
        max_threads_per_block=128,
    )
    row = _row(unmeasured=probes.SM80_UNMEASURED)
    compiler = CompilerNumbers.of_row(row)
    assert differences(model, compiler) == ()
    assert compiler.measured("mainloop_smem_bytes") is None
    assert compiler.measured("smem_bytes") == 100
    # measured fields still disagree
    assert [d.field for d in differences(model, CompilerNumbers.of_row(_row(kernel_smem=101)))] == [
        "smem_bytes",
        "mainloop_smem_bytes",
        "epilogue_smem_bytes",
    ]
    cache = ResultCache(tmp_path)
    cache.put("ab" * 32, row, 1.0)
    assert cache.get("ab" * 32, "g.cu") == _row(path="g.cu", unmeasured=probes.SM80_UNMEASURED)


def _grouped80(real_cache: Callable[[str], Path]) -> Path:
    return real_cache("0.7.4").parent.parent / "gemm_grouped" / "80"


def test_dispatch_reaches_each_probe_and_an_error_costs_its_own_file(
    fake_nvcc: Path,
    real_cache: Callable[[str], Path],
    jit_modules: Callable[[str], Any],
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    """With an nvcc that compiles nothing, every instantiation a probe builds is a compiler error
    of its own file (never "no compiler backend"), and nothing is cached."""
    mxfp8 = next(m for m in jit_modules("0.7.4") if m.name == "mxfp8_gemm_cutlass_sm120")
    files = [_grouped80(real_cache) / M128_1, next(p for p in mxfp8.generated if "128_" in p.name)]
    options = VerifyOptions(
        headers=(flashinfer_root("0.7.4"),), nvcc=str(fake_nvcc), jobs=1, cache_dir=tmp_path
    )
    result = verify(files, options)
    by_file: dict[str, set[Status]] = {}
    for v in result.instantiations:
        by_file.setdefault(Path(v.instantiation.span.path).name, set()).add(v.status)
    assert by_file == {f.name: {Status.ERROR} for f in files}, by_file
    assert {Path(f.path).name for f in result.files if f.error} == {f.name for f in files}
    assert not any((tmp_path / "verify" / "results").glob("*/*.json"))
    # a shard of the two files verifies one of them, through the same probes
    one = verify(files, VerifyOptions(**{**options.__dict__, "shard": Shard(2, 2)}))
    assert {Path(v.instantiation.span.path).name for v in one.instantiations} == {files[1].name}


@pytest.mark.compiler
def test_one_sm80_file_through_verify_equals_the_truth(
    nvcc: str,
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    path = _grouped80(real_cache) / M128_1
    options = VerifyOptions(
        headers=(flashinfer_root("0.7.4"),), nvcc=nvcc, jobs=1, cache_dir=tmp_path
    )
    result = verify([path], options)
    truth = {
        r["line"]: r
        for r in json.loads((DATA / "nvcc_sm80_fused_moe_truth.json").read_text())["rows"]
        if "0.7.4" in r["versions"] and r["file"] == M128_1
    }
    assert [v.status for v in result.instantiations] == [Status.AGREE] * 4
    for v in result.instantiations:
        assert v.compiler is not None
        t = truth[v.instantiation.span.line]
        assert v.compiler.smem_bytes == t["smem_size"]
        assert v.compiler.max_threads_per_block == t["threads_per_block"]
        assert v.compiler.stages == t["members"]["base.Stages"]
        assert v.compiler.unmeasured == probes.SM80_UNMEASURED
        assert v.note and "mainloop_smem_bytes" in v.note
    text = render_text(result)
    assert "n/m" in text and "compared without mainloop_smem_bytes" in text
    data = json.loads(render_json(result))
    assert data["instantiations"][0]["mainloop_smem_bytes"] is None
    # the second run compiles nothing
    again = verify([path], options)
    assert all(v.cached and v.status is Status.AGREE for v in again.instantiations)
    assert not any(f.compiled for f in again.files)


def _jit_file(jit_modules: Callable[[str], Any], module: str, name: str) -> Path:
    m = next(m for m in jit_modules("0.7.4") if m.name == module)
    found: Path = next(p for p in m.generated if p.name == name)
    return found


@pytest.mark.slow
@pytest.mark.compiler
def test_jit_module_files_through_verify(
    nvcc: str,
    jit_modules: Callable[[str], Any],
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    """One file of each SM120 JIT family (FP4, MXFP8, SVDQuant, FP8 groupwise, the FP4 group
    GEMMs): every instantiation agrees with nvcc."""
    files = [
        _jit_file(jit_modules, module, name)
        for module, name in (
            ("fp4_gemm_cutlass_sm120", "fp4_gemm_cutlass___nv_bfloat16_128_128_128.cu"),
            ("mxfp8_gemm_cutlass_sm120", "mxfp8_gemm_cutlass_sm120___nv_bfloat16_128_128_128.cu"),
            (
                "nvfp4_svdquant_gemm_cutlass_sm120",
                "nvfp4_svdquant_gemm_cutlass_sm120_Tactic128x128x128SkConfig.cu",
            ),
            ("gemm_sm120", "gemm_groupwise_e4m3_bf16_majorfalse_sm120.cu"),
            ("gemm_sm120", "group_gemm_fp8_groupwise_e5m2_f16_majortrue_sm120.cu"),
            ("gemm_sm120", "group_gemm_mxfp4_groupwise_e4m3_bf16_sm120.cu"),
            ("gemm_sm120", "group_gemm_nvfp4_groupwise_bf16_sm120.cu"),
        )
    ]
    options = VerifyOptions(
        headers=(flashinfer_root("0.7.4"),), nvcc=nvcc, jobs=1, cache_dir=tmp_path
    )
    result = verify(files, options)
    assert len(result.instantiations) == 28  # 2+2+2+2+2+6+12, measured 3 December 2026
    assert {v.status for v in result.instantiations} == {Status.AGREE}


@pytest.mark.slow
@pytest.mark.compiler
def test_sm90_mixed_file_through_verify(
    nvcc: str, flashinfer_root: Callable[[str], Path], tmp_path: Path
) -> None:
    from cutlint.producers.flashinfer.wheel import generate_cache

    root = flashinfer_root("0.7.4")
    grouped = generate_cache(root, "0.7.4", tmp_path / "gen", sm=90)
    gemm90 = sorted((grouped.parent.parent / "gemm" / "90").glob("*.generated.cu"))[:1]
    options = VerifyOptions(headers=(root,), nvcc=nvcc, jobs=1, cache_dir=tmp_path)
    result = verify(gemm90, options)
    assert result.instantiations
    assert {v.status for v in result.instantiations} == {Status.AGREE}


def test_no_backend_note_names_the_backend_a_family_probe_needs() -> None:
    from cutlint.records import FormKind, Instantiation, SourceSpan
    from cutlint.verify.run import _no_backend

    span = SourceSpan(path="m.cu", line=1, column=1, end_line=1)
    inst = Instantiation(form=FormKind.MACRO_CALL, name="M", args=("1",), span=span)
    assert "--backend nvcc only" in _no_backend(inst, "jit-module", "libclang")
    assert "--backend nvcc only" not in _no_backend(inst, "jit-module", "nvcc")
