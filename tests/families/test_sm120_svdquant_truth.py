"""The SM120 SVDQuant model against the compiler: every row of
tests/data/nvcc_sm120_svdquant_truth.json (nvcc, host-only probe, on the 31 files FlashInfer
0.7.4's JIT renders for nvfp4_svdquant_gemm_cutlass_sm120: the kernel of each of the 49
instantiations), byte for byte, member by member."""

from __future__ import annotations

from collections import Counter

import pytest

from cutlint.cutlass.versions import cutlass_model
from cutlint.families.sm120_svdquant import FAMILY, model
from cutlint.families.sm120_svdquant.probe import LABELS
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.testing.truth import rows

ROWS = rows("sm120-svdquant")


def test_truth_covers_every_instantiation_once() -> None:
    assert len(ROWS) == 49
    assert Counter(r["name"] for r in ROWS) == {
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC": 26,
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC": 5,
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC": 18,
    }
    assert all(r["label"] == LABELS[r["name"]] for r in ROWS)
    assert {r["args"][0] for r in ROWS} == set(model.family_data()["configs"])


def test_row80_takes_the_side_slot_and_four_stages() -> None:
    t = model.tactic_of(
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC", ("Tactic64x32x256SwapStaticConfig",)
    )
    assert isinstance(t, model.Tactic) and t.row80
    assert model.lora_carveout(t) == (64 + 32) * 64 * 2 + 128
    assert model.stage_count(t).fixed and model.stage_count(t).stages == 4


@pytest.mark.parametrize("arch", ["sm_120", "sm_121"])
def test_every_shipped_tactic_compiles_and_fits(arch: str) -> None:
    """0.7.4's 49 instantiations: none rejected by a header static_assert, all within the
    capacity (sm120_smem_capacity_bytes is the opt-in limit of both arches)."""
    ctx = ModelContext(arch=arch_for(arch), cutlass=cutlass_model((4, 5, 0), "test"))
    for row in ROWS:
        k = model.evaluate(row["name"], tuple(row["args"]), "0.7.4")
        t = model.tactic_of(row["name"], tuple(row["args"]))
        assert not isinstance(k, str) and not isinstance(t, str)
        assert k.compiles and model.static_assert(t, k.smem) == ""
        assert k.smem <= ctx.arch.smem_optin == model.capacity()


def test_header_static_asserts() -> None:
    def why(config: str, smem: int = 0) -> str:
        t = model.tactic_of("INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC", (config,))
        assert isinstance(t, model.Tactic)
        return model.static_assert(t, smem)

    assert "unsupported 64-row SM120 SVDQuant tile" in why("Tactic64x128x128SkConfig")
    assert "template_sm120.h:149" in why("Tactic64x64x128Config")
    assert "at least the rank tile" in why("Tactic128x128x64Config")
    over = why("Tactic128x128x128Config", model.capacity() + 1024)
    assert "template_sm120.h:273" in over and "102,400 B" in over
    assert why("Tactic128x128x128Config", model.capacity()) == ""


def test_family_facts_name_the_static_assert() -> None:
    from cutlint.families.jit_module_family import KernelCallRecipe

    recipe = KernelCallRecipe(
        family=FAMILY.name,
        name="INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC",
        args=("Tactic64x128x128SkConfig",),
        release="0.7.4",
    )
    ctx = ModelContext(arch=arch_for("sm_120"), cutlass=cutlass_model((4, 5, 0), "test"))
    res = FAMILY.resources(recipe, ctx)
    facts = FAMILY.facts(recipe, res)
    assert facts["svdquant.smem.capacity"] == 101376
    assert "unsupported 64-row" in str(facts["svdquant.static_assert"])
