"""What the sm100-collective-builder tests compare with nvcc's rows: a fixture's chain claimed as
the family's recipe, and the model's numbers for the probe's members (one copy for the dense,
block-scaled and grouped suites)."""

from __future__ import annotations

from pathlib import Path

from cutlint.cutlass.versions import CutlassModel
from cutlint.families.sm100_collective_builder import model
from cutlint.families.sm100_collective_builder.family import tactic_of
from cutlint.families.sm100_collective_builder.recipe import Sm100CollectiveBuilderRecipe, claim
from cutlint.parse.extract import parse_source


def recipe(path: Path, kernel: str) -> Sm100CollectiveBuilderRecipe:
    """The recipe of the chain whose kernel alias is `kernel` in the fixture at `path`."""
    insts = parse_source(str(path), path.read_bytes()).instantiations
    inst = next(i for i in insts if i.chain and i.chain[0].name == kernel)
    r = claim(inst)
    assert isinstance(r, Sm100CollectiveBuilderRecipe), r
    return r


def tactic(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> model.Tactic:
    t = tactic_of(r, cutlass)
    assert isinstance(t, model.Tactic), t
    return t


def modeled(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> dict[str, int]:
    """The model's stages, kernel size and alignment, mainloop and epilogue sizes and threads,
    under the names of nvcc's truth rows."""
    t = tactic(r, cutlass)
    stages = model.stage_count(t, cutlass).stages
    kernel = model.kernel_shared_storage(t, stages, cutlass)
    return {
        "stages": stages,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "threads": model.max_threads_per_block(t, cutlass),
    }
