"""FlashInfer's JIT-rendered SM120 GEMM modules: rendered by each release's own functions, and
every instantiation in them found by the parser."""

from __future__ import annotations

import re
import sys
from collections import Counter
from typing import Any

import pytest

from cutlint.parse import parse_paths
from cutlint.records import FormKind

# Per release: module -> files it writes under generated/ (rendered + copied sources), and the
# instantiations per macro or launcher. Counted from core.py's lists: FP4 8 tiles x 2 dtypes x 2
# (`true`/`false`); MXFP8 5 tiles in 0.6.11.post2, 3 after flashinfer#4013; groupwise 2 x 2 x 2
# files x 2 granularities; MXFP4 4 files x 3 N x 2 SwapAB; NVFP4 2 files x 3 N x 2 K x 2 SwapAB;
# svdquant 31 configs, 18 of them with a second NO_INLINE_DOWN instantiation.
GROUPWISE = {
    "CutlassGroupwiseScaledGEMMSM120": 16,
    "CutlassFP8GroupwiseScaledGroupGEMMSM120": 16,
    "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120": 24,
    "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120": 24,
}
EXPECTED: dict[str, dict[str, tuple[int, dict[str, int]]]] = {
    "0.6.11.post2": {
        "gemm_sm120": (28, GROUPWISE),
        "fp4_gemm_cutlass_sm120": (16, {"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": 32}),
        "mxfp8_gemm_cutlass_sm120": (10, {"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120": 20}),
    },
    "0.7.2.post1": {
        "gemm_sm120": (28, GROUPWISE),
        "fp4_gemm_cutlass_sm120": (16, {"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": 32}),
        "mxfp8_gemm_cutlass_sm120": (6, {"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120": 12}),
    },
    "0.7.4": {
        "gemm_sm120": (28, GROUPWISE),
        "fp4_gemm_cutlass_sm120": (16, {"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": 32}),
        "mxfp8_gemm_cutlass_sm120": (6, {"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120": 12}),
        "nvfp4_svdquant_gemm_cutlass_sm120": (
            31,
            {
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC": 26,
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC": 5,
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC": 18,
            },
        ),
    },
}
TOTALS = {"0.6.11.post2": 132, "0.7.2.post1": 124, "0.7.4": 173}
# The sources gen_gemm_sm120_module copies beside its rendered files: hand-written bindings and
# dispatch, which hold no instantiation (a CUT006 note each, said out loud).
COPIED = {
    "gemm_groupwise_sm120.cu",
    "group_gemm_fp8_groupwise_sm120.cu",
    "group_gemm_mxfp4_groupwise_sm120.cu",
    "group_gemm_nvfp4_groupwise_sm120.cu",
    "gemm_sm120_binding.cu",
    "group_gemm_sm120_binding.cu",
}
# An independent count: each instantiation starts a line with its macro or `template cudaError_t`.
STARTS = re.compile(r"^(?:INSTANTIATE_\w+\(|template cudaError_t$)", re.M)


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_render_writes_what_the_jit_writes(jit_modules: Any, version: str) -> None:
    modules = jit_modules(version)
    assert {m.name: len(m.generated) for m in modules} == {
        name: files for name, (files, _) in EXPECTED[version].items()
    }
    for m in modules:
        assert all(p.is_file() for p in m.generated)
        assert all(
            f"/flashinfer/{version}/120f/generated/gen_gemm_sm120" in str(p) for p in m.generated
        )


def test_render_leaves_no_stand_ins_behind(flashinfer_root: Any, tmp_path: Any) -> None:
    """The stand-in torch and flashinfer packages live only while the JIT functions run."""
    from cutlint.producers.flashinfer.jit_modules import render_modules

    def ours() -> dict[str, object]:
        return {k: v for k, v in sys.modules.items() if k.split(".")[0] in ("torch", "flashinfer")}

    before = ours()
    assert render_modules(flashinfer_root("0.7.4"), "0.7.4", tmp_path)
    assert ours() == before


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_every_instantiation_is_found(jit_modules: Any, version: str) -> None:
    total = 0
    for m in jit_modules(version):
        parsed = parse_paths(list(m.generated))
        found = Counter(i.name for r in parsed for i in r.instantiations)
        assert dict(found) == EXPECTED[version][m.name][1], m.name
        grep = sum(len(STARTS.findall(p.read_text())) for p in m.generated)
        assert sum(found.values()) == grep
        for r in parsed:
            name = r.path.rsplit("/", 1)[-1]
            assert r.generated_for_sm == 120 and r.flashinfer_version == version
            if name in COPIED:
                # bindings copied beside the instantiations: no CUTLASS GEMM instantiation, so
                # skipped and counted, not CUT006 (producers/flashinfer/cache_layout.jit_source)
                assert r.skipped and r.problems == () and not r.instantiations
            else:
                assert r.problems == () and r.instantiations, name
        for i in (i for r in parsed for i in r.instantiations):
            macro = i.name.startswith("INSTANTIATE_")
            assert i.form is (FormKind.MACRO_CALL if macro else FormKind.EXPLICIT_INSTANTIATION)
        total += sum(found.values())
    assert total == TOTALS[version]


