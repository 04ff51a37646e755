"""The sm120-nvfp4-gemm family: vLLM 0.34.0's 8 SM120 NVFP4 kernels
(`csrc/quantization/fp4/nvfp4_scaled_mm_sm120_kernels.cu`, 12.0a, FlashInfer 0.7.4's CUTLASS 4.5.0
headers), each as `cutlint tu` reads it, with nvcc 13.0's numbers. The family's truth.py replays
the rows through the seam `cutlint tu` uses; the registry's harness compares them
(tests/families/test_truth.py). Here: what the rows cover, the claim order against
sm120-collective-builder, and (slow) the TU read end to end.

    python -m tests.families.test_sm120_nvfp4_gemm   # record the rows again (a TU read, one nvcc)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass.versions import cutlass_model
from cutlint.families import registry
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.families.sm120_nvfp4_gemm import model
from cutlint.families.sm120_nvfp4_gemm.truth import TU, _kernel
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.tu.forms import instantiation

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_sm120_nvfp4_gemm_truth.json"
ROWS: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]
CTX = ModelContext(arch=arch_for("sm_120a"), cutlass=cutlass_model((4, 5, 0), "truth"))
DEFINE = "-DENABLE_NVFP4_SM120=1"
"""What vLLM's CMakeLists.txt appends to VLLM_GPU_FLAGS for its FP4_SM120 sources."""


def test_the_rows_are_vllm_s_8_kernels() -> None:
    """2 configs x bf16/half x bias on/off; nvcc and libclang agree on every one."""
    assert len({r["type_expr"] for r in ROWS}) == len(ROWS) == 8
    for config in ("sm120_fp4_config_default", "sm120_fp4_config_M256"):
        for out in ("bfloat16_t", "half_t"):
            for bias in ("true", "false"):
                te = f"typename ::Fp4GemmSm120<::{config}, ::cutlass::{out}, {bias}>::Gemm"
                assert any(r["type_expr"] == te for r in ROWS), te
    for r in ROWS:
        assert r["libclang"]["shared_storage"] == r["nvcc"]["shared_storage"]
        assert r["libclang"]["stages"] == r["nvcc"]["stages"]


def _claimed(row: dict[str, Any]) -> tuple[str, CollectiveBuilderRecipe]:
    inst = instantiation(_kernel(row))
    assert inst is not None
    claimed = registry.claim(inst, CTX)
    assert claimed is not None
    family, recipe = claimed
    assert isinstance(recipe, CollectiveBuilderRecipe)
    return family.name, recipe


def _with_mainloop(row: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    built = dict(row["built"])
    built["mainloop_builder"] = built["mainloop_builder"].replace(old, new)
    return {**row, "built": built}


def test_an_explicit_nvf4_schedule_stays_sm120_collective_builder_s() -> None:
    """Only the builder's own choice (KernelScheduleAuto) is this family's: the same chain
    with KernelTmaWarpSpecializedNvf4Sm120 is claimed by sm120-collective-builder."""
    row = ROWS[0]
    assert _claimed(row)[0] == "sm120-nvfp4-gemm"
    explicit = _with_mainloop(
        row,
        "cutlass::gemm::collective::KernelScheduleAuto",
        "cutlass::gemm::KernelTmaWarpSpecializedNvf4Sm120",
    )
    assert _claimed(explicit)[0] == "sm120-collective-builder"


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        (
            "cutlass::nv_float4_t<cutlass::float_e2m1_t>",
            "cutlass::mx_float4_t<cutlass::float_e2m1_t>",
            "the model covers cutlass::nv_float4_t",
        ),
        ("cute::C<256>, cute::C<128>, cute::C<128>", "cute::C<256>, cute::C<64>, cute::C<128>", ""),
    ],
)
def test_what_the_model_does_not_cover_is_said(old: str, new: str, why: str) -> None:
    row = next(r for r in ROWS if "config_default" in r["type_expr"])
    name, recipe = _claimed(_with_mainloop(row, old, new))
    assert name == "sm120-nvfp4-gemm"
    reason = model.plan(recipe, CTX.cutlass)
    assert isinstance(reason, str)
    assert why in reason


@pytest.mark.slow
def test_the_vllm_tu_every_kernel_modeled_equal_to_the_measured_layout() -> None:
    pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")
    from cutlint.engine.tu_judge import FITS, judge
    from cutlint.parse.tu import from_flags, read_tu

    read = read_tu(from_flags(*_inputs()), use_cache=False)
    verdicts = judge(read)
    assert len(verdicts) == 8
    assert all(v.verdict == FITS for v in verdicts)
    assert all(v.model and v.model.family == "sm120-nvfp4-gemm" for v in verdicts)
    assert all(v.model and v.model.equals(v.kernel) for v in verdicts)


