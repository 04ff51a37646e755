"""The SM90 TMA WS grouped model against the compiler: every row of
tests/data/nvcc_sm90_truth.json, obtained from nvcc on FlashInfer's real generated gemm_grouped/90
files (tests/tools/make_nvcc_sm90_truth.py), byte for byte; the fixtures' model lines; the
launcher's limits (tactic_of); one end-to-end nvcc probe (`compiler`), all files (`slow`)."""

from __future__ import annotations

import dataclasses
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm90_tma_ws_grouped import model as sm90
from cutlint.families.sm90_tma_ws_grouped.truth import CUTLASS, cutlass_of, extents, modeled
from cutlint.families.sm90_tma_ws_grouped.truth import tactic as truth_of_args
from cutlint.records import ElementType, Fusion, MoeGemmArgs, Shape3
from cutlint.testing.truth import read_truth, rows

DATA = Path(__file__).parents[1] / "data"
OPTIN = (
    232448  # sm_90 opt-in shared memory per block (cutlass/arch/arch.h: sm90_smem_capacity_bytes)
)


@cache
def truth() -> tuple[dict[str, Any], ...]:
    return tuple(rows("sm90-tma-ws-grouped"))


def tactic(args: list[str]) -> sm90.Tactic:
    t = truth_of_args(args)
    assert isinstance(t, sm90.Tactic), t
    return t


def test_truth_covers_three_releases() -> None:
    counts = {v: sum(1 for r in truth() if r["version"] == v) for v in CUTLASS}
    assert counts == {"0.6.3": 360, "0.7.2.post1": 360, "0.7.4": 360}
    # the probe reports every member (the comparison: tests/families/test_truth.py)
    assert all(len(r["members"]) >= 40 for r in truth())


def test_releases_agree() -> None:
    """The three releases generate the same 360 instantiations and nvcc lays them out alike: the
    SM90 code involved did not change between CUTLASS 4.2.1 and 4.5.0."""
    by_version: dict[str, dict[tuple[str, ...], dict[str, Any]]] = {}
    for r in truth():
        keep = {k: v for k, v in r.items() if k not in ("version", "file", "line")}
        by_version.setdefault(r["version"], {})[tuple(r["args"])] = keep
    assert by_version["0.6.3"] == by_version["0.7.2.post1"] == by_version["0.7.4"]


def test_limit_and_slack() -> None:
    """No generated tactic needs more than sm_90's 232,448 B; 60 of the 360 (all f32) need exactly
    that: the builder's 232,064 B budget rounded up to the epilogue's 1024 alignment (227 KiB)."""
    assert max(r["kernel_smem"] for r in truth()) == OPTIN
    full = [r for r in truth() if r["kernel_smem"] == OPTIN]
    assert len(full) == 3 * 60
    assert {r["args"][1] for r in full} == {"float"}


# --- the launcher's limits -------------------------------------------------------------------


def args_with(**change: Any) -> MoeGemmArgs:
    base = MoeGemmArgs(
        arch_tag="Sm90", sm=90, act_type=ElementType.F16, weight_type=ElementType.F16,
        output_type=ElementType.F16, epilogue_schedule="void", epilogue_tag="EpilogueOpDefault",
        fusion=Fusion.NONE, cta_tile=Shape3(m=128, n=128, k=64), cluster=Shape3(m=1, n=1, k=1),
        mxfpx=False, dynamic_cga=False, bias=False, swap_ab=False,
    )  # fmt: skip
    return base.model_copy(update=change)


@pytest.mark.parametrize(
    "change,reason",
    [
        ({"sm": 120, "arch_tag": "Sm120"}, "models Sm90"),
        ({"act_type": ElementType.E2M1, "weight_type": ElementType.E2M1}, "fp4"),
        ({"weight_type": ElementType.E2M1}, "mixed input"),
        ({"mxfpx": True}, "Blackwell only"),
        ({"dynamic_cga": True}, "static cluster"),
        ({"fusion": Fusion.ACTIVATION}, "SM10x"),
        ({"epilogue_tag": "EpilogueOpDefaultSilu"}, "EpilogueOpDefault"),
        ({"cta_tile": Shape3(m=64, n=128, k=64)}, "multiple of 128"),
        ({"act_type": None}, "does not know"),
    ],
)
def test_outside_the_model(change: dict[str, Any], reason: str) -> None:
    got = sm90.tactic_of(args_with(**change))
    assert isinstance(got, str) and reason in got


