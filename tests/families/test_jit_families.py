"""Every instantiation of FlashInfer's JIT-rendered SM120 modules is read by one family and
modeled: stage count, SharedStorage, threads, on each release."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cutlint.api import CheckOptions, check
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.families.sm120_fp4_gemm import model as fp4
from cutlint.families.sm120_fp4_group_gemm import model as fp4_group
from cutlint.families.sm120_fp8_groupwise import model as fp8_groupwise
from cutlint.families.sm120_mxfp8_gemm import model as mxfp8
from cutlint.families.sm120_svdquant import model as svdquant
from cutlint.parse import parse_paths

FAMILIES: tuple[ModuleType, ...] = (mxfp8, fp4, fp8_groupwise, fp4_group, svdquant)


def owner(name: str, args: tuple[str, ...]) -> list[ModuleType]:
    return [f for f in FAMILIES if not isinstance(f.tactic_of(name, args), str)]


@pytest.mark.parametrize(
    "version",
    ["0.5.2", "0.6.3", "0.6.4", "0.6.6", "0.6.8.post1", "0.6.11.post2", "0.7.2.post1", "0.7.4"],
)
def test_every_instantiation_has_one_family(jit_modules: Any, version: str) -> None:
    counts: Counter[str] = Counter()
    for module in jit_modules(version):
        for inst in (i for r in parse_paths(list(module.generated)) for i in r.instantiations):
            families = owner(inst.name, inst.args)
            assert len(families) == 1, (inst.name, inst.args, families)
            family = families[0]
            numbers = family.evaluate(inst.name, inst.args, version)
            assert isinstance(numbers, KernelNumbers), numbers
            counts["modeled"] += 1
            if family is fp4 and "streamk" in fp4.kernels_of(version):
                assert isinstance(
                    fp4.evaluate(inst.name, inst.args, version, "streamk"), KernelNumbers
                )
    # 0.7.4 adds the SVDQuant module's 49 (svdquant_sm120.py is new in 0.7.4); before 0.6.8rc1
    # the FP8 groupwise module's 32 and the dense FP4 module's 2 (one tile before 0.6.4) or 6;
    # 0.6.8.post1 adds MXFP8 (6) and the NVFP4 / MXFP4 grouped GEMMs (8)
    older = {"0.5.2": 34, "0.6.3": 34, "0.6.4": 38, "0.6.6": 38, "0.6.8.post1": 32 + 6 + 6 + 8}
    expected = {**older, "0.6.11.post2": 132, "0.7.2.post1": 124, "0.7.4": 124 + 49}
    assert counts["modeled"] == expected[version]


@pytest.mark.parametrize(
    ("arch_dir", "module", "family", "verdict"),
    [
        ("120f", "gen_gemm_sm120_cutlass_fp4", "sm120-fp4-gemm", "fits"),
        ("100a", "gen_gemm_sm100_cutlass_fp4", "sm100-jit-gemm", "fits"),
    ],
)
def test_the_fp4_macros_module_directory_says_which_header_it_is(
    tmp_path: Path, arch_dir: str, module: str, family: str, verdict: str
) -> None:
    """0.6.3's SM120 FP4 macro has the SM100 one's 8 arguments: in a JIT cache the module
    directory tells them apart (the argument count alone read the SM120 call as an Sm100 kernel
    that cannot run on sm_120)."""
    d = tmp_path / "flashinfer" / "0.6.3" / arch_dir / "generated" / module
    d.mkdir(parents=True)
    f = d / "fp4_gemm_cutlass_half_128_128_128.cu"
    f.write_text(
        "namespace flashinfer { namespace gemm {\n"
        "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(half, 128, 128, 128, 1, 1, 1, _1SM)\n"
        "} }\n"
    )
    (result,) = check([f], CheckOptions()).files
    (inst,) = result.instantiations
    assert inst.recipe is not None and inst.recipe.family == family
    assert inst.verdict.value == verdict
