"""`pregen`, `verify` and `explain` read the file's context as `check` resolves it
(cutlint.context.resolve): the same file, in FlashInfer's layout or copied flat with its build
command, gets the same pregen verdict, the same verify probe flags and the same explain release."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.context.of_file import release_at, target_at
from cutlint.explain.cache import CacheIndex
from cutlint.producers.flashinfer.jit_build import moe_command
from cutlint.producers.flashinfer.releases import known_release
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.verify.probe_flags import device_gencode


def _flat(files: list[Path], dest: Path) -> dict[str, str]:
    """Copy `files` into one flat directory: copied path -> original file name."""
    dest.mkdir(parents=True)
    out = {}
    for i, f in enumerate(files):
        copy = dest / f"{i:04d}_{f.name}"
        shutil.copy(f, copy)
        out[str(copy)] = f.name
    return out


def test_pregen_judges_as_check_does_in_the_layout_and_flat_with_the_command(
    flashinfer_root: Any, real_cache: Any, tmp_path: Path
) -> None:
    version = "0.7.2.post1"
    root = flashinfer_root(version)
    pre = api.pregen_flashinfer(root=root, version=version, arch="sm120")
    by_op = {
        (Path(o.result.instantiation.span.path).name, o.result.instantiation.span.line): o.result
        for o in pre.operations
    }
    real = sorted(real_cache(version).parent.parent.rglob("*.generated.cu"))
    module = known_release(version)[0].jit_module("120")  # type: ignore[union-attr]
    assert module is not None
    flat = _flat(real, tmp_path / "flat")
    in_layout = api.check([str(p) for p in real])
    moved = api.check(
        sorted(flat), api.CheckOptions(compile_command=moe_command(root, module, "120a"))
    )
    for result, name in ((in_layout, lambda p: Path(p).name), (moved, flat.__getitem__)):
        got = {
            (name(f.path), r.instantiation.span.line): r.verdict
            for f in result.files
            for r in f.instantiations
        }
        assert got == {k: r.verdict for k, r in by_op.items()}
    # one build context for the module's files (the #defines their calls are read by aside)
    (ctx,) = {f.context.model_copy(update={"macros": None}) for f in moved.files if f.context}
    assert ctx is not None and ctx.release is not None and ctx.release.value == version


def test_verify_probe_flags_follow_the_build_not_the_path(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """A Jetson Thor (sm 110) builds the SM100 fused-MoE module with its own -gencode: the probe
    compiles for it whether the file lies in `110a/generated/cutlass_instantiations/100/` or in a
    flat directory whose compile_commands.json says the same command."""
    version = "0.7.4"
    root = flashinfer_root(version)
    device = generate_cache(root, version, tmp_path / "real", sm=110)
    files = sorted(device.rglob("*.generated.cu"))[:3]
    thor = "-gencode=arch=compute_110a,code=sm_110a"
    assert [device_gencode(f) for f in files] == [thor] * len(files)
    flat = _flat(files, tmp_path / "flat")
    module = known_release(version)[0].jit_module("100")  # type: ignore[union-attr]
    assert module is not None
    command = moe_command(root, module, "110a")
    (tmp_path / "flat" / "compile_commands.json").write_text(
        json.dumps([{"directory": str(tmp_path), "file": p, "command": command} for p in flat])
    )
    assert [device_gencode(p) for p in sorted(flat)] == [thor] * len(files)
    assert [target_at(p) for p in sorted(flat)] == [(110, "a")] * len(files)
    # and the release the probe's headers are chosen by: the wheel's _build_meta.py
    assert {release_at(p) for p in sorted(flat)} == {version}


def test_explain_reads_the_release_from_the_files_context(
    flashinfer_root: Any, real_cache: Any, tmp_path: Path
) -> None:
    version = "0.7.2.post1"
    root = flashinfer_root(version)
    real = sorted(real_cache(version).parent.parent.rglob("*.generated.cu"))[:4]
    flat = _flat(real, tmp_path / "flat")
    module = known_release(version)[0].jit_module("120")  # type: ignore[union-attr]
    assert module is not None
    options = api.CheckOptions(compile_command=moe_command(root, module, "120a"))
    for checked in (api.check([str(p) for p in real]), api.check(sorted(flat), options)):
        assert CacheIndex.of("", checked).flashinfer_versions == (version,)
    # nothing but a flat path: no release, and explain says so rather than guess one
    assert CacheIndex.of("", api.check(sorted(flat))).flashinfer_versions == ()