def test_macro_arguments_are_kept_as_written(jit_modules: Any) -> None:
    mxfp8 = next(m for m in jit_modules("0.6.11.post2") if m.name == "mxfp8_gemm_cutlass_sm120")
    insts = [i for r in parse_paths(list(mxfp8.generated)) for i in r.instantiations]
    assert {i.args for i in insts if i.args[1:3] == ("256", "128")} == {
        ("__nv_bfloat16", "256", "128", "128", "true"),
        ("__nv_bfloat16", "256", "128", "128", "false"),
        ("half", "256", "128", "128", "true"),
        ("half", "256", "128", "128", "false"),
    }
    group = next(m for m in jit_modules("0.7.4") if m.name == "gemm_sm120")
    nvfp4 = [
        i
        for r in parse_paths([p for p in group.generated if "nvfp4" in p.name])
        for i in r.instantiations
    ]
    assert nvfp4[0].args == (
        "128", "32", "128", "true", "cutlass::float_e2m1_t", "cutlass::float_e2m1_t",
        "cutlass::float_ue4m3_t", "cutlass::float_ue4m3_t", "cutlass::half_t",
        "float_e2m1_t", "float_e2m1_t", "float_ue4m3_t", "float_ue4m3_t", "half_t",
    )  # fmt: skip
    groupwise = [
        i
        for r in parse_paths(
            [p for p in group.generated if p.name.startswith("gemm_groupwise_e4m3_f16_majortrue")]
        )
        for i in r.instantiations
    ]
    assert [i.args for i in groupwise] == [
        ("1", "128", "128", "true", "cutlass::float_e4m3_t", "cutlass::half_t"),
        ("128", "128", "128", "true", "cutlass::float_e4m3_t", "cutlass::half_t"),
    ]


# SM100 / SM103 (0.7.4): module -> (files under generated/, instantiations per macro or launcher),
# counted from core.py's lists: FP4 4 tiles x 2 dtypes x 9 clusters; MXFP8 4 x 2 x 8; FP8 6 x 2 x
# 5; BF16 5 x 3 x 5; svdquant 8 configs; groupwise 16 + 16 + 16 files (2 or 3 launchers, 2 x 4 x
# 4 MXFP4 calls each) and 5 copied sources; SM103 FP4 3 ultra tiles and 2 x 4 generic tiles x 2
# dtypes x 9 clusters.
SM10X_GROUPWISE = {
    "CutlassGroupwiseScaledGEMMSM100": 32,
    "CutlassGroupwiseScaledGEMMSM100LowLatency": 16,
    "CutlassFP8GroupwiseScaledGroupGEMMSM100": 32,
    "CutlassMXFP4GroupwiseScaledGroupGEMMSM100": 128,
}
SM10X: dict[int, dict[str, tuple[int, dict[str, int]]]] = {
    100: {
        "gemm_sm100": (53, SM10X_GROUPWISE),
        "fp4_gemm_cutlass": (8, {"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": 72}),
        "mxfp8_gemm_cutlass": (8, {"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER": 64}),
        "fp8_gemm_cutlass": (12, {"INSTANCE_FP8_GEMM_TEMPLATE_SM100": 60}),
        "bf16_gemm_cutlass": (15, {"INSTANCE_BF16_GEMM_TEMPLATE_SM100": 75}),
        "nvfp4_svdquant_gemm_cutlass": (8, {"INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC": 8}),
        # gen_tgv_gemm_sm10x_module(dtype, use_sm_100f=True) for bf16 and fp16: the eleven
        # (cta_m, cta_n, dma_stage) of its cta_m_n_dma_list each
        "tgv_gemm_bf16": (11, {"INSTANTIATE_TGV_GEMM_HOST_BF16_BF16": 11}),
        "tgv_gemm_fp16": (11, {"INSTANTIATE_TGV_GEMM_HOST_FP16_FP16": 11}),
    },
}
SM10X[103] = {k: v for k, v in SM10X[100].items() if k != "fp4_gemm_cutlass"} | {
    "fp4_gemm_cutlass_sm103": (
        22,
        {
            "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER": 54,
            "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER": 144,
        },
    )
}


