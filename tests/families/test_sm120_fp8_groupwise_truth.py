"""The FP8 groupwise GEMM / grouped GEMM SM120 model against the compiler, byte for byte: every
row of tests/data/nvcc_sm120_fp8_groupwise_truth.json (nvcc on the files FlashInfer 0.5.2, 0.6.3,
0.6.4, 0.6.6, 0.6.7.post3, 0.6.8.post1, 0.6.11.post2, 0.7.2.post1 and 0.7.4 render, against
each wheel's own headers: CUTLASS 4.2.1, 4.4.2 and 4.5.0)."""

from __future__ import annotations

from cutlint.cutlass.versions import format_version
from cutlint.families.sm120_fp8_groupwise import model
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.testing.truth import rows

ROWS = rows("sm120-fp8-groupwise")

RELEASES = ("0.5.2", "0.6.3", "0.6.4", "0.6.6", "0.6.7.post3", "0.6.8.post1", "0.6.11.post2",
            "0.7.2.post1", "0.7.4")  # fmt: skip


def test_truth_covers_every_modeled_release() -> None:
    assert {v: sum(1 for r in ROWS if r["version"] == v) for v in RELEASES} == dict.fromkeys(
        RELEASES, 32
    )
    assert tuple(model.family_data()["recipes"]) == RELEASES


def test_every_release_has_a_recipe_on_its_own_cutlass() -> None:
    """Every release in the release table builds a modeled recipe, and the recipe's CUTLASS is
    the one the release bundles (the table's `cutlass`, read from each wheel's version.h)."""
    for version, release in flashinfer_releases().items():
        recipe = model.recipe_for(version)
        assert recipe is not None, version
        assert recipe.cutlass == format_version(release.cutlass), version
    assert model.recipe_for("0.4.1") is None
