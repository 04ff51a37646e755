"""The cutlass2-blas3 and cutlass2-gemm-planar-complex families: what they claim from the source,
what they leave "not modeled" (with the reason), and what cannot run on the target at all."""

from __future__ import annotations

from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.base import CannotRun, Unreadable
from cutlint.families.cutlass2_blas3 import FAMILY as BLAS3
from cutlint.families.cutlass2_blas3.family import Cutlass2Blas3Recipe
from cutlint.families.cutlass2_gemm_planar_complex import FAMILY as PLANAR
from cutlint.families.registry import claim
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source
from cutlint.records import Instantiation

# cutlass_library's d884syrk_128x128_16x3_n_l (rank_k/80/d884syrk)
RANK_K = """
using Operation_k =
  typename cutlass::gemm::device::RankK<
    double, cutlass::layout::ColumnMajor,
    double, cutlass::layout::ColumnMajor, cutlass::FillMode::kLower,
    double,
    {opclass},
    cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 16>,
    cutlass::gemm::GemmShape<32, 64, 16>,
    cutlass::gemm::GemmShape<8, 8, 4>,
    cutlass::epilogue::thread::LinearCombination<double, 1, double, double>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>,
    {stages},
    1,
    false,
    cutlass::arch::OpMultiplyAdd
>;
"""
TENSOR_OP = "cutlass::arch::OpClassTensorOp"

# cutlass_library's h16816gemm_planar_complex_64x128_32x3_cc (gemm/80/h16816gemm_planar_complex)
PLANAR_COMPLEX = """
using Operation_p = typename cutlass::gemm::kernel::DefaultGemmPlanarComplexUniversal<
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::ComplexTransform::kConjugate, 8,
    cutlass::half_t, cutlass::layout::RowMajor, cutlass::ComplexTransform::kConjugate, 8,
    cutlass::half_t, cutlass::layout::RowMajor,
    cutlass::half_t,
    cutlass::arch::OpClassTensorOp,
    cutlass::arch::{arch},
    cutlass::gemm::GemmShape<64, 128, 32>,
    cutlass::gemm::GemmShape<32, 32, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombinationPlanarComplex<
      cutlass::half_t, 8, cutlass::half_t, cutlass::half_t>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>,
    3,
    cutlass::arch::OpMultiplyAdd
  >::{member};
"""


def ctx(arch: str = "sm_120") -> ModelContext:
    return ModelContext(arch=arch_for(arch), cutlass=cutlass_model(parse_version("4.2.0"), "test"))


def instantiation(text: str) -> Instantiation:
    found = parse_source("k.cu", text.encode()).instantiations
    assert len(found) == 1, found
    return found[0]


def test_the_registry_gives_the_device_types_and_planar_complex_to_these_families() -> None:
    owner = claim(instantiation(RANK_K.format(opclass=TENSOR_OP, stages=3)), ctx())
    assert owner is not None and owner[0] is BLAS3
    for member in ("GemmKernel", "GemmArrayKernel"):
        text = PLANAR_COMPLEX.format(arch="Sm80", member=member)
        owner = claim(instantiation(text), ctx())
        assert owner is not None and owner[0] is PLANAR


def test_a_rank_k_is_modeled_on_sm120_and_its_own_arch() -> None:
    r = BLAS3.claim(instantiation(RANK_K.format(opclass=TENSOR_OP, stages=3)), ctx())
    assert isinstance(r, Cutlass2Blas3Recipe) and r.template.endswith("::RankK")
    assert BLAS3.covers(r, ctx()) is None
    res = BLAS3.resources(r, ctx())
    # (128 + 128) x 48 x 8 B of operand tiles; DefaultEpilogueTensorOpBlas3 pads 64 / 64 * 4 columns
    assert (res.layout.size, res.layout.epilogue_size) == (98304, 33792)
    assert BLAS3.covers(r, ctx("sm_80")) is None and not isinstance(
        BLAS3.covers(r, ctx("sm_90")), CannotRun
    )


def test_what_is_outside_the_model_says_why() -> None:
    simt = BLAS3.claim(
        instantiation(RANK_K.format(opclass="cutlass::arch::OpClassSimt", stages=3)), ctx()
    )
    assert simt is not None and not isinstance(simt, Unreadable)
    assert BLAS3.covers(simt, ctx()) == "OpClassSimt BLAS-3 kernels are not modeled (TensorOp is)"
    two = BLAS3.claim(instantiation(RANK_K.format(opclass=TENSOR_OP, stages=2)), ctx())
    assert two is not None and not isinstance(two, Unreadable)
    reason = BLAS3.covers(two, ctx())
    assert reason == "Stages = 2: only the multistage (3 or more) Sm80 mainloops are modeled"
    volta = PLANAR.claim(
        instantiation(PLANAR_COMPLEX.format(arch="Sm70", member="GemmKernel")), ctx()
    )
    assert volta is not None and not isinstance(volta, Unreadable)
    assert PLANAR.covers(volta, ctx()) == (
        "planar-complex kernels of ArchTag Sm70 are not modeled (Sm75, Sm80 are)"
    )


def test_a_non_literal_stage_count_is_unreadable() -> None:
    got = BLAS3.claim(instantiation(RANK_K.format(opclass=TENSOR_OP, stages="kStages")), ctx())
    assert isinstance(got, Unreadable) and got.problems[0][0] == "CUT005"
