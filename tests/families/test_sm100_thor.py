"""Jetson Thor (sm_110) caches as FlashInfer writes them, and the SM100 families judging them.

FlashInfer builds its SM100 fused-MoE module on 11.0 (fused_moe/core.py
`get_cutlass_fused_moe_module`: backend "110" -> `gen_cutlass_fused_moe_sm100_module`, which
generates `cutlass_instantiations/100` and compiles it with `-gencode=arch=compute_110a,
code=sm_110a`), under the `110a` arch directory. The nvcc rows in
tests/data/nvcc_sm100_sm110_truth.json are `cutlint verify --arch sm_110` of such files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutlint.api import check
from cutlint.model.arch import arch_for, builds
from cutlint.producers.flashinfer import cache_layout
from cutlint.producers.flashinfer.wheel import cache_dir, generate_cache, moe_device
from cutlint.records import Verdict

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_sm100_sm110_truth.json"
THOR_FILE = (
    "/c/flashinfer/0.7.4/110a/generated/cutlass_instantiations/100/gemm_grouped/100/"
    "cutlass_kernel_file_gemm_grouped_sm100_M128_group0.generated.cu"
)


def test_a_thor_cache_is_the_sm100_module_under_110a() -> None:
    assert moe_device("0.6.3", 110) == moe_device("0.7.4", 110) == "100"
    assert moe_device("0.7.4", 103) == "103" and moe_device("0.7.4", 121) == "120"
    assert cache_dir(Path("/c"), "0.7.4", 110) == Path(
        "/c/flashinfer/0.7.4/110a/generated/cutlass_instantiations/100"
    )
    # the device is the arch directory's, not the module's
    assert cache_layout.compile_target(THOR_FILE) == (110, "a")
    assert cache_layout.generated_for_sm(THOR_FILE) == 110


def test_sm110_builds_sm100_kernels_by_the_arch_data() -> None:
    thor = arch_for("sm_110")
    assert thor.builds_cutlass_arch_tags == ("Sm100",)
    assert "config.hpp" in thor.sources["builds_cutlass_arch_tags"]
    assert thor.smem_optin == 232448 and "arch_traits" in thor.sources["smem_optin"]
    assert builds("Sm100") == (100, 103, 110) and builds("Sm103") == (103,)
    assert arch_for("sm_120").builds_cutlass_arch_tags == ()


@pytest.mark.parametrize(
    ("version", "total", "grouped"), [("0.6.3", 1782, 1344), ("0.7.4", 1914, 1476)]
)
def test_a_thor_cache_is_modeled_for_sm110(
    flashinfer_root: Any, tmp_path: Path, version: str, total: int, grouped: int
) -> None:
    """Every instantiation modeled, the fpA_intB calls compiled out (the SM100 module does not
    define COMPILE_HOPPER_TMA_GEMMS), no CUT204, and the dispatch's reasons SM100's own."""
    leaf = generate_cache(flashinfer_root(version), version, tmp_path, 110)
    assert leaf == cache_dir(tmp_path, version, 110) / "gemm_grouped" / "100"
    generated = tmp_path / "flashinfer" / version / "110a" / "generated"
    assert {p.name for p in (generated / "cutlass_instantiations").iterdir()} == {"100"}
    result = check([generated])
    rows = [i for f in result.files for i in f.instantiations]
    verdicts = Counter(r.verdict for r in rows)
    assert len(rows) == total
    assert verdicts[Verdict.NOT_MODELED] == 0
    assert verdicts[Verdict.INACTIVE] == 378
    diags = [d for r in rows for d in r.diagnostics]
    assert not [d for d in diags if d.rule in ("CUT204", "CUT010")]
    assert all(r.resources is None or r.resources.arch.name == "sm_110" for r in rows)
    never = [d for d in diags if d.rule == "CUT203"]
    assert len(never) == 288
    assert not [d for d in never if "103" in d.message]
    sm100 = [r for r in rows if r.instantiation.args and r.instantiation.args[0] == "Sm100"]
    assert len(sm100) == grouped
    # the dispatch's source names the SM100 cases only: a Thor never takes the SM103 branch
    sources = {r.resources.dispatch_source for r in sm100 if r.resources is not None}
    assert sources and all("SHAPE_CASE(100, ...)" in s and "103" not in s for s in sources)


def test_the_jit_modules_thor_builds(flashinfer_root: Any, tmp_path: Path) -> None:
    """0.7.4: the SM100 FP4/FP8/BF16/MXFP8 modules take majors [10, 11]; the groupwise and the
    NVFP4 svdquant modules take [10] only, so FlashInfer raises before building them on 11.0."""
    from cutlint.producers.flashinfer.jit_modules import render_jit_specs

    not_built: list[str] = []
    modules = render_jit_specs(
        flashinfer_root("0.7.4"), "0.7.4", tmp_path, 110, not_built=not_built
    )
    assert sorted(not_built) == [
        "gen_gemm_sm100_module",
        "gen_gemm_sm100_module_cutlass_nvfp4_svdquant",
    ]
    assert sorted(m.name for m in modules) == [
        "bf16_gemm_cutlass",
        "fp4_gemm_cutlass",
        "fp8_gemm_cutlass",
        "mxfp8_gemm_cutlass",
    ]
    assert {m.arch_flags for m in modules} == {("-gencode=arch=compute_110a,code=sm_110a",)}
    root = tmp_path / "flashinfer" / "0.7.4" / "110a" / "generated"
    assert not (root / "gen_gemm_sm100").exists()  # the refused module's files removed
    result = check([root])
    rows = [i for f in result.files for i in f.instantiations]
    assert rows and not [r for r in rows if r.verdict is Verdict.NOT_MODELED]


def truth_files() -> dict[tuple[str, str], list[dict[str, Any]]]:
    data: dict[str, Any] = json.loads(TRUTH.read_text())
    cols = data["columns"]
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in data["rows"]:
        row = dict(zip(cols, r, strict=True))
        out.setdefault((row["version"], row["file"]), []).append(row)
    return out


@pytest.fixture(scope="module")
def thor_cache(flashinfer_root: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """version -> the `gemm_grouped/100` directory of a Thor cache written by its generator."""
    made: dict[str, Path] = {}

    def get(version: str) -> Path:
        if version not in made:
            base = tmp_path_factory.mktemp(f"thor-{version}")
            made[version] = generate_cache(flashinfer_root(version), version, base, 110)
        return made[version]

    return get


@pytest.mark.parametrize(("version", "name"), sorted(truth_files()))
def test_sm110_numbers_equal_nvcc(version: str, name: str, thor_cache: Any) -> None:
    """`cutlint verify --arch sm_110` rows (nvcc 13.0, -gencode=arch=compute_110a,code=sm_110a)
    against `check` of the same file, judged for sm_110 by its path."""
    rows = truth_files()[(version, name)]
    assert all(r["agree"] for r in rows)
    result = check([thor_cache(version) / name])
    by_line = {i.instantiation.span.line: i for f in result.files for i in f.instantiations}
    for row in rows:
        got = by_line[row["line"]]
        assert ",".join(got.instantiation.args).replace(" ", "") == row["args"].replace(" ", "")
        res = got.resources
        assert res is not None and res.arch.name == "sm_110"
        assert res.stage_count.stages == row["stages"]
        assert res.layout.size == row["kernel_smem"]
        assert res.layout.align == row["kernel_align"]
        assert res.layout.mainloop_size == row["mainloop_smem"]
        assert res.layout.epilogue_size == row["epilogue_smem"]
        assert res.max_threads_per_block == row["max_threads_per_block"]


def test_verify_compiles_a_thor_file_for_sm110a() -> None:
    """The probe keeps the SM100 module's defines and takes the device's gencode from the arch
    directory; the cached result is keyed by that device."""
    from cutlint.verify.cache import Toolchain, cache_key
    from cutlint.verify.probe_flags import SM100_TARGET, device_gencode, for_device

    thor = for_device(SM100_TARGET, Path(THOR_FILE))
    assert thor.gencode == "-gencode=arch=compute_110a,code=sm_110a"
    assert thor.defines == SM100_TARGET.defines
    b200 = THOR_FILE.replace("/110a/", "/100a/")
    assert for_device(SM100_TARGET, Path(b200)) == SM100_TARGET
    assert device_gencode(b200) is None
    tc = Toolchain("0.7.4", "l", "v", "13.0", "p")
    assert cache_key(tc, "f", ["a"]) != cache_key(tc, "f", ["a"], device_gencode(THOR_FILE))


GROUPED_110A = (
    "cutlass3x_sm100_tensorop_gemm_grouped_bf16_bf16_f32_bf16_bf16_128x128x64_0x0x1_0_nnn_align8_*"
)
"""Four ptr-array kernels (1-SM, 2-SM with the TMA epilogue, and their stream-K twins) of the shell
NVIDIA/cutlass#2784 names, as cutlass_library writes them for 110a."""


