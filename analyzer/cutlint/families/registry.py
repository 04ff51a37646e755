"""The kernel families cutlint models, in claim order: the first family that claims a source form
owns it. Adding a family is one line here (and its folder; docs/architecture.md).

A family is imported when it is first asked: to claim an instantiation (in claim order, up to the
one that claims it, passing over those whose `CLAIMS` rule the form out), or by name. A check of
an SM120 cache imports the SM120 family alone, not the others (about 70 ms of start-up on a
2-core machine); a check of an SM100 one the SM100 family alone."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from cutlint.families.base import Claim, Family
from cutlint.model.context import ModelContext
from cutlint.producers.trtllm import moe_macro
from cutlint.records import FormKind, Instantiation, Recipe

if TYPE_CHECKING:  # the truth vocabulary is the test harness's; a check never loads it
    from cutlint.families.truth import Truth

REGISTRY: tuple[tuple[str, str], ...] = (
    ("sm120-blockscaled-grouped", "sm120_blockscaled_grouped"),
    ("sm80-fused-moe", "sm80_fused_moe"),
    ("sm90-tma-ws-grouped", "sm90_tma_ws_grouped"),
    ("sm100-tma-ws-grouped", "sm100_tma_ws_grouped"),
    ("sm90-mixed-gemm", "sm90_mixed_gemm"),
    ("sm90-mixed-moe", "sm90_mixed_moe"),
    ("sm120-mxfp8-gemm", "sm120_mxfp8_gemm"),
    ("sm120-fp4-gemm", "sm120_fp4_gemm"),
    ("sm120-fp4-group-gemm", "sm120_fp4_group_gemm"),
    ("sm120-fp8-groupwise", "sm120_fp8_groupwise"),
    ("sm120-svdquant", "sm120_svdquant"),
    ("sm100-jit-gemm", "sm100_jit_gemm"),
    ("sm100-tgv-gemm", "sm100_tgv_gemm"),
    ("sm90-segment-gemm", "sm90_segment_gemm"),
    ("sm120-dense-gemm", "sm120_dense_gemm"),
    ("sm120-nvfp4-gemm", "sm120_nvfp4_gemm"),
    ("sm120-collective-builder", "sm120_collective_builder"),
    ("sm90-collective-builder", "sm90_collective_builder"),
    ("sm100-collective-builder", "sm100_collective_builder"),
    ("cutlass2-gemm-universal", "cutlass2_gemm_universal"),
    ("cutlass2-gemm-planar-complex", "cutlass2_gemm_planar_complex"),
    ("cutlass2-blas3", "cutlass2_blas3"),
    ("cutlass2-conv", "cutlass2_conv"),
    ("cutlass2-gemm-grouped", "cutlass2_gemm_grouped"),
    ("cutlass2-sparse-gemm", "cutlass2_sparse_gemm"),
)
"""(family name, its folder under cutlint/families), in claim order. Families that claim disjoint
forms may go in any order; the ones every FlashInfer SM120 cache needs (its grouped MoE kernels
and the SM80 fused-MoE launcher it also holds) come first, so that checking one imports no other."""

_FOLDER = dict(REGISTRY)


@dataclass(frozen=True)
class Claims:
    """What a family can claim at most, said without importing it (its model and parts): the
    source forms its `claim` looks at first, and, for TensorRT-LLM's MoE macro, the arch tags of
    the calls it claims (the macro's first argument: moe_macro_family.claim_macro). A form
    outside is not asked of it (tests/families/test_registry.py asks, to keep the two equal)."""

    forms: frozenset[FormKind]
    moe_arch_sms: frozenset[int] | None = None
    """Set: the family claims calls of `moe_macro.MACRO` only, and of these only those whose
    arch tag (`cutlass::arch::Sm100`) is one of these."""

    builder_arch_tags: frozenset[str] | None = None
    """Set: the family claims `using` chains whose mainloop CollectiveBuilder's ArchTag (its
    first template argument, `cutlass::arch::Sm90`) is one of these; a chain none of whose
    aliases takes one of them first is not its."""

    names: frozenset[str] | None = None
    """Set: the family claims only instantiations of these macros, launchers or kernel
    functions (the last `::` part of the instantiation's name): its model's launcher names, or a
    JIT module family's `names()`."""

    def may_claim(self, inst: Instantiation) -> bool:
        if inst.form not in self.forms:
            return False
        if self.names is not None and inst.name.rsplit("::", 1)[-1] not in self.names:
            return False
        if self.builder_arch_tags is not None and not any(
            a.args and a.args[0] in self.builder_arch_tags for a in inst.chain
        ):
            return False
        if self.moe_arch_sms is None:
            return True
        return (
            inst.name == moe_macro.MACRO
            and bool(inst.args)
            and moe_macro.arch_sm(inst.args[0]) in self.moe_arch_sms
        )


_MOE_CALL = frozenset({FormKind.MACRO_CALL})
_EXPLICIT = frozenset({FormKind.EXPLICIT_INSTANTIATION})
_ALIAS = frozenset({FormKind.TYPE_ALIAS})
_SM120_BUILDER = frozenset({"cutlass::arch::Sm120", "cutlass::arch::Sm121"})
"""The ArchTags the SM120 CollectiveBuilder families read a chain with (their shared `read`)."""
_CALL = frozenset({FormKind.MACRO_CALL, FormKind.EXPLICIT_INSTANTIATION})
"""A JIT module's family (families/jit_module_family.py): the names it claims are its header's
macros and launcher functions, never a type a `using` chain names."""

CLAIMS: dict[str, Claims] = {
    "sm120-blockscaled-grouped": Claims(_MOE_CALL, frozenset({120, 121})),
    "sm80-fused-moe": Claims(
        _EXPLICIT, names=frozenset({"sm80_generic_fused_moe_gemm_kernelLauncher"})
    ),
    "sm90-tma-ws-grouped": Claims(_MOE_CALL, frozenset({90})),
    "sm100-tma-ws-grouped": Claims(_MOE_CALL, frozenset({100, 103})),
    "sm90-mixed-gemm": Claims(
        _EXPLICIT, names=frozenset({"sm90_generic_mixed_gemm_kernelLauncher"})
    ),
    "sm90-mixed-moe": Claims(
        _EXPLICIT,
        names=frozenset(
            {
                "sm90_generic_mixed_moe_gemm_kernelLauncher",
                "sm90_generic_mixed_moe_small_k_kernelLauncher",
            }
        ),
    ),
    "sm120-mxfp8-gemm": Claims(
        _CALL, names=frozenset({"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120"})
    ),
    "sm120-fp4-gemm": Claims(
        _CALL,
        names=frozenset(
            {"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER", "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER_SM120"}
        ),
    ),
    "sm120-fp4-group-gemm": Claims(
        _CALL,
        names=frozenset(
            {
                "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120",
                "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120",
            }
        ),
    ),
    "sm120-fp8-groupwise": Claims(
        _CALL,
        names=frozenset(
            {"CutlassFP8GroupwiseScaledGroupGEMMSM120", "CutlassGroupwiseScaledGEMMSM120"}
        ),
    ),
    "sm120-svdquant": Claims(
        _CALL,
        names=frozenset(
            {
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC",
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC",
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC",
            }
        ),
    ),
    "sm100-jit-gemm": Claims(
        _CALL,
        names=frozenset(
            {
                "CutlassFP8GroupwiseScaledGroupGEMMSM100",
                "CutlassGroupwiseScaledGEMMSM100",
                "CutlassGroupwiseScaledGEMMSM100LowLatency",
                "CutlassMXFP4GroupwiseScaledGroupGEMMSM100",
                "INSTANCE_BF16_GEMM_TEMPLATE_SM100",
                "INSTANCE_FP8_GEMM_TEMPLATE_SM100",
                "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
                "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER",
                "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER",
                "INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC",
            }
        ),
    ),
    "sm100-tgv-gemm": Claims(
        _CALL,
        names=frozenset(
            {"INSTANTIATE_TGV_GEMM_HOST_BF16_BF16", "INSTANTIATE_TGV_GEMM_HOST_FP16_FP16"}
        ),
    ),
    "sm90-segment-gemm": Claims(_CALL, names=frozenset({"CutlassSegmentGEMMSM90Run"})),
    "sm120-dense-gemm": Claims(_ALIAS, builder_arch_tags=_SM120_BUILDER),
    "sm120-nvfp4-gemm": Claims(_ALIAS, builder_arch_tags=_SM120_BUILDER),
    "sm120-collective-builder": Claims(_ALIAS, builder_arch_tags=_SM120_BUILDER),
    "sm90-collective-builder": Claims(_ALIAS, builder_arch_tags=frozenset({"cutlass::arch::Sm90"})),
    "sm100-collective-builder": Claims(
        _ALIAS, builder_arch_tags=frozenset({"cutlass::arch::Sm100"})
    ),
    "cutlass2-gemm-universal": Claims(_ALIAS),
    "cutlass2-gemm-planar-complex": Claims(_ALIAS),
    "cutlass2-blas3": Claims(_ALIAS),
    "cutlass2-conv": Claims(_ALIAS),
    "cutlass2-gemm-grouped": Claims(_ALIAS),
    "cutlass2-sparse-gemm": Claims(_ALIAS),
}
"""Optional, by family name: a family not here is asked every form. Start-up only: a check
imports the families that may claim what its files hold, not every family ahead of them in
claim order (a cutlass_library SM100 kernel passes the fourteen macro and launcher families
and the other arches' CollectiveBuilder families by; a FlashInfer SM100 GEMM module's file, the
explicit-instantiation and SM120 JIT families before its own: 40 ms of a one-file check's
start-up on the 2-core machine)."""


@cache
def _family(folder: str) -> Family:
    family: Family = importlib.import_module(f"cutlint.families.{folder}").FAMILY
    return family


def families() -> tuple[Family, ...]:
    """Every family, in claim order (imports them all)."""
    return tuple(_family(folder) for _, folder in REGISTRY)


def names() -> tuple[str, ...]:
    """Every family's name, in claim order (imports none)."""
    return tuple(name for name, _ in REGISTRY)


def family_named(name: str) -> Family:
    """KeyError for a name no family has."""
    return _family(_FOLDER[name])


def family_in(folder: str) -> Family:
    """The family whose folder is `folder` (`sm100_tgv_gemm`); KeyError for none."""
    for name, f in REGISTRY:
        if f == folder:
            return family_named(name)
    raise KeyError(folder)


def family_of(recipe: Recipe) -> Family:
    return family_named(recipe.family)


SHARED_PROBES: dict[str, str] = {
    "tma-ws-moe-launcher": "moe_macro_probe",
    "cutlass-alias": "alias_probe",
}
"""Probes several families share (`Family.probe` -> their module under cutlint.families): the
launcher probe of TensorRT-LLM's TMA warp-specialized MoE macro, one for its three families;
the probe of kernels defined by `using` chains, one for the cutlass_library and
CollectiveBuilder families."""


def probe_module(family: Family) -> ModuleType | None:
    """The family's probe module (what `cutlint verify` builds for it: cutlint.families.probe):
    a shared one (SHARED_PROBES), else its folder's `probe.py`; None when it has neither (its
    probe is one verify builds from the recipe alone)."""
    shared = SHARED_PROBES.get(family.probe or "")
    name = f"cutlint.families.{shared}" if shared else f"{family.package}.probe"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        raise


def truth_of(family: Family) -> Truth | None:
    """The family's compiler truth (`TRUTH` of its `truth.py`: cutlint.families.truth), or None
    when its folder has none. Read by the test harness (cutlint.testing), never by a check."""
    name = f"{family.package}.truth"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        raise
    truth: Truth = module.TRUTH
    return truth


def probe_spec(probe: str) -> ModuleType:
    """The probe module of the family whose compiler probe is named `probe` (`Family.probe`), for a
    probe one family owns (a launcher probe). KeyError when none has a probe module of that name."""
    for family in families():
        if family.probe == probe:
            module = probe_module(family)
            if module is not None:
                return module
    raise KeyError(probe)


def claim(inst: Instantiation, ctx: ModelContext) -> tuple[Family, Claim] | None:
    """The family that owns `inst` and its claim, or None when no family claims it."""
    for name, folder in REGISTRY:
        ruled = CLAIMS.get(name)
        if ruled is not None and not ruled.may_claim(inst):
            continue
        family = _family(folder)
        claimed = family.claim(inst, ctx)
        if claimed is not None:
            return family, claimed
    return None


def __getattr__(name: str) -> tuple[Family, ...]:
    # `FAMILIES`, for readers that want every family at once (tests, docs, `cutlint rules`).
    if name == "FAMILIES":
        return families()
    raise AttributeError(name)
