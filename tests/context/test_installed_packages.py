"""An installed producer package says the release and the CUTLASS it vendors (origin
"package"): read from a fake site directory holding a `.dist-info`, never a real install."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.build_context import BuildInfo, Origin
from cutlint.context import packages
from cutlint.context.resolve import resolve
from cutlint.records import Verdict


def fake_site(tmp_path: Path, name: str, version: str, cutlass: Path | None = None) -> Path:
    """A site-packages directory with `name` `version` installed (its dist-info), and, for
    flashinfer-python, its vendored CUTLASS headers (a link to a real release's)."""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if cutlass is not None:
        data = site / "flashinfer" / "data"
        data.mkdir(parents=True)
        (data / "cutlass").symlink_to(cutlass)
    return site


def test_the_installed_flashinfer_says_release_and_cutlass(
    flashinfer_root: Any, real_cache: Any, tmp_path: Path
) -> None:
    """FlashInfer 0.5.2's fused-MoE files with no version in their path and no build file: the
    flashinfer-python 0.5.2 installed in the build's environment says the release (its
    14-argument macro: no CUT004, fpA_intB inactive) and its CUTLASS."""
    wheel = flashinfer_root("0.5.2")
    site = fake_site(
        tmp_path, "flashinfer-python", "0.5.2", wheel / "flashinfer" / "data" / "cutlass"
    )
    files = tmp_path / "work" / "cutlass_instantiations" / "120"
    shutil.copytree(real_cache("0.5.2").parents[1], files)
    one = str(next(files.rglob("*.generated.cu")))

    ctx = resolve(one, BuildInfo(site_packages=packages.site_dirs([str(tmp_path / "venv")])))
    assert ctx.release is not None and ctx.producer is not None and ctx.cutlass_version
    assert (ctx.release.value, ctx.release.origin) == ("0.5.2", Origin.PACKAGE)
    assert ctx.cutlass_version.origin is Origin.PACKAGE
    assert ctx.cutlass_version.where.startswith(str(site))

    result = api.check([files], api.CheckOptions(site_packages=(str(tmp_path / "venv"),)))
    rules = {d.rule for d in result.all_diagnostics()}
    assert "CUT004" not in rules, rules
    rows = [r for f in result.files for r in f.instantiations]
    mixed = [r for r in rows if "mixed_gemm" in r.instantiation.name]
    assert mixed and all(r.verdict is Verdict.INACTIVE for r in mixed)

    # Nothing installed: the release is unknown, and the 14-argument calls are notes (CUT020).
    bare = api.check([files], api.CheckOptions(site_packages=(str(tmp_path / "empty"),)))
    assert "CUT004" not in {d.rule for d in bare.all_diagnostics() if d.severity.value == "error"}
    assert all(f.context is None or f.context.release is None for f in bare.files)


def test_an_install_of_another_release_does_not_say_a_versioned_caches_release(
    tmp_path: Path,
) -> None:
    """FlashInfer's JIT writes under its own version: a `0.6.3/` cache was written by 0.6.3,
    whatever is installed now, so the installed 0.7.4 does not claim it (the path stays a
    guess); an installed 0.6.3 confirms it."""
    path = tmp_path / "flashinfer/0.6.3/120a/generated/cutlass_instantiations/120/x.generated.cu"
    path.parent.mkdir(parents=True)
    path.write_text("")
    other = fake_site(tmp_path / "a", "flashinfer-python", "0.7.4")
    same = fake_site(tmp_path / "b", "flashinfer-python", "0.6.3")
    ctx = resolve(str(path), BuildInfo(site_packages=(str(other),)))
    assert ctx.release is not None and ctx.release.origin is Origin.LAYOUT
    ctx = resolve(str(path), BuildInfo(site_packages=(str(same),)))
    assert ctx.release is not None
    assert (ctx.release.value, ctx.release.origin) == ("0.6.3", Origin.PACKAGE)


def test_an_installed_tensorrt_llm_says_the_release_of_its_source_tree(tmp_path: Path) -> None:
    path = tmp_path / "cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/x.cu"
    path.parent.mkdir(parents=True)
    path.write_text("")
    site = fake_site(tmp_path, "tensorrt_llm", "1.2.0")
    ctx = resolve(str(path), BuildInfo(site_packages=(str(site),)))
    assert ctx.producer is not None and ctx.release is not None
    assert (ctx.producer.value, ctx.release.value) == ("tensorrt_llm", "1.2.0")
    assert ctx.release.origin is Origin.PACKAGE
