"""A TU kernel's builder chain, as clang resolved it, claimed by a family and modeled beside the
measurement (engine/tu_model.py, parse/tu/forms.py). The spellings are libclang's canonical ones
for vLLM 0.34.0's `sm120_blockwise_fp8_config_*` (CUTLASS 4.5.0 headers); the measured numbers are
clang's and nvcc's (docs/tu.md, tests/data/nvcc_tu_vllm_truth.json)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.engine.tu_model import model
from cutlint.parse.tu.forms import instantiation, shape
from cutlint.tu_records import CallSite, CompileCommand, TuBuilt, TuKernel, TuRead

_SFA = (
    "cute::Layout<cute::tuple<cute::tuple<cute::C<1>, int>, cute::tuple<cute::C<128>, int>, int>,"
    " cute::tuple<cute::tuple<cute::C<0>, cute::C<1>>, cute::tuple<cute::C<0>, int>, int>>"
)
_SFB = (
    "cute::Layout<cute::tuple<cute::tuple<cute::C<128>, int>, cute::tuple<cute::C<128>, int>,"
    " int>, cute::tuple<cute::tuple<cute::C<0>, int>, cute::tuple<cute::C<0>, cute::C<1>>, int>>"
)


def _mainloop(tile: str, carveout: int, schedule: str) -> str:
    return (
        "cutlass::gemm::collective::CollectiveBuilder<cutlass::arch::Sm120,"
        " cutlass::arch::OpClassTensorOp, cutlass::float_e4m3_t,"
        f" cute::tuple<cutlass::layout::RowMajor, {_SFA}>, 16, cutlass::float_e4m3_t,"
        f" cute::tuple<cutlass::layout::ColumnMajor, {_SFB}>, 16, float, {tile},"
        " cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>,"
        f" cutlass::gemm::collective::StageCountAutoCarveout<{carveout}>, {schedule}>"
    )


def _epilogue(tile: str) -> str:
    # clang leaves out FusionOpOrCallbacks: vLLM's LinearCombination is the default one
    return (
        "cutlass::epilogue::collective::CollectiveBuilder<cutlass::arch::Sm120,"
        f" cutlass::arch::OpClassTensorOp, {tile}, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>,"
        " cutlass::epilogue::collective::EpilogueTileAuto, float, float, void,"
        " cutlass::layout::RowMajor, 8, cutlass::bfloat16_t, cutlass::layout::RowMajor, 8,"
        " cutlass::epilogue::collective::EpilogueScheduleAuto>"
    )


def _kernel(built: TuBuilt | None, smem: int, stages: int) -> TuKernel:
    site = CallSite(path="/x/scaled_mm_blockwise_sm120_fp8_dispatch.cuh", line=265, call="f<G>()")
    return TuKernel(
        paths=((site,),),
        type_expr="G",
        kernel_type="K",
        shared_storage=smem,
        stages=stages,
        tile=None,
        cluster=None,
        dispatch_policy=None,
        elements=None,
        max_threads=None,
        built=built,
    )


def _read(*kernels: TuKernel, include: str) -> TuRead:
    command = CompileCommand(file="/x/a.cu", args=(f"-I{include}",), arches=(), origin="flags")
    return TuRead(command=command, arch="sm_120a", kernels=kernels, missing_headers=(), seconds=0.0)


PINGPONG = TuBuilt(
    mainloop_builder=_mainloop(
        "cute::tuple<cute::C<64>, cute::C<128>, cute::C<128>>",
        9216,
        "cutlass::gemm::KernelTmaWarpSpecializedBlockwisePingpongSm120",
    ),
    epilogue_builder=_epilogue("cute::tuple<cute::C<64>, cute::C<128>, cute::C<128>>"),
    problem_shape="cute::tuple<int, int, int, int>",
    tile_scheduler="void",
    scale_granularity=(1, 128, 128),
)


@pytest.fixture
def cutlass_4_5_include(tmp_path: Path) -> str:
    """An include directory whose cutlass/version.h says 4.5.0: the release the model is for."""
    (tmp_path / "cutlass").mkdir()
    (tmp_path / "cutlass" / "version.h").write_text(
        "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 5\n#define CUTLASS_PATCH 0\n"
    )
    return str(tmp_path)


def test_shape_is_written_as_a_chain_writes_it() -> None:
    assert (
        shape("cute::tuple<cute::C<64>, cute::C<128>, int>")
        == "cute::Shape<cute::_64, cute::_128, int>"
    )


def test_the_chain_carries_the_scale_config() -> None:
    inst = instantiation(_kernel(PINGPONG, 84992, 3))
    assert inst is not None
    config = inst.alias("ScaleConfig")
    assert config is not None and config.args == ("1", "128", "128")
    ml = inst.alias("CollectiveMainloop")
    assert ml is not None and ml.args is not None
    assert ml.args[3] == "cute::tuple<cutlass::layout::RowMajor, LayoutSFA>"


def test_no_builders_no_form() -> None:
    assert instantiation(_kernel(None, 1024, 2)) is None


def test_modeled_by_the_sm120_family_equals_the_measured_layout(cutlass_4_5_include: str) -> None:
    (m,) = model(_read(_kernel(PINGPONG, 84992, 3), include=cutlass_4_5_include))
    assert m is not None and m.family == "sm120-collective-builder", m
    assert m.reason is None, m.reason
    assert (m.shared_storage, m.stages) == (84992, 3)
    assert m.equals(_kernel(PINGPONG, 84992, 3))
    assert not m.equals(_kernel(PINGPONG, 84993, 3))  # a mismatch is said, never hidden
    assert {p.name for p in m.parts} >= {"tensors.mainloop", "tensors.epilogue", "pipelines"}


def test_unclaimed_kernel_stays_measured(cutlass_4_5_include: str) -> None:
    assert model(_read(_kernel(None, 1024, 2), include=cutlass_4_5_include)) == [None]


def test_blockwise_with_kernel_schedule_auto_is_the_cooperative_one(
    cutlass_4_5_include: str,
) -> None:
    """vLLM's sm120_blockwise_fp8_config_default: KernelScheduleAuto with scale layouts is the
    blockwise builder's, cooperative (77,824 B, 2 stages: clang and nvcc)."""
    tile = "cute::tuple<cute::C<128>, cute::C<128>, cute::C<128>>"
    auto = "cutlass::gemm::collective::KernelScheduleAuto"
    built = PINGPONG.model_copy(
        update={
            "mainloop_builder": _mainloop(tile, 9216, auto),
            "epilogue_builder": _epilogue(tile),
        }
    )
    kernel = _kernel(built, 77824, 2)
    (m,) = model(_read(kernel, include=cutlass_4_5_include))
    assert m is not None and m.reason is None, m
    assert m.equals(kernel)