def test_cutlass_library_grouped_kernels_on_thor(cutlass_library_build: Any) -> None:
    """A 110a cutlass_library build judged for sm_110 with CUTLASS 4.2.0: nvcc's numbers for
    sm_110a (tests/data/nvcc_cutlass_library_sm110_grouped_truth.json), every kernel exactly at
    the 232,448 B the shell's static_assert allows (CUT102), none over (no CUT106)."""
    from cutlint.api import CheckOptions

    truth = json.loads(
        (
            Path(__file__).parents[1] / "data" / "nvcc_cutlass_library_sm110_grouped_truth.json"
        ).read_text()
    )
    assert truth["arch"] == "110a"
    generated = cutlass_library_build("110a", GROUPED_110A)
    result = check([generated], CheckOptions(arch="sm_110", cutlass_version="4.2.0"))
    by_file = {
        str(Path(f.path).relative_to(generated)): i for f in result.files for i in f.instantiations
    }
    assert len(by_file) == len(truth["rows"]) == 4
    for row in truth["rows"]:
        got = by_file[row["file"]]
        res = got.resources
        assert res is not None and res.arch.name == "sm_110", row["file"]
        assert res.stage_count.stages == row["stages"]
        assert res.layout.size == row["kernel_smem"] == 232448
        assert res.layout.align == row["kernel_align"]
        assert res.layout.mainloop_size == row["mainloop_smem"]
        assert res.layout.epilogue_size == row["epilogue_smem"]
        assert res.max_threads_per_block == row["threads"]
        assert {d.rule for d in got.diagnostics} == {"CUT102"}
