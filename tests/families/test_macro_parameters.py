"""FP4 launcher calls read by their macro's own parameter names: TensorRT-LLM's `(ARCH_, T, ...)`
and FlashInfer's `(T, ...)` under one name, and TensorRT-LLM's `_SM120` variant."""

from __future__ import annotations

from cutlint.families.base import Unreadable
from cutlint.families.macro_parameters import by_parameter_name
from cutlint.families.sm100_jit_gemm import model as sm100
from cutlint.families.sm120_fp4_gemm import model as sm120
from cutlint.producers.trtllm import fp4_gemm as trtllm_fp4

FP4 = "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER"
TRTLLM = ("ARCH_", "T", "CTA_M_", "CTA_N_", "CTA_K_", "CGA_M_", "CGA_N_", "CGA_K_", "XSM_")
FLASHINFER_SM120 = (
    "T",
    "CTA_M_",
    "CTA_N_",
    "CTA_K_",
    "CGA_M_",
    "CGA_N_",
    "CGA_K_",
    "XSM_",
    "SWAP_AB_",
)
CALL = ("Sm100", "__nv_bfloat16", "128", "64", "128", "1", "1", "1", "_1SM")


def test_trtllm_sm100_call_is_not_the_sm120_header() -> None:
    assert by_parameter_name(sm120.family_data(), FP4, TRTLLM, CALL) is None


def test_trtllm_sm100_call_reads_as_flashinfer_sm100() -> None:
    got = by_parameter_name(sm100.family_data(), FP4, TRTLLM, CALL)
    assert got == ("__nv_bfloat16", "128", "64", "128", "1", "1", "1", "_1SM")


def test_trtllm_sm103_call_is_the_sm103_ultra_recipe() -> None:
    """SMTypeAdapter<Sm103, XSM_> and MMA K = 3 x CTA_K_ (nvfp4_nvfp4_gemm_template_sm100.h):
    FlashInfer's SM103 ultra macro with CTA_K_ = 768, whose nvcc row it then matches."""
    call = ("Sm103", "__nv_bfloat16", "128", "128", "256", "1", "1", "1", "_1SM")
    got = by_parameter_name(sm100.family_data(), FP4, TRTLLM, call)
    assert isinstance(got, tuple)
    modeled_as, args = sm100.trtllm_reading(FP4, "Sm103", got)
    assert modeled_as == "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER"
    assert args == ("__nv_bfloat16", "128", "128", "768", "1", "1", "1", "_1SM_sm103")
    numbers = sm100.evaluate(modeled_as, args, trtllm_fp4.release("4.5.0"))
    assert not isinstance(numbers, str)
    assert (numbers.stage_count.stages, numbers.layout.size) == (6, 231040)
    # Sm100 reads as the SM100 macro itself
    assert sm100.trtllm_reading(FP4, "Sm100", got) == (None, got)


def test_trtllm_call_of_another_arch_is_an_input_diagnostic() -> None:
    got = by_parameter_name(sm100.family_data(), FP4, TRTLLM, ("Sm120", *CALL[1:]))
    assert isinstance(got, Unreadable)
    assert [code for code, _ in got.problems] == ["CUT005"]


def test_count_against_the_definition_is_cut004() -> None:
    got = by_parameter_name(sm100.family_data(), FP4, TRTLLM, CALL[:-1])
    assert isinstance(got, Unreadable)
    assert [code for code, _ in got.problems] == ["CUT004"]


def test_flashinfer_sm120_by_name_is_positional() -> None:
    args = ("half", "128", "128", "128", "1", "1", "1", "_1SM", "true")
    assert by_parameter_name(sm120.family_data(), FP4, FLASHINFER_SM120, args) == args
    # the SM100 family does not take a definition with SWAP_AB_
    assert by_parameter_name(sm100.family_data(), FP4, FLASHINFER_SM120, args) is None


def test_trtllm_sm120_variant_fills_the_missing_parameters() -> None:
    name = "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER_SM120"
    params = ("T", "CTA_M_", "CTA_N_", "CTA_K_", "CGA_M_", "CGA_N_", "CGA_K_")
    args = ("__nv_bfloat16", "256", "128", "128", "1", "1", "1")
    got = by_parameter_name(sm120.family_data(), name, params, args)
    assert got == (*args, "_1SM", "false")
    assert isinstance(sm120.tactic_of(name, got), sm120.Tactic)
    # not a FlashInfer release's header: its own recipe, on the build's CUTLASS
    assert "without the CUTLASS its build uses" in str(sm120.evaluate(name, got, "0.7.4"))
    numbers = sm120.evaluate(name, got, sm120.trtllm_release("4.5.0"))
    assert not isinstance(numbers, str)
    assert numbers.layout.size == 93184
    assert sm120.kernels_of(sm120.trtllm_release("4.5.0")) == ("default",)
    # FlashInfer's macro is never read with TensorRT-LLM's recipe
    assert isinstance(sm120.evaluate(FP4, (*got[:-1], "true"), sm120.trtllm_release("4.5.0")), str)


