"""The typed API a generator calls before writing files: TacticSpec -> InstantiationResult."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from cutlint import api
from cutlint.families.base import moe_args
from cutlint.records import ElementType, Fusion, Shape3, Verdict


def test_check_tactic_keeps_its_behaviour() -> None:
    failing = api.check_tactic(
        act_type=ElementType.E2M1,
        weight_type=ElementType.E2M1,
        output_type=ElementType.F16,
        tile=(128, 256, 128),
        fusion=Fusion.FINALIZE,
        flashinfer_version="0.7.2.post1",
    )
    assert failing.verdict is Verdict.FAILS_INITIALIZE
    assert [d.rule for d in failing.diagnostics] == ["CUT101", "CUT104"]
    assert failing.instantiation.span.path == "<tactic>" and failing.instantiation.span.line == 0
    assert failing.resources and failing.resources.layout.size == 102400


def test_validate_tactics_takes_the_generators_spellings_and_keeps_order() -> None:
    specs = [
        api.TacticSpec(
            act_type="SafeFP4",
            weight_type="SafeFP4",
            output_type="__nv_bfloat16",
            tile=(256, 128, 128),
            fusion=Fusion.FINALIZE,
            flashinfer_version="0.6.3",
            name="fp4 finalize 256x128x128",
        ),
        api.TacticSpec(
            act_type="e2m1",
            weight_type="e2m1",
            output_type="bf16",
            tile="256x128x128",
            fusion="FINALIZE",
            swap_ab=True,
            flashinfer_version="0.6.3",
        ),
        api.TacticSpec(
            act_type="__nv_fp8_e4m3",
            weight_type="SafeFP4",
            output_type="half",
            tile=Shape3(m=128, n=128, k=128),
        ),
    ]
    a, b, c = api.validate_tactics(specs)
    assert (a.verdict, b.verdict, c.verdict) == (
        Verdict.FAILS_INITIALIZE,
        Verdict.FITS,
        Verdict.FITS,
    )
    assert a.instantiation.span.path == "fp4 finalize 256x128x128"
    assert moe_args(c) is not None and moe_args(c).mxfpx  # the generator's default
    same = api.check_tactic(
        act_type=ElementType.E2M1,
        weight_type=ElementType.E2M1,
        output_type=ElementType.BF16,
        tile=(256, 128, 128),
        fusion=Fusion.FINALIZE,
        flashinfer_version="0.6.3",
    )
    assert a.resources == same.resources
    assert [d.message for d in a.diagnostics] == [d.message for d in same.diagnostics]


def test_a_cluster_the_sm120_builders_refuse_is_a_compile_failure() -> None:
    (r,) = api.validate_tactics(
        [
            api.TacticSpec(
                act_type="e2m1",
                weight_type="e2m1",
                output_type="f16",
                tile=(128, 128, 128),
                cluster=(2, 1, 1),
            )
        ]
    )
    assert r.verdict is Verdict.FAILS_COMPILE


@pytest.mark.parametrize(
    "bad", [{"act_type": "SafeFP5"}, {"tile": "128x128"}, {"unknown": 1}, {"fusion": "FUSED"}]
)
def test_bad_specs_are_rejected(bad: dict[str, object]) -> None:
    fields: dict[str, object] = {
        "act_type": "e2m1",
        "weight_type": "e2m1",
        "output_type": "f16",
        "tile": (128, 128, 128),
    }
    with pytest.raises((ValidationError, ValueError)):
        api.TacticSpec.model_validate(fields | bad)
