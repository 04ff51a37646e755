"""The cutlass2-conv, cutlass2-gemm-grouped and cutlass2-sparse-gemm families: what each claims,
what it cannot read (CUT004/CUT005), what it leaves "not modeled" and why, and the arch gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.base import CannotRun, Unreadable
from cutlint.families.cutlass2_conv import FAMILY as CONV
from cutlint.families.cutlass2_gemm_grouped import FAMILY as GROUPED
from cutlint.families.cutlass2_sparse_gemm import FAMILY as SPARSE
from cutlint.families.registry import claim
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source
from cutlint.records import Instantiation, Recipe

DATA = Path(__file__).parents[1] / "data"


def ctx(arch: str = "sm_120") -> ModelContext:
    return ModelContext(arch=arch_for(arch), cutlass=cutlass_model(parse_version("4.2.0"), "test"))


def row(truth: str, pick: str) -> dict[str, Any]:
    rows = json.loads((DATA / truth).read_text())["rows"]
    return next(r for r in rows if pick in r["kernel"])


def source(r: dict[str, Any], args: list[str] | None = None, member: str | None = None) -> str:
    """The kernel's definition as cutlass_library writes it, from a truth row."""
    tail = f"::{member}" if member else ""
    return (
        f"using {r['kernel']} = typename {r['template']}<{', '.join(args or r['args'])}>{tail};\n"
    )


def instantiation(text: str) -> Instantiation:
    found = parse_source("k.cu", text.encode()).instantiations
    assert len(found) == 1, found
    return found[0]


CONV_ROW = row("nvcc_cutlass2_conv_truth.json", "h16816fprop_optimized_256x128_32x3_nhwc_align8")
DEPTHWISE_ROW = row("nvcc_cutlass2_conv_truth.json", "depthwise")
GROUPED_ROW = row("nvcc_cutlass2_gemm_grouped_truth.json", "s16816gemm_grouped_f16_256x128_32x3_tn")
SPARSE_ROW = row("nvcc_cutlass2_sparse_gemm_truth.json", "h16832spgemm_64x128_64x6_tn")


@pytest.mark.parametrize(
    ("family", "text"),
    [
        (CONV, source(CONV_ROW, member="Kernel")),
        (CONV, source(DEPTHWISE_ROW, member="Kernel")),
        (GROUPED, source(GROUPED_ROW, member="GemmKernel")),
        (SPARSE, source(SPARSE_ROW)),
    ],
)
def test_the_registry_gives_each_template_to_its_family(family: Any, text: str) -> None:
    owner = claim(instantiation(text), ctx())
    assert owner is not None and owner[0] is family


def _claim(family: Any, text: str) -> Recipe | Unreadable:
    got = family.claim(instantiation(text), ctx())
    assert got is not None
    return got  # type: ignore[no-any-return]


def test_conv_is_modeled_on_sm120_and_cannot_run_below_its_arch_tag() -> None:
    r = _claim(CONV, source(CONV_ROW, member="Kernel"))
    assert isinstance(r, Recipe)
    assert CONV.covers(r, ctx()) is None and CONV.covers(r, ctx("sm_80")) is None
    assert CONV.resources(r, ctx()).layout.size == CONV_ROW["kernel_smem"]
    args = list(CONV_ROW["args"])
    args[8] = "cutlass::arch::Sm86"
    sm86 = _claim(CONV, source(CONV_ROW, args, "Kernel"))
    assert isinstance(sm86, Recipe)
    assert CONV.covers(sm86, ctx("sm_80")) == "an Sm86 kernel does not run on sm_80"
    assert isinstance(CONV.covers(sm86, ctx("sm_80")), CannotRun)


def test_the_depthwise_direct_conv_is_claimed_and_says_why_it_is_not_modeled() -> None:
    r = _claim(CONV, source(DEPTHWISE_ROW, member="Kernel"))
    assert isinstance(r, Recipe)
    reason = CONV.covers(r, ctx())
    assert reason is not None and "DirectConvolution" in reason
    assert not isinstance(reason, CannotRun)


@pytest.mark.parametrize(
    ("family", "base", "member", "code"),
    [
        (CONV, CONV_ROW, "Kernel", "CUT004"),
        (GROUPED, GROUPED_ROW, "GemmKernel", "CUT004"),
        (SPARSE, SPARSE_ROW, None, "CUT004"),
    ],
)
def test_too_few_arguments_are_unreadable(
    family: Any, base: dict[str, Any], member: str | None, code: str
) -> None:
    got = _claim(family, source(base, base["args"][:10], member))
    assert isinstance(got, Unreadable) and got.problems[0][0] == code


def test_a_non_literal_stage_count_is_unreadable() -> None:
    args = list(CONV_ROW["args"])
    args[14] = "kStages"
    got = _claim(CONV, source(CONV_ROW, args, "Kernel"))
    assert isinstance(got, Unreadable) and got.problems[0][0] == "CUT005"


def test_a_host_precompute_grouped_gemm_is_not_modeled() -> None:
    args = list(GROUPED_ROW["args"])
    args[19] = "cutlass::gemm::kernel::GroupScheduleMode::kHostPrecompute"
    r = _claim(GROUPED, source(GROUPED_ROW, args, "GemmKernel"))
    assert isinstance(r, Recipe)
    reason = GROUPED.covers(r, ctx())
    assert reason is not None and "kHostPrecompute" in reason


def test_a_sparse_gemm_of_another_arch_tag_is_not_modeled() -> None:
    args = list(SPARSE_ROW["args"])
    args[8] = "cutlass::arch::Sm89"
    r = _claim(SPARSE, source(SPARSE_ROW, args))
    assert isinstance(r, Recipe)
    reason = SPARSE.covers(r, ctx())
    assert reason is not None and "Sm89" in reason and not isinstance(reason, CannotRun)


def test_the_sparse_kernel_over_the_optin_names_a_smaller_stage_count() -> None:
    r = _claim(SPARSE, source(SPARSE_ROW))
    assert isinstance(r, Recipe)
    res = SPARSE.resources(r, ctx())
    assert res.layout.size == 125952
    assert [(v.stages, v.fits) for v in res.variants] == [(5, False), (4, True)]