def test_tactic_of_fp8() -> None:
    t = sm90.tactic_of(
        args_with(
            act_type=ElementType.E4M3,
            weight_type=ElementType.E4M3,
            cta_tile=Shape3(m=128, n=256, k=128),
        )
    )
    assert isinstance(t, sm90.Tactic)
    assert (t.operand_bits, t.output_bits, t.fp8_fast_accum) == (8, 16, True)


def test_launch_configuration() -> None:
    """384 threads (two MMA warp groups and one load warp group), 40 / 232 registers per thread
    (128 x 40 + 256 x 232 = 64,512 of 65,536), 5 tensormaps (A, B, C, two D)."""
    t = sm90.tactic_of(args_with())
    assert isinstance(t, sm90.Tactic)
    plan = sm90.register_plan(t)
    assert sm90.max_threads_per_block(t) == 384
    assert (plan.reconfigured, plan.block_registers, plan.accumulator_registers) == (
        True,
        64512,
        128,
    )
    assert sm90.tma_descriptors(t) == 5


def test_stage_budget_terms() -> None:
    """The builder's arithmetic for 128x16x64 f16, NONE, SwapAB on (12 stages, compiler-confirmed):
    (232,448 - 256 - 128 - 6,144) / (16,384 + 2,048 + 16) = 12."""
    t = sm90.tactic_of(args_with(cta_tile=Shape3(m=128, n=16, k=64), swap_ab=True))
    assert isinstance(t, sm90.Tactic)
    sc = sm90.stage_count(t, cutlass_of("0.7.4"))
    assert (sc.carveout, sc.stage_bytes, sc.stage_budget, sc.stages) == (6144, 18448, 225920, 12)


# --- the compiler, end to end ----------------------------------------------------------------

ONE_FILE = "cutlass_kernel_file_gemm_grouped_sm90_M128_group0.generated.cu"


