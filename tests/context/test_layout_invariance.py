"""The same bytes get the same verdicts wherever they lie, or the copy says "context unknown":
never a failure the real layout does not give (issue: one truth per file).

Each real input is checked in its real place (FlashInfer's cache layout, with the JIT's
build.ninja beside generated/), copied to a flat directory, and copied again under other names.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.records import CheckResult, Verdict

FAILURES = {
    Verdict.FAILS_COMPILE,
    Verdict.FAILS_INITIALIZE,
    Verdict.FAILS_RUN,
    Verdict.UNREACHABLE,
}


def verdicts(result: CheckResult, by: dict[str, str]) -> dict[tuple[str, int], Verdict]:
    """(original file name, line) -> verdict; `by` maps a checked path to its original name."""
    return {
        (by[f.path], r.instantiation.span.line): r.verdict
        for f in result.files
        for r in f.instantiations
    }


def copies(real: Path, dest: Path) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The real files, a flat copy and a renamed copy: each a map checked path -> original name."""
    files = sorted(p for p in real.rglob("*.cu"))
    flat, renamed = dest / "flat", dest / "renamed" / "some" / "where"
    flat.mkdir(parents=True)
    renamed.mkdir(parents=True)
    real_map, flat_map, renamed_map = {}, {}, {}
    for i, f in enumerate(files):
        key = str(f.relative_to(real))
        real_map[str(f)] = key
        shutil.copy(f, flat / f"{i:04d}_{f.name}")
        flat_map[str(flat / f"{i:04d}_{f.name}")] = key
        shutil.copy(f, renamed / f"kernels_{i}.cu")
        renamed_map[str(renamed / f"kernels_{i}.cu")] = key
    return real_map, flat_map, renamed_map


def assert_invariant(real: Path, tmp_path: Path) -> dict[Verdict, int]:
    real_map, flat_map, renamed_map = copies(real, tmp_path)
    checked = api.check([real])
    base = verdicts(checked, real_map)
    assert base, "nothing checked in the real layout"
    errors = {d.rule for d in checked.all_diagnostics() if d.severity.value == "error"}
    for mapping in (flat_map, renamed_map):
        result = api.check(sorted(mapping))
        moved = verdicts(result, mapping)
        # no error the real layout does not report (a guessed macro arity is a note, CUT020)
        assert {d.rule for d in result.all_diagnostics() if d.severity.value == "error"} <= errors
        assert moved.keys() == base.keys()
        for key, v in moved.items():
            if v is base[key]:
                continue
            # a copy may know less (context unknown), never fail where the layout does not
            assert v not in FAILURES, (key, base[key], v)
            assert v is Verdict.CONTEXT_UNKNOWN or base[key] not in FAILURES, (key, base[key], v)
    return {v: sum(1 for x in base.values() if x is v) for v in Verdict}


@pytest.mark.parametrize("version", ["0.5.2", "0.6.3", "0.6.8.post1", "0.7.4"])
def test_a_cache_copied_flat_or_renamed_never_fails_differently(
    version: str, real_cache: Any, tmp_path: Path
) -> None:
    counts = assert_invariant(real_cache(version), tmp_path)
    assert counts[Verdict.CONTEXT_UNKNOWN] == 0  # in its place, the cache's context is known


def test_jit_modules_copied_flat_or_renamed_never_fail_differently(
    jit_modules: Any, tmp_path: Path
) -> None:
    modules = jit_modules("0.7.4")
    gen = Path(modules[0].generated[0])
    while gen.name != "generated":
        gen = gen.parent
    counts = assert_invariant(gen, tmp_path)
    assert counts[Verdict.CONTEXT_UNKNOWN] == 0


def test_flashinfer_052_where_pip_installs_it(
    flashinfer_root: Any, real_cache: Any, tmp_path: Path
) -> None:
    """FlashInfer 0.5.2's JIT wrote the fused-MoE sources into the installed package
    (jit/fused_moe.py: FLASHINFER_CSRC_DIR / nv_internal/tensorrt_llm/cutlass_instantiations/
    <dev>): there its _build_meta.py and vendored CUTLASS say the release, so its 14-argument
    macro is read as such (no CUT004) and the fpA_intB launchers are inactive."""
    wheel = flashinfer_root("0.5.2")
    pkg = tmp_path / "site-packages" / "flashinfer"
    pkg.mkdir(parents=True)
    shutil.copy(wheel / "flashinfer" / "_build_meta.py", pkg / "_build_meta.py")
    (pkg / "data").mkdir()
    (pkg / "data" / "cutlass").symlink_to(wheel / "flashinfer" / "data" / "cutlass")
    generated = real_cache("0.5.2").parents[1]  # .../cutlass_instantiations/120
    dest = pkg / "data/csrc/nv_internal/tensorrt_llm/cutlass_instantiations/120"
    shutil.copytree(generated, dest)
    result = api.check([dest])
    rules = {d.rule for d in result.all_diagnostics()}
    assert "CUT004" not in rules, rules
    rows = [r for f in result.files for r in f.instantiations]
    mixed = [r for r in rows if "mixed_gemm" in r.instantiation.name]
    assert mixed and all(r.verdict is Verdict.INACTIVE for r in mixed)
    assert not [r for r in rows if r.verdict in FAILURES]
    (ctx,) = {f.context for f in result.files if f.context is not None}
    assert ctx.release is not None and ctx.release.value == "0.5.2"


def test_a_cutlass_library_build_finds_its_cutlass(cutlass_library_build: Any) -> None:
    """No version flag: the build's compile_commands.json puts the wheel's headers on the include
    path, and its version.h says 4.2.0; every kernel is modeled as with --cutlass-version."""
    build = cutlass_library_build("120a", "cutlass3x_sm120*")
    found = api.check([build])
    said = api.check([build], api.CheckOptions(arch="sm_120", cutlass_version="4.2.0"))
    assert len(found.files) > 100
    get = {
        (f.path, r.instantiation.span.line): r.verdict for f in said.files for r in f.instantiations
    }
    assert {
        (f.path, r.instantiation.span.line): r.verdict
        for f in found.files
        for r in f.instantiations
    } == get
    assert Verdict.NOT_MODELED not in set(get.values())


def test_a_whole_device_directory_copied_flat_fails_nowhere_new(
    real_cache: Any, tmp_path: Path
) -> None:
    """0.7.2.post1's SM120 fused-MoE directory whole (gemm_grouped/120, the Ampere gemm_grouped/80
    that an SM120 GPU runs, the fpA_intB gemm/90), copied flat: each failure of the real layout
    (4 SM120, 20 SM80 on sm_120) is "context unknown" in the copy. The `_sm80_` of a fused-MoE
    file's name is the kernel's arch, not the GPU: judging it for sm_80 said "fits"."""
    device_dir = real_cache("0.7.2.post1").parents[1]  # .../cutlass_instantiations/120
    counts = assert_invariant(device_dir, tmp_path)
    failing = sum(counts[v] for v in FAILURES)
    assert failing == 24
    flat = sorted((tmp_path / "flat").glob("*.cu"))
    moved = Counter(r.verdict for f in api.check(flat).files for r in f.instantiations)
    assert moved[Verdict.CONTEXT_UNKNOWN] == failing
