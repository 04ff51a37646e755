"""A launcher's dispatch verdict (CUT202, CUT203, CUT208: "never dispatched") rests on the
release's own tables (`are_tile_shapes_supported_sm100`, the `SHAPE_CASE` lists): it stands when
the release is read from the build's files or a flag, and is a CUT020 note when only the path
(or nothing) says which release wrote the file."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.build_context import Origin
from cutlint.records import CheckResult, Verdict


def _count(result: CheckResult, verdict: Verdict) -> int:
    return sum(1 for f in result.files for r in f.instantiations if r.verdict is verdict)


def test_the_cache_keeps_its_dispatch_findings_only_where_its_files_say_the_release(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    from cutlint.producers.flashinfer.wheel import generate_cache

    root = flashinfer_root("0.7.4")
    device = generate_cache(root, "0.7.4", tmp_path / "real", sm=103)
    generated = next(p for p in device.parents if p.name == "generated")
    # In FlashInfer's layout, the JIT's build.ninja puts the wheel's headers on the include
    # path: its _build_meta.py says the release (a header), and the findings stand.
    real = api.check([generated])
    dispatched = _count(real, Verdict.UNREACHABLE)
    assert dispatched > 0
    (release,) = {f.context.release for f in real.files if f.context and f.context.release}
    assert release.origin is Origin.HEADER and release.value == "0.7.4"
    assert _count(real, Verdict.CONTEXT_UNKNOWN) == 0
    # The same layout without the build files: the release is read off the path only. Even
    # with the GPU and CUTLASS said, the dispatch findings become notes that name the flag.
    bare = tmp_path / "bare" / "flashinfer" / "0.7.4" / generated.parent.name / "generated"
    shutil.copytree(generated, bare)
    cutlass = str(root / "flashinfer/data/cutlass/include")
    said = api.CheckOptions(arch="sm_103", cutlass_version=cutlass)
    guessed = api.check([bare], said)
    assert _count(guessed, Verdict.UNREACHABLE) == 0
    assert _count(guessed, Verdict.CONTEXT_UNKNOWN) == dispatched
    notes = [d.message for d in guessed.all_diagnostics() if d.rule == "CUT020"]
    assert notes and all("--flashinfer-version" in m and "read off the path" in m for m in notes)
    # --flashinfer-version settles it.
    settled = api.check(
        [bare], api.CheckOptions(arch="sm_103", cutlass_version=cutlass, flashinfer_version="0.7.4")
    )
    assert _count(settled, Verdict.UNREACHABLE) == dispatched