@pytest.fixture(scope="module")
def sm90_cache(flashinfer_root: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cutlint.producers.flashinfer.wheel import generate_cache

    made: dict[str, Path] = {}
    base = tmp_path_factory.mktemp("jit-cache-sm90")

    def get(version: str) -> Path:
        if version not in made:
            made[version] = generate_cache(flashinfer_root(version), version, base, sm=90)
        return made[version]

    return get


def probe_and_compare(path: Path, root: Path, version: str, work: Path) -> int:
    from cutlint.verify.nvcc_probe import run_probe

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH")
    run = run_probe(path, root, nvcc, workdir=work, keep_build=False)
    assert run.rows
    for r in run.rows:
        got = modeled(tactic(list(r.args)), cutlass_of(version))
        want = {k: getattr(r, k) for k in got}
        assert got == want, f"{path.name}:{r.line}"
    return len(run.rows)


@pytest.mark.compiler
def test_one_file_through_nvcc(sm90_cache: Any, flashinfer_root: Any, tmp_path: Path) -> None:
    """0.6.3's M128_group0 (128x16 and 128x32, f16, NONE): 8 of 8 equal to the model."""
    path = sm90_cache("0.6.3") / ONE_FILE
    assert probe_and_compare(path, flashinfer_root("0.6.3"), "0.6.3", tmp_path) == 8


@pytest.mark.slow
@pytest.mark.parametrize("version", list(CUTLASS))
def test_every_sm90_file_through_nvcc(
    version: str, sm90_cache: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    """All 45 files of a release (360 instantiations); about 1.5-3 minutes a file."""
    from cutlint.verify.probe_output import moe_macro_calls as find_macro_calls

    files = [
        p
        for p in sorted(sm90_cache(version).glob("*.generated.cu"))
        if any(c.args[0].strip() == "Sm90" for c in find_macro_calls(p.read_text()))
    ]
    assert len(files) == 45
    total = sum(probe_and_compare(p, flashinfer_root(version), version, tmp_path) for p in files)
    assert total == 360


def test_every_generated_tactic_is_dispatched() -> None:
    """FlashInfer's generator emits only tiles and clusters its SM90 dispatch can select."""
    assert all(sm90.dispatch_supported(tactic(r["args"])) for r in truth())


@pytest.mark.parametrize(
    "tile,cluster,supported",
    [
        ((128, 16, 64), (2, 1, 1), True),
        ((128, 16, 64), (1, 2, 1), False),  # are_tile_shapes_supported: 1x2 needs N >= 128
        ((128, 128, 128), (2, 2, 1), False),  # f16 K = 128 elements is 256 B: no SHAPE_CASE
        ((128, 48, 64), (1, 1, 1), False),  # modeled, but no SHAPE_CASE(90, 128, 48, 128)
    ],
)
def test_dispatch(
    tile: tuple[int, int, int], cluster: tuple[int, int, int], supported: bool
) -> None:
    t = sm90.tactic_of(
        args_with(
            cta_tile=Shape3(m=tile[0], n=tile[1], k=tile[2]),
            cluster=Shape3(m=cluster[0], n=cluster[1], k=cluster[2]),
        )
    )
    assert isinstance(t, sm90.Tactic), t
    assert sm90.dispatch_supported(t) is supported


# --- both schedules (tests/tools/sm90_schedules_probe.cu) ------------------------------------

SCHEDULE_CASES = {
    "pingpong f16 128x128x64": ("half", "half", (128, 128, 64), sm90.Schedule.PINGPONG, False),
    "pingpong f16 128x128x64 swap": ("half", "half", (128, 128, 64), sm90.Schedule.PINGPONG, True),
    "pingpong f16 64x256x64": ("half", "half", (64, 256, 64), sm90.Schedule.PINGPONG, False),
    "pingpong e4m3 bf16 128x16x128": (
        "__nv_fp8_e4m3",
        "__nv_bfloat16",
        (128, 16, 128),
        sm90.Schedule.PINGPONG,
        False,
    ),
    "cooperative f16 128x128x64": (
        "half",
        "half",
        (128, 128, 64),
        sm90.Schedule.COOPERATIVE,
        False,
    ),
}


@cache
def schedules_truth() -> tuple[dict[str, Any], ...]:
    return tuple(read_truth(DATA / "nvcc_sm90_schedules_truth.json")["rows"])


@pytest.mark.parametrize("index", range(len(SCHEDULE_CASES)))
def test_both_schedules_equal_compiler(index: int) -> None:
    """The pingpong shell (math warp-group order barrier OrderedSequenceBarrier<2,2>, a 64-row
    epilogue tile, one 128-thread TiledMma) equals nvcc's numbers, as does the cooperative one
    built outside the launcher."""
    row = schedules_truth()[index]
    act, out, (m, n, k), schedule, swap = SCHEDULE_CASES[row["label"]]
    # tactic_of builds only what the launcher builds (cooperative, M a multiple of 128); the
    # schedule and a 64-row pingpong tile are set on its result.
    m_launcher = str(max(m, 128))
    head = ["Sm90", act, act, out, "void", "EpilogueOpDefault", "NONE"]
    tile = [m_launcher, str(n), str(k), "1", "1", "1"]
    base = tactic([*head, *tile, "false", "false", "false", str(swap).lower()])
    t = dataclasses.replace(base, tile=Shape3(m=m, n=n, k=k), schedule=schedule)
    cutlass = cutlass_of("0.7.4")
    got = modeled(t, cutlass)
    assert got == {key: row[key] for key in got}
    stages = got["stages"]
    pipelines = extents(sm90.kernel_shared_storage(t, stages, cutlass))["pipelines"]
    assert pipelines[1] == row["pipelines"]