def _inputs() -> tuple[Path, list[str]]:
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist

    try:
        vllm = download_sdist("0.34.0")
        include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    except Exception as err:  # no network: say so
        pytest.skip(f"inputs unavailable: {err}")
    flags = [f for f in cmake_flags(vllm, include, "12.0a") if not f.startswith("-DENABLE_")]
    return vllm / TU, [*flags, DEFINE]


# --- recording the rows (by hand) -----------------------------------------------------------------

_PROBE_MAIN = r"""
#ifndef __CUDA_ARCH__
#include <cstdio>
template <class K> void show(const char* name) {
  std::printf("%s|%ld|%ld|%ld|%ld\n", name, (long)sizeof(typename K::SharedStorage),
      (long)K::SharedStorageSize, (long)K::CollectiveMainloop::DispatchPolicy::Stages,
      (long)sizeof(typename K::CollectiveEpilogue::SharedStorage));
}
int main() {
@CALLS@
  return 0;
}
#endif
"""


def _probe(tu: Path, type_exprs: list[str]) -> str:
    """A host-only probe: the TU's CUTLASS includes and its config structs and Fp4GemmSm120
    (from the first config struct to the end of Fp4GemmSm120; cutlint tu --verify's probe takes
    the includes only), and a main printing each kernel's numbers."""
    text = tu.read_text()
    includes = re.findall(r'^#include "cutlass/[^"]*"$', text, re.MULTILINE)
    start = text.index("struct sm120_fp4_config_M256")
    end = text.index("};", text.index("struct Fp4GemmSm120")) + 2
    calls = "\n".join(
        f'  show<typename {te.removeprefix("typename ").removesuffix("::Gemm")}::GemmKernel>("{te}");'
        for te in type_exprs
    )
    main = _PROBE_MAIN.replace("@CALLS@", calls)
    return "\n".join([*includes, "using namespace cute;", text[start:end], main])


def _write() -> None:  # pragma: no cover - run by hand
    from cutlint.parse.tu import from_flags, read_tu

    tu, flags = _inputs()
    read = read_tu(from_flags(tu, flags), use_cache=False)
    exprs = [k.type_expr for k in read.kernels]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.cu"
        src.write_text(_probe(tu, exprs))
        nvcc_flags = [f for f in flags if f.startswith(("-I", "-D", "-std="))]
        gencode = "-gencode=arch=compute_120a,code=sm_120a"
        cmd = ["nvcc", "-x", "cu", *nvcc_flags, gencode, str(src), "-o", f"{tmp}/probe"]
        subprocess.run(cmd, check=True)
        out = subprocess.run([f"{tmp}/probe"], check=True, capture_output=True, text=True).stdout
        version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    keys = ("shared_storage", "shared_storage_size", "stages", "epilogue_shared_storage")
    nvcc = {
        line.split("|")[0]: dict(zip(keys, map(int, line.split("|")[1:]), strict=True))
        for line in out.splitlines()
    }
    rows = [
        {
            "type_expr": k.type_expr,
            "built": k.built.model_dump(mode="json") if k.built else None,
            "libclang": {"shared_storage": k.shared_storage, "stages": k.stages},
            "nvcc": nvcc[k.type_expr],
        }
        for k in read.kernels
    ]
    data = {
        "vllm": "0.34.0",
        "file": TU,
        "arch": "12.0a",
        "cutlass": "4.5.0 (FlashInfer 0.7.4's flashinfer/data/cutlass)",
        "nvcc": version.strip().splitlines()[-1],
        "flags": " ".join(f for f in flags if not f.startswith("-I")),
        "method": "builders and libclang: cutlint tu (libclang's resolved CollectiveBuilder "
        "arguments and record layout); nvcc: a host-only probe of the TU's CUTLASS includes, "
        "its config structs and Fp4GemmSm120 (tests/families/test_sm120_nvfp4_gemm.py: _probe) "
        "printing sizeof(GemmKernel::SharedStorage), SharedStorageSize, Stages and "
        "sizeof(CollectiveEpilogue::SharedStorage); cutlint tu --verify's probe takes the TU's "
        "includes only, and this TU defines its configs in the .cu",
        "rows": rows,
    }
    TRUTH.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{TRUTH}: {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    _write()
