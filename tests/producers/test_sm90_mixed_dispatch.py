"""The MoE runner's SM90 mixed-input tactic list (producers/flashinfer/sm90_mixed_dispatch.py, data
sm90_mixed_dispatch.toml) and what it says of FlashInfer 0.7.4's 40 instantiations that need more
than sm_90's 232,448 B: 16 are offered (the autotuner profiles them and they fail initialize()),
24 are compiled but never dispatched."""

from __future__ import annotations

import pytest

from cutlint.producers.flashinfer import sm90_mixed_dispatch as d
from cutlint.records import Shape3

POST = "cutlass::gemm::collective::MixedInputScaleMode::kPostMma"
PRE = "cutlass::gemm::collective::MixedInputScaleMode::kPreMmaE8M0"
CLUSTERS = [
    Shape3(m=1, n=1, k=1),
    Shape3(m=2, n=1, k=1),
    Shape3(m=1, n=2, k=1),
    Shape3(m=2, n=2, k=1),
]


def shape(m: int, n: int, k: int) -> Shape3:
    return Shape3(m=m, n=n, k=k)


@pytest.mark.parametrize("release", ["0.7.4", "0.7.2.post1"])
def test_the_list_as_get_candidate_configs_sm90_builds_it(release: str) -> None:
    r = d.rules()[release]
    # 29 tiles x 4 clusters; the humming runner adds 5 small-K tiles x 2 schedules
    assert len(d.tactic_list(r, small_k=False)) == 116
    listed = d.tactic_list(r, small_k=True)
    assert len(listed) == 126
    assert listed[0] == d.Config(0, (64, 16, 128), (1, 1, 1), d.PINGPONG)
    assert listed[-1] == d.Config(125, (128, 64, 128), (1, 1, 1), "SINGLE_WARPGROUP_ROLLING")
    # sm90_supports_coop: 128 x 128 is cooperative with K 128 and 256 only
    assert d.supports_coop(r, (128, 128, 256)) and not d.supports_coop(r, (128, 128, 512))
    assert d.supports_coop(r, (128, 64, 512)) and not d.supports_coop(r, (64, 128, 128))


# (tile, schedule, scale mode) -> GEMM1 tactic ids over the four clusters, or None: never offered
FAILING_0_7_4 = [
    # MXFP4 x bf16 (the runner CutlassMoeFCRunner<__nv_bfloat16, Fp4Type>)
    ((64, 128, 512), "pingpong", POST, (44, 45, 46, 47)),
    ((128, 128, 512), "pingpong", POST, (92, 93, 94, 95)),
    ((128, 128, 512), "cooperative", POST, None),
    ((128, 256, 256), "cooperative", POST, (100, 101, 102, 103)),
    ((128, 256, 256), "pingpong", POST, None),
    ((256, 128, 256), "cooperative", POST, (108, 109, 110, 111)),
    # W4A8 (post-MMA) and humming MXFP4 x e4m3 (pre-MMA E8M0): 128x128x512B is pingpong only
    ((128, 128, 512), "cooperative", PRE, None),
]


@pytest.mark.parametrize(("tile", "schedule", "scale", "ids"), FAILING_0_7_4)
def test_which_over_capacity_instantiations_the_runner_offers(
    tile: tuple[int, int, int], schedule: str, scale: str, ids: tuple[int, ...] | None
) -> None:
    got = [d.offer("0.7.4", shape(*tile), c, schedule, scale, None) for c in CLUSTERS]
    assert all(o is not None for o in got)
    if ids is None:
        assert not any(o.offered for o in got if o)
        assert all("pairs tile" in o.reason for o in got if o)
    else:
        assert tuple(i for o in got if o for i in o.gemm1_ids) == ids


def test_small_k_configs_and_unknown_releases() -> None:
    o = d.offer(
        "0.7.4", shape(128, 40, 128), CLUSTERS[0], "pingpong", PRE, "SINGLE_WARPGROUP_PREFILL"
    )
    assert o is not None and o.offered and o.gemm1_ids == (122,) and o.tactics_per_gemm == 126
    # only the humming runner lists them
    o = d.offer(
        "0.7.4", shape(128, 40, 128), CLUSTERS[0], "pingpong", POST, "SINGLE_WARPGROUP_PREFILL"
    )
    assert o is not None and not o.offered
    assert d.offer("0.6.3", shape(128, 128, 128), CLUSTERS[0], "pingpong", POST, None) is None