@pytest.mark.parametrize("sm", sorted(SM10X))
def test_render_sm10x_writes_what_the_jit_writes(
    flashinfer_root: Any, tmp_path: Any, sm: int
) -> None:
    """`gen_gemm_sm100*` (and on 10.3 `gen_gemm_sm103*` in place of the SM100 FP4 one) run with
    stand-ins, no torch, into the `100a` / `103a` arch directory; every instantiation parsed."""
    from cutlint.producers.flashinfer.jit_modules import render_jit_specs

    modules = render_jit_specs(flashinfer_root("0.7.4"), "0.7.4", tmp_path, sm)
    got = {}
    for m in modules:
        assert all(
            f"/flashinfer/0.7.4/{sm}a/generated/gen_{'tgv_gemm' if 'tgv' in m.name else 'gemm_sm10'}"
            in str(p)
            for p in m.generated
        )
        parsed = parse_paths(list(m.generated))
        assert all(r.generated_for_sm == sm for r in parsed)
        got[m.name] = (
            len(m.generated),
            dict(Counter(i.name for r in parsed for i in r.instantiations)),
        )
    assert got == SM10X[sm]


def test_render_tgv_as_its_runners_call_it(flashinfer_root: Any, tmp_path: Any) -> None:
    """gemm_base.py builds the TGV module with `is_sm100f_supported` (True on CUDA >= 12.9): the
    SM100f flags; 0.6.3 renders it too; a Jetson Thor (11.0) has none (the TGV checks take 100,
    103 and 107)."""
    from cutlint.producers.flashinfer.jit_modules import render_jit_specs

    for version in ("0.6.3", "0.7.4"):
        modules = render_jit_specs(flashinfer_root(version), version, tmp_path / version, 100)
        tgv = {m.name: m for m in modules if m.function == "gen_tgv_gemm_sm10x_module"}
        assert sorted(tgv) == ["tgv_gemm_bf16", "tgv_gemm_fp16"]
        flags = tgv["tgv_gemm_bf16"].cuda_flags
        assert "--expt-relaxed-constexpr" in flags
        assert "-DCUTLASS_ENABLE_GDC_FOR_SM100=1" in flags
    thor = render_jit_specs(flashinfer_root("0.7.4"), "0.7.4", tmp_path / "thor", 110)
    assert not [m for m in thor if "tgv" in m.name]


def test_render_sm90_writes_the_segment_gemm(flashinfer_root: Any, tmp_path: Any) -> None:
    """`gen_gemm_sm90_module` (core.py: six (dtype_in, dtype_out) pairs of
    group_gemm_sm90_kernel_inst.jinja, and group_gemm_sm90.cu and the binding copied beside
    them) into the `90a` arch directory, with sm90a_nvcc_flags' defines read from jit/core.py."""
    from cutlint.producers.flashinfer.jit_modules import render_jit_specs

    (module,) = render_jit_specs(flashinfer_root("0.7.4"), "0.7.4", tmp_path, 90)
    assert (module.function, module.name, len(module.generated)) == (
        "gen_gemm_sm90_module",
        "gemm_sm90",
        8,
    )
    assert "-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED" in module.cuda_flags
    assert "-DCUTLASS_ENABLE_GDC_FOR_SM90=1" in module.cuda_flags
    assert not any(f.startswith("-gencode") for f in module.cuda_flags)
    parsed = parse_paths(list(module.generated))
    assert all(r.generated_for_sm == 90 for r in parsed)
    insts = [i for r in parsed for i in r.instantiations]
    assert {i.args for i in insts} == {
        ("cutlass::half_t", "cutlass::half_t"),
        ("cutlass::bfloat16_t", "cutlass::bfloat16_t"),
        ("cutlass::float_e4m3_t", "cutlass::half_t"),
        ("cutlass::float_e5m2_t", "cutlass::half_t"),
        ("cutlass::float_e4m3_t", "cutlass::bfloat16_t"),
        ("cutlass::float_e5m2_t", "cutlass::bfloat16_t"),
    }
    assert {i.name for i in insts} == {"CutlassSegmentGEMMSM90Run"}
