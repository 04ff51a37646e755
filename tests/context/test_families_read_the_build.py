"""A family reads the build where one macro name stands for several arches' kernels: FlashInfer
0.5.x - 0.6.10's SM100 and SM120 FP4 GEMM headers both define an 8-argument
INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER. In the JIT cache the module directory says which; copied
flat and checked with the module's own nvcc command, its `-gencode` says it (no SM100 claim and
no "fails at run time" for an SM120 build)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.records import Verdict


def _command(build_ninja: Path) -> str:
    """The module's nvcc flags from its build.ninja (include path, defines, -gencode)."""
    text = re.sub(r"\$\n\s*", "", build_ninja.read_text())
    flags = re.search(r"^cuda_cflags = (.*)$", text, re.MULTILINE)
    common = re.search(r"^common_cflags = (.*)$", text, re.MULTILINE)
    assert flags and common
    return "nvcc " + flags[1].replace("$common_cflags", common[1])


def test_the_sm120_fp4_module_copied_flat_with_its_command_is_judged_as_in_its_cache(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    flashinfer_root("0.6.3")  # the wheel, or skip
    run = CliRunner().invoke(
        main,
        [
            "generate",
            "flashinfer",
            "0.6.3",
            "--sm",
            "120",
            "--jit-gemm",
            "-q",
            "--out",
            str(tmp_path),
        ],
    )
    assert run.exit_code == 0, run.output
    generated = Path(run.output.strip().splitlines()[-1])
    module = generated / "gen_gemm_sm120_cutlass_fp4"
    files = sorted(module.glob("*.cu"))
    assert files
    flat = tmp_path / "flat"
    flat.mkdir()
    for f in files:
        shutil.copy(f, flat / f.name)
    command = _command(generated.parent / "cached_ops" / "fp4_gemm_cutlass_sm120" / "build.ninja")
    assert "sm_120a" in command

    def verdicts(result: api.CheckResult) -> dict[tuple[str, int], Verdict]:
        return {
            (Path(f.path).name, r.instantiation.span.line): r.verdict
            for f in result.files
            for r in f.instantiations
        }

    in_cache = api.check([module])
    moved = api.check([flat], api.CheckOptions(compile_command=command))
    assert verdicts(moved) == verdicts(in_cache)
    assert set(verdicts(moved).values()) <= {Verdict.FITS, Verdict.ZERO_SLACK}
    assert "CUT204" not in {d.rule for d in moved.all_diagnostics()}
    families = {r.recipe.family for f in moved.files for r in f.instantiations if r.recipe}
    assert families and not any("sm100" in name for name in families), families
