"""The SM80 fused-MoE family: claims the explicit instantiations
`template void sm80_generic_fused_moe_gemm_kernelLauncher<...>(...);` and computes their Resources
with model.py (Fused_Moe_Kernel_sm80's SharedStorage as the compiler lays it out; the launcher's
run-path check is rule CUT105)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.base import (
    Claim,
    Facts,
    InputField,
    RunnerKernel,
    Unreadable,
    smem_layout,
)
from cutlint.families.groups import RuleGroup
from cutlint.families.sm80_fused_moe import model
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    Shape3,
    StageCount,
    StageTerm,
    Variant,
)

NAME = "sm80-fused-moe"
MIN_SM = 80
"""cp.async and the SM80 mma.sync atoms (SM80_16x8x16_F32{F16,BF16}...) the traits use."""


class Sm80FusedMoeRecipe(Recipe):
    """An `sm80_generic_fused_moe_gemm_kernelLauncher<...>` instantiation, typed."""

    args: tuple[str, ...] = Field(description="the 7 template arguments as written")
    tile: Shape3 = Field(description="MaxTileM_ x TileN_ x TileK_")
    stages: int = Field(description="Stages_")
    epilogue_tag: str
    activation: str = Field(description="EpilogueRouting<EpilogueTag>(true): Swiglu, Geglu, ...")

    def runner_kernel(self) -> RunnerKernel:
        """ElementType_, the tile, Stages_ and the routed activation: what MoeGemmRunner's
        16-bit tactics select this launcher by (families.base.RunnerSelected)."""
        return RunnerKernel(
            element=self.args[0],
            tile=self.tile,
            stages=self.stages,
            activation=self.activation,
            epilogue_tag=self.epilogue_tag,
        )


class Sm80FusedMoe:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_LAUNCHER_OCCUPANCY})
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "fused_moe.tile": "the launcher's MaxTileM x TileN x TileK",
        "fused_moe.activation": "the activation EpilogueRouting<EpilogueTag>(true) picks",
        "fused_moe.gated": "Swiglu or Geglu: two B tiles per stage, kernel kTileN = TileN / 2",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "fused_moe.tile": ("input.tile",),
        "fused_moe.activation": ("input.epilogue",),
        "fused_moe.gated": ("input.epilogue",),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "activation")
    probe: ClassVar[str | None] = "sm80-fused-moe-launcher"
    """`cutlint verify` builds its files as this folder's probe.py says (registry.probe_spec)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.EXPLICIT_INSTANTIATION:
            return None
        if inst.name.rsplit("::", 1)[-1] != model.LAUNCHER_NAME:
            return None
        args = tuple(" ".join(a.split()) for a in inst.args)
        if len(args) != 7:
            message = f"`{inst.name}` takes 7 template arguments, found {len(args)}"
            return Unreadable(problems=(("CUT004", message),), reason=_UNREADABLE)
        try:
            tile = Shape3(m=int(args[2]), n=int(args[3]), k=int(args[4]))
            stages = int(args[5])
        except ValueError:
            message = f"`{inst.name}`: tile and stages must be integer literals, found {args[2:6]}"
            return Unreadable(problems=(("CUT005", message),), reason=_UNREADABLE)
        routed = model.family_data()["activation"].get(args[6], model.Activation.INVALID.value)
        return Sm80FusedMoeRecipe(
            family=NAME,
            args=args,
            tile=tile,
            stages=stages,
            epilogue_tag=args[6],
            activation=str(routed),
        )

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        block = model.shared_storage(t)
        tiles = {p.name.rsplit(".", 1)[-1]: p.size for p in block.flat()}
        output = tiles.get("smem_o", 0)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=_stage_count(t, block, ctx),
            layout=smem_layout(block, block.size - output, output),
            max_threads_per_block=model.threads_per_block(t),
            tma_descriptors=0,
            variants=_variants(t, ctx),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        r = _recipe(recipe)
        return {
            "fused_moe.tile": str(r.tile),
            "fused_moe.activation": r.activation,
            "fused_moe.gated": model.Activation(r.activation).gated,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.tile), r.args[0].rsplit("::", 1)[-1], r.activation)

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        src = f"{model.LAUNCHER_NAME} template argument"
        return (
            InputField("input.tile", "CTA tile", str(r.tile), f"{src}s MaxTileM_, TileN_, TileK_"),
            InputField("input.stages", "stages", str(r.stages), f"{src} Stages_"),
            InputField(
                "input.types",
                "element",
                f"{r.args[0]} x {r.args[1]}",
                f"{src}s ElementType_, CutlassWeightType_",
            ),
            InputField(
                "input.epilogue",
                "epilogue tag",
                f"{r.epilogue_tag} -> {r.activation}",
                f"{src} EpilogueTag (EpilogueRouting<EpilogueTag>(true))",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.args[0].rsplit('::', 1)[-1]} {r.tile}, {r.stages} stages, {r.activation}"


FAMILY = Sm80FusedMoe()

_UNREADABLE = "the launcher's template arguments could not be read (see the CUT0xx diagnostic)"


def _recipe(recipe: Recipe) -> Sm80FusedMoeRecipe:
    assert isinstance(recipe, Sm80FusedMoeRecipe), recipe
    return recipe


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    """The model's tactic, or why this instantiation is outside what the model covers."""
    if ctx.arch.sm < MIN_SM:
        return f"the Ampere fused-MoE kernel needs sm_{MIN_SM} or later, not {ctx.arch.name}"
    return model.tactic_of(model.LAUNCHER_NAME, _recipe(recipe).args)


def _stage_count(t: model.Tactic, block: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages_ is a template argument. The per-stage terms are the tiles the
    kernel's SharedStorage holds once per stage (A, and B once per weight)."""
    per_stage = tuple(
        StageTerm(name=p.name.rsplit(".", 1)[-1], bytes=p.size // t.stages, source=p.source)
        for p in block.flat()
        if p.name.rsplit(".", 1)[-1] in ("smem_input", "smem_fc1_gate_weight", "smem_fc1_weight")
    )
    stage_bytes = sum(term.bytes for term in per_stage)
    return StageCount(
        stages=t.stages,
        capacity=ctx.arch.smem_optin,
        reductions=(),
        carveout=0,
        stage_budget=ctx.arch.smem_optin,
        per_stage=per_stage,
        stage_bytes=stage_bytes,
        formula=f"{model.LAUNCHER}: Stages_ (a template argument; the generator's stages [2, 3, 4])",
        capacity_source="the arch's opt-in shared memory per block (model/data/arches.toml)",
        fixed=True,
    )


def _variants(t: model.Tactic, ctx: ModelContext) -> tuple[Variant, ...]:
    """One and two stages fewer (the generator's other stage counts), while at least 2."""
    out = []
    for stages in (t.stages - 1, t.stages - 2):
        if stages < 2:
            continue
        other = model.Tactic(t.element, t.tile, stages, t.epilogue_tag, t.activation)
        smem = model.kernel_smem(other)
        out.append(
            Variant(
                label=f"{stages}-stage",
                tile=t.tile,
                stages=stages,
                smem_bytes=smem,
                fits=model.launch_outcome(other, ctx.arch).fits,
            )
        )
    return tuple(out)