def test_trtllm_sm120_numbers_are_flashinfers_default_kernel_as_nvcc_laid_it_out() -> None:
    """TensorRT-LLM's `_SM120` struct is FlashInfer's default kernel (same builders, ElementC void,
    D row-major, StaticPersistentScheduler; LayoutC and the Sm12xOnly wrapper change no storage):
    on CUTLASS 4.5.0 its model equals nvcc's layout of FlashInfer 0.7.4's default kernel for the
    three tiles fp4_gemm_bf16.cu instantiates. A proxy: TensorRT-LLM's own header is not probed."""
    import json
    from pathlib import Path

    truth = Path(__file__).parents[1] / "data" / "nvcc_sm120_fp4_gemm_truth.json"
    rows = json.loads(truth.read_text())["rows"]
    name = "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER_SM120"
    for tile in (("128", "128", "128"), ("128", "128", "256"), ("256", "128", "128")):
        (row,) = [
            r
            for r in rows
            if r["version"] == "0.7.4"
            and r["label"] == "default"
            and r["args"] == ["__nv_bfloat16", *tile, "1", "1", "1", "_1SM", "false"]
        ]
        got = sm120.evaluate(
            name,
            ("__nv_bfloat16", *tile, "1", "1", "1", "_1SM", "false"),
            sm120.trtllm_release("4.5.0"),
        )
        assert not isinstance(got, str), got
        assert (got.layout.size, got.stage_count.stages) == (row["kernel_smem"], row["stages"])


def test_a_call_without_its_define_says_which_one_was_assumed() -> None:
    from cutlint.families.jit_module_family import KernelCallRecipe
    from cutlint.families.sm120_fp4_gemm import FAMILY

    args = ("half", "128", "128", "128", "1", "1", "1", "_1SM", "false")
    assumed = KernelCallRecipe(family=FAMILY.name, name=FP4, args=args)
    (field,) = FAMILY.inputs(assumed)
    assert "assumed (its #define was not found)" in field.source
    assert "XSM_, SWAP_AB_)" in field.source
    found = assumed.model_copy(update={"definition": "launchers.h:3"})
    assert "(launchers.h:3)" in FAMILY.inputs(found)[0].source
    # unset, the new fields leave the recipe's dump as it was (JSON output, result cache)
    assert set(assumed.model_dump()) == {"family", "name", "args", "release", "variant"}


def test_a_group_gemm_define_without_swap_ab_reads_as_swap_ab_false() -> None:
    """0.6.8rc1 - 0.6.10.post1's group_gemm_*_groupwise_sm120.cuh: 13 parameters, D row-major;
    found on a JIT module's include path, it reads as the 14-argument form with SwapAB false."""
    from cutlint.families.sm120_fp4_group_gemm import model as group

    name = "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120"
    params = ("TileM", "TileN", "TileK", "DTypeInA", "DTypeInB", "DTypeSFA", "DTypeSFB",
              "DTypeOut", "DTypeInAName", "DTypeInBName", "DTypeSFAName", "DTypeSFBName",
              "DTypeOutName")  # fmt: skip
    args = ("128", "128", "128", "e4m3", "e2m1", "ue8m0", "ue8m0", "bf16", "a", "b", "c", "d", "e")
    got = by_parameter_name(group.family_data(), name, params, args)
    assert got == (*args[:3], "false", *args[3:])


def test_the_mxfp8_define_without_swap_ab_reads_as_swap_ab_false() -> None:
    """0.6.8.post1's mxfp8_gemm_template_sm120.h: (T, CTA_M_, CTA_N_, CTA_K_), LayoutC RowMajor."""
    from cutlint.families.sm120_mxfp8_gemm import model as mxfp8

    name = "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120"
    got = by_parameter_name(
        mxfp8.family_data(),
        name,
        ("T", "CTA_M_", "CTA_N_", "CTA_K_"),
        ("half", "128", "256", "128"),
    )
    assert got == ("half", "128", "256", "128", "false")
