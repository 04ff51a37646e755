"""The cutlass2-gemm-universal family: what it claims, what it leaves "not modeled", the launch
verdict on sm_120, and cutlass_library's own estimate beside the layout."""

from __future__ import annotations

from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.base import CannotRun, Unreadable
from cutlint.families.cutlass2_gemm_universal import FAMILY, model
from cutlint.families.cutlass2_gemm_universal.family import Cutlass2GemmUniversalRecipe
from cutlint.families.registry import claim
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source
from cutlint.records import Instantiation

# cutlass_library's c1688tf32gemm_128x128_16x4_nn (gemm/80/c1688tf32gemm): complex<float>, 4 stages
COMPLEX_TF32 = """
using k_base =
  typename cutlass::gemm::kernel::DefaultGemmUniversal<
    cutlass::complex<float>, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, 1,
    cutlass::complex<float>, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, 1,
    cutlass::complex<float>, cutlass::layout::RowMajor,
    cutlass::complex<float>,
    cutlass::arch::OpClassTensorOp,
    cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 16>,
    cutlass::gemm::GemmShape<64, 32, 16>,
    cutlass::gemm::GemmShape<16, 8, 8>,
    cutlass::epilogue::thread::LinearCombination<
      cutlass::complex<float>, 1, cutlass::complex<float>, cutlass::complex<float> >,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>,
    {stages},
    cutlass::arch::OpMultiplyAddComplex
>::GemmKernel;
"""


def ctx(arch: str = "sm_120") -> ModelContext:
    return ModelContext(arch=arch_for(arch), cutlass=cutlass_model(parse_version("4.2.0"), "test"))


def instantiation(text: str) -> Instantiation:
    found = parse_source("k.cu", text.encode()).instantiations
    assert len(found) == 1, found
    return found[0]


def recipe(text: str) -> Cutlass2GemmUniversalRecipe:
    got = FAMILY.claim(instantiation(text), ctx())
    assert isinstance(got, Cutlass2GemmUniversalRecipe), got
    return got


def test_the_registry_gives_default_gemm_universal_to_this_family() -> None:
    owner = claim(instantiation(COMPLEX_TF32.format(stages=4)), ctx())
    assert owner is not None and owner[0] is FAMILY


def test_recipe_is_typed_from_the_template_arguments() -> None:
    r = recipe(COMPLEX_TF32.format(stages=4))
    assert (r.kernel, r.stages, r.arch_tag, str(r.threadblock), str(r.warp)) == (
        "k_base",
        4,
        80,
        "128x128x16",
        "64x32x16",
    )
    assert r.opclass == model.TENSOR_OP and r.math_op.endswith("OpMultiplyAddComplex")


def test_four_stages_need_131072_bytes_and_fail_on_sm_120() -> None:
    r = recipe(COMPLEX_TF32.format(stages=4))
    assert FAMILY.covers(r, ctx()) is None
    res = FAMILY.resources(r, ctx())
    # A and B: 128 x 16 x 4 complex<float> each (8 B); the epilogue 16,384 B is smaller
    assert (res.layout.size, res.layout.mainloop_size, res.layout.epilogue_size) == (
        131072,
        131072,
        16384,
    )
    assert res.max_threads_per_block == 256 and res.stage_count.fixed
    assert res.layout.size > arch_for("sm_120").smem_optin
    assert [(v.stages, v.smem_bytes, v.fits) for v in res.variants] == [(3, 98304, True)]
    # cutlass_library's CalculateSmemUsage counts the same A + B tiles: 128 KiB
    facts = FAMILY.facts(r, res)
    assert facts["cutlass2.library_estimate"] == 131072
    assert facts["cutlass2.library_undercount"] == 0


def test_a_kernel_is_not_judged_for_an_older_arch() -> None:
    r = recipe(COMPLEX_TF32.format(stages=4).replace("Sm80", "Sm86"))
    reason = FAMILY.covers(r, ctx("sm_80"))
    assert isinstance(reason, CannotRun) and reason == "an Sm86 kernel does not run on sm_80"


def test_unread_stages_is_an_input_problem() -> None:
    got = FAMILY.claim(instantiation(COMPLEX_TF32.format(stages="kStages")), ctx())
    assert isinstance(got, Unreadable) and got.problems[0][0] == "CUT005"


def test_other_members_and_templates_are_not_claimed() -> None:
    text = COMPLEX_TF32.format(stages=4).replace(">::GemmKernel;", ">::Epilogue;")
    parsed = parse_source("k.cu", text.encode()).instantiations
    assert all(FAMILY.claim(i, ctx()) is None for i in parsed)


def test_an_unchecked_operator_class_is_not_modeled() -> None:
    text = COMPLEX_TF32.format(stages=2).replace("OpClassTensorOp", "OpClassWmmaTensorOp")
    reason = FAMILY.covers(recipe(text), ctx())
    assert reason is not None and "OpClassWmmaTensorOp" in reason
    sm70 = COMPLEX_TF32.format(stages=2).replace("Sm80", "Sm70")
    assert FAMILY.covers(recipe(sm70), ctx()) == (
        "complex tensor-op kernels of ArchTag Sm70 are not modeled"
    )
    sm86 = COMPLEX_TF32.format(stages=2).replace("Sm80", "Sm86")
    assert "ArchTag Sm86 are not modeled" in str(FAMILY.covers(recipe(sm86), ctx()))


def test_an_epilogue_op_the_model_does_not_read_is_not_modeled_not_an_input_problem() -> None:
    text = COMPLEX_TF32.format(stages=3).replace(
        "cutlass::epilogue::thread::LinearCombination<",
        "cutlass::epilogue::thread::LinearCombinationGeneric< cutlass::epilogue::thread::ReLu,",
    )
    reason = FAMILY.covers(recipe(text), ctx())
    assert reason is not None and "EpilogueOutputOp" in reason


HAND_WRITTEN = """
using ElementA = cutlass::half_t;
using Element = ElementA;
using TB = cutlass::gemm::GemmShape<128, 128, 32>;
using Kernel = typename cutlass::gemm::kernel::DefaultGemmUniversal<
    Element, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, 8,
    Element, cutlass::layout::ColumnMajor, cutlass::ComplexTransform::kNone, 8,
    Element, cutlass::layout::RowMajor, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    TB, cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<Element, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, 3,
    cutlass::arch::OpMultiplyAdd>::GemmKernel;
"""


def test_a_hand_written_chain_reads_through_its_aliases() -> None:
    r = recipe(HAND_WRITTEN)
    assert (r.element_a, str(r.threadblock)) == ("cutlass::half_t", "128x128x32")
    assert (
        r.args[16]
        == "cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, float, float>"
    )
    res = FAMILY.resources(r, ctx())
    # A and B 128 x 32 x 3 half_t; the epilogue (half_t out of float, 8 per access: 2 fragments)
    # 2 x (2 x 8 + 0) x (2 x 64 + 8) x 4 B = 17,408 B is smaller
    assert (res.layout.size, res.layout.epilogue_size) == (49152, 17408)
