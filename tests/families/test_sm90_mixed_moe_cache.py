"""FlashInfer 0.7.4's SM90 mixed-input MoE files, as its own generator writes them, judged with the
runner's tactic list (producers/flashinfer/data/sm90_mixed_dispatch.toml): of the 40
instantiations above sm_90's 232,448 B, 16 are tactics the runner offers (CUT101, with their
tactic ids) and 24 are compiled but never dispatched (CUT208)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.families.registry import family_named
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.records import Verdict


def test_the_runner_offers_16_of_the_40_overshoots(flashinfer_root: Any, tmp_path: Path) -> None:
    grouped = generate_cache(flashinfer_root("0.7.4"), "0.7.4", tmp_path, sm=90)
    result = api.check(sorted(grouped.glob("*_Mixed_*.generated.cu")))
    rows = [r for f in result.files for r in f.instantiations]
    assert len(rows) == 940
    verdicts = Counter(r.verdict for r in rows)
    assert verdicts[Verdict.FAILS_INITIALIZE] == 16
    assert verdicts[Verdict.UNREACHABLE] == 340
    assert verdicts[Verdict.NOT_MODELED] == 0
    over = [r for r in rows if r.resources and r.resources.layout.size > 232_448]
    assert len(over) == 40
    assert Counter(r.verdict for r in over) == {
        Verdict.FAILS_INITIALIZE: 16,
        Verdict.UNREACHABLE: 24,
    }
    family = family_named("sm90-mixed-moe")
    ids = sorted(
        family.describe(r.recipe)[-1]
        for r in over
        if r.verdict is Verdict.FAILS_INITIALIZE and r.recipe
    )
    gemm1 = sorted(int(i.split(",")[0].removeprefix("GEMM1 ")) for i in ids)
    assert gemm1 == [*range(44, 48), *range(92, 96), *range(100, 104), *range(108, 112)]
