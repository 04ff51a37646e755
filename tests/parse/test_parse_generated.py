"""The files FlashInfer's own generator writes, parsed as a user's JIT cache would be."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.parse import parse_paths
from cutlint.producers.trtllm.moe_macro import PARAMETERS, typed
from cutlint.records import FormKind, Instantiation, MoeGemmArgs

# What the generator wrote (counted with grep on the files): SM120 macro instantiations, of which
# FP8 x FP4 (`#if defined(ENABLE_FP8) && defined(ENABLE_FP4)`), and explicit launchers.
COUNTS = {
    "0.6.3": {"sm120": 40, "fp8": 8, "sm80": 60, "sm90": 378},
    "0.7.2.post1": {"sm120": 88, "fp8": 24, "sm80": 60, "sm90": 378},
}
# An independent reading of the generator's fixed layout, to check the typed fields against.
CALL = re.compile(r"INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM\(([^;]*)\);")


def typed_args(i: Instantiation) -> MoeGemmArgs | None:
    """The macro's typed arguments (the families' reader), where the count is right."""
    return typed(i.args)[0] if len(i.args) == len(PARAMETERS) else None


@pytest.mark.parametrize("version", sorted(COUNTS))
def test_every_instantiation_is_found(generated_cache: Callable[[str], Path], version: str) -> None:
    root = generated_cache(version)
    sm120 = parse_paths([root / "gemm_grouped" / "120"])
    assert all(r.problems == () and r.generated_for_sm == 120 for r in sm120)
    insts = [i for r in sm120 for i in r.instantiations]
    assert len(insts) == COUNTS[version]["sm120"]
    assert all(i.form is FormKind.MACRO_CALL and typed_args(i) is not None for i in insts)
    assert all(i.guard is not None and i.guard.active for i in insts)
    assert (
        sum(1 for i in insts if i.guard and "ENABLE_FP8" in i.guard.text) == COUNTS[version]["fp8"]
    )
    for kind, sm in (("gemm_grouped", "80"), ("gemm", "90")):
        parsed = parse_paths([root / kind / sm])
        # the cache's device (cutlass_instantiations/120), not the kernel's arch in the name
        assert all(r.problems == () and r.generated_for_sm == 120 for r in parsed)
        launchers = [i for r in parsed for i in r.instantiations]
        assert len(launchers) == COUNTS[version][f"sm{sm}"]
        assert all(i.form is FormKind.EXPLICIT_INSTANTIATION and i.guard is None for i in launchers)


@pytest.mark.parametrize("version", sorted(COUNTS))
def test_typed_fields_match_the_text(generated_cache: Callable[[str], Path], version: str) -> None:
    directory = generated_cache(version) / "gemm_grouped" / "120"
    expected = [
        [a.strip() for a in m[1].split(",")]
        for f in sorted(directory.glob("*.cu"))
        for m in CALL.finditer(f.read_text())
    ]
    insts = [i for r in parse_paths([directory]) for i in r.instantiations]
    assert [list(i.args) for i in insts] == expected
    for inst, args in zip(insts, expected, strict=True):
        moe = typed_args(inst)
        assert moe is not None
        assert (moe.cta_tile.m, moe.cta_tile.n, moe.cta_tile.k) == tuple(int(a) for a in args[7:10])
        assert (moe.cluster.m, moe.cluster.n, moe.cluster.k) == tuple(int(a) for a in args[10:13])
        assert (moe.mxfpx, moe.swap_ab) == (args[13] == "true", args[16] == "true")
        assert moe.fusion is not None and moe.fusion.value == args[6]


def test_undefining_a_flag_deactivates_its_guards(generated_cache: Callable[[str], Path]) -> None:
    directory = generated_cache("0.7.2.post1") / "gemm_grouped" / "120"
    insts = [
        i for r in parse_paths([directory], undefines=["ENABLE_FP8"]) for i in r.instantiations
    ]
    inactive = [i for i in insts if i.guard and not i.guard.active]
    assert len(inactive) == 24 and all("ENABLE_FP8" in i.guard.text for i in inactive if i.guard)


def test_version_is_read_off_a_jit_cache_path(
    generated_cache: Callable[[str], Path], tmp_path: Path
) -> None:
    source = generated_cache("0.7.2.post1") / "gemm_grouped" / "120"
    cache = tmp_path / ".cache" / "flashinfer" / "0.7.2.post1" / "120a" / "generated"
    target = cache / "cutlass_instantiations" / "120" / "gemm_grouped" / "120"
    shutil.copytree(source, target)
    parsed = parse_paths([tmp_path / ".cache" / "flashinfer"])
    assert len(parsed) == 11
    assert {(r.flashinfer_version, r.generated_for_sm) for r in parsed} == {("0.7.2.post1", 120)}