_W4A8_A = (
    "cute::Layout<cute::tuple<cute::tuple<cute::tuple<cute::tuple<cute::C<8>, cute::C<2>>,"
    " cute::C<1>>, int>, cute::tuple<cute::tuple<cute::tuple<cute::C<4>, cute::C<4>, cute::C<2>>,"
    " cute::C<1>>, int>, cute::tuple<cute::C<1>, int>>, cute::tuple<cute::tuple<cute::tuple<"
    "cute::tuple<cute::C<64>, cute::C<4>>, cute::C<0>>, cute::C<512>>, cute::tuple<cute::tuple<"
    "cute::tuple<cute::C<1>, cute::C<16>, cute::C<8>>, cute::C<0>>, int>, cute::tuple<cute::C<0>,"
    " int>>>"
)
"""vLLM 0.34.0's W4A8 `LayoutB_Reordered` (tile_to_shape of the int4 reordering atom over a
`TagToStrideB_t<ColumnMajor>` stride) as clang spells it: mode 1's stride begins with 1, K-major."""


def test_a_w4a8_mainloop_is_written_as_cutlass_librarys_reordered_chain() -> None:
    """clang's `integer_subbyte<4>` is `int4b_t`, and the reordered cute layout of the narrow
    operand is the `_shfl` chain sm90-collective-builder reads (its stride's majorness only)."""
    ml = (
        "cutlass::gemm::collective::CollectiveBuilder<cutlass::arch::Sm90,"
        " cutlass::arch::OpClassTensorOp, cute::tuple<cutlass::integer_subbyte<4>,"
        f" cutlass::Array<cutlass::float_e4m3_t, 8>>, {_W4A8_A}, 32, cutlass::float_e4m3_t,"
        " cutlass::layout::ColumnMajor, 16, float, cute::tuple<cute::C<128>, cute::C<64>,"
        " cute::C<128>>, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>,"
        " cutlass::gemm::collective::StageCountAutoCarveout<18432>,"
        " cutlass::gemm::KernelTmaWarpSpecializedCooperative>"
    )
    ep = (
        "cutlass::epilogue::collective::CollectiveBuilder<cutlass::arch::Sm90,"
        " cutlass::arch::OpClassTensorOp, cute::tuple<cute::C<128>, cute::C<64>, cute::C<128>>,"
        " cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>,"
        " cutlass::epilogue::collective::EpilogueTileAuto, float, float, cutlass::bfloat16_t,"
        " cutlass::layout::ColumnMajor, 8, cutlass::bfloat16_t, cutlass::layout::ColumnMajor, 8,"
        " cutlass::epilogue::TmaWarpSpecializedCooperative>"
    )
    built = TuBuilt(
        mainloop_builder=ml,
        epilogue_builder=ep,
        problem_shape="cute::tuple<int, int, int, int>",
        tile_scheduler=None,
    )
    inst = instantiation(_kernel(built, 0, 0))
    assert inst is not None
    mainloop = inst.alias("CollectiveMainloop")
    assert mainloop is not None and mainloop.args is not None
    assert (
        mainloop.args[2]
        == "cute::tuple<cutlass::int4b_t, cutlass::Array<cutlass::float_e4m3_t, 8>>"
    )
    assert mainloop.args[3] == "LayoutA_Reordered"
    stride = inst.alias("StrideA_Reordered")
    assert stride is not None and stride.args == ("cutlass::layout::RowMajor",)
    layout = inst.alias("LayoutA_Reordered")
    assert layout is not None and "tile_to_shape" in layout.target


def test_each_padding_is_its_own_part() -> None:
    """A ptr-array shell pads before its tensormaps and again before its tensors: two lines, not
    one span over the tensormaps between them (SGLang's MXFP8 grouped GEMM: 44 B at 852, 640 B
    at 3,456)."""
    from types import SimpleNamespace

    from cutlint.engine.tu_model import parts

    regions = [
        SimpleNamespace(name=n, offset=o, size=z)
        for n, o, z in (
            ("tmem_base_ptr", 848, 4),
            ("(padding)", 852, 44),
            ("tensormaps", 896, 2560),
            ("(padding)", 3456, 640),
            ("tensors.epilogue.collective", 4096, 16384),
        )
    ]
    got = parts(SimpleNamespace(layout=SimpleNamespace(regions=regions)))  # type: ignore[arg-type]
    assert [(p.name, p.offset, p.size) for p in got] == [
        ("tmem_base_ptr", 848, 4),
        ("(padding)", 852, 44),
        ("tensormaps", 896, 2560),
        ("(padding)", 3456, 640),
        ("tensors.epilogue", 4096, 16384),
    ]


def test_fixed_width_elements_written_as_a_chain_writes_them() -> None:
    """clang's canonical `signed char` / `int` are `int8_t` / `int32_t` in the chain the families
    read (SGLang's convrot_int8 SM100 kernels: int8 x int8 accumulating in int32), and only in the
    builders' element arguments: the problem shape keeps its `int`s."""
    ml = (
        "cutlass::gemm::collective::CollectiveBuilder<cutlass::arch::Sm100,"
        " cutlass::arch::OpClassTensorOp, signed char, cutlass::layout::RowMajor, 16, signed char,"
        " cutlass::layout::ColumnMajor, 16, int, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128>>,"
        " cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>,"
        " cutlass::gemm::collective::StageCountAutoCarveout<17408>,"
        " cutlass::gemm::collective::KernelScheduleAuto>"
    )
    ep = (
        "cutlass::epilogue::collective::CollectiveBuilder<cutlass::arch::Sm100,"
        " cutlass::arch::OpClassTensorOp, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128>>,"
        " cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>,"
        " cutlass::epilogue::collective::EpilogueTileAuto, int, float, cutlass::bfloat16_t,"
        " cutlass::layout::RowMajor, 8, cutlass::bfloat16_t, cutlass::layout::RowMajor, 8,"
        " cutlass::epilogue::collective::EpilogueScheduleAuto>"
    )
    built = TuBuilt(
        mainloop_builder=ml,
        epilogue_builder=ep,
        problem_shape="cute::tuple<int, int, int, int>",
        tile_scheduler="void",
    )
    inst = instantiation(_kernel(built, 230_400, 13))
    assert inst is not None
    mainloop = next(a for a in inst.chain if a.name == "CollectiveMainloop")
    epilogue = next(a for a in inst.chain if a.name == "CollectiveEpilogue")
    assert mainloop.args is not None and epilogue.args is not None
    assert (mainloop.args[2], mainloop.args[5], mainloop.args[8]) == ("int8_t", "int8_t", "int32_t")
    assert (epilogue.args[5], epilogue.args[6]) == ("int32_t", "float")
    assert inst.args[0] == "cute::Shape<int, int, int, int>"
