"""`explain --log --tu`: a vLLM caller's line mapped to the kernels that caller can launch, read
by `cutlint tu` from a fixture shaped like vLLM's scaled_mm_sm120_fp8.cu and its dispatch header
(fixtures/tu/vllm_caller/), through the saved JSON report and through the source itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.explain.callers import _callee

pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tu"
TU = FIXTURES / "vllm_caller" / "scaled_mm_sm120_fp8.cu"
FLAGS = ("--", f"-I{FIXTURES / 'include'}", "--cuda-gpu-arch=sm_120a")
# A vLLM traceback's last two lines (torch's stable-ABI TORCH_CHECK, then its frame line).
LOG = (
    "RuntimeError: cutlass_gemm_caller, /workspace/csrc/libtorch_stable/quantization/w8a8/"
    "cutlass/c3x/cutlass_gemm_caller.cuh:61, Error Internal\n"
    "Exception raised from cutlass_gemm_caller at /workspace/csrc/libtorch_stable/quantization/"
    "w8a8/cutlass/c3x/cutlass_gemm_caller.cuh:61 (most recent call first):\n"
)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture TU through `cutlint tu --format json` for sm_120a and sm_100a, and the log."""
    root = tmp_path_factory.mktemp("caller")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUTLINT_CACHE", str(root / "cache"))
        out = CliRunner().invoke(
            main,
            ["tu", str(TU), "--arch", "sm_120a", "--arch", "sm_100a", "--format", "json", *FLAGS],
        )
    assert out.exit_code == 1, out.output  # CUT211 on sm_120a
    (root / "tu.json").write_text(out.output)
    (root / "vllm.log").write_text(LOG)
    return root


def explain(work: Path, *args: str) -> tuple[int, str]:
    out = CliRunner().invoke(main, ["explain", "--log", str(work / "vllm.log"), *args])
    return out.exit_code, out.output


def test_sm120_lists_every_candidate_and_the_likely_culprit(work: Path) -> None:
    code, text = explain(work, "--tu", str(work / "tu.json"), "--arch", "sm_120")
    assert code == 1, text
    assert "1 distinct failure" in text  # the frame line is part of the same message
    assert "A: shared storage above the opt-in limit" in text and "status:    explained" in text
    # both reads of the report (sm_120a, sm_100a): the sm_100a ones do not run on sm_120
    assert "8 candidate(s) whose dispatch path goes through" in text
    assert text.count("-> not loaded on this GPU") == 4
    for when in ("bf16 && m <= 16", "bf16 && !(m <= 16)", "!(bf16) && !(m <= 16)"):
        assert f"when {when}\n" in text
    assert text.count("-> fails initialize()") == 2 and text.count("-> fits") == 2
    flat = " ".join(text.split())  # the `why` field is wrapped
    assert "131,200 / 101,376 B" in text and "likely culprit" in flat
    assert "the line does not say which one ran" in flat
    assert "64x128x128" not in text  # `Unrelated` is not handed to the caller


def test_json_carries_the_same_candidates(work: Path) -> None:
    code, out = explain(work, "--tu", str(work / "tu.json"), "--arch", "sm_120", "--format", "json")
    assert code == 1
    (failure,) = json.loads(out)["failures"]
    caller = failure["caller"]
    assert failure["failure_class"] == "A" and failure["agreement"] == "explained"
    assert caller["caller"] == "cutlass_gemm_caller.cuh:61" and caller["device"] == "sm_120"
    # the report holds two reads (sm_120a, sm_100a): the sm_100a kernels do not run on sm_120
    got = sorted(
        (k["target"], k["tile"], k["verdict"], tuple(map(tuple, k["conditions"])))
        for k in caller["kernels"]
    )
    assert got == sorted(
        [
            ("sm_100a", "128x128x128", "not loaded on this GPU", (("bf16", "!(m <= 16)"),)),
            ("sm_100a", "128x128x128", "not loaded on this GPU", (("!(bf16)", "!(m <= 16)"),)),
            ("sm_100a", "16x128x128", "not loaded on this GPU", (("bf16", "m <= 16"),)),
            ("sm_100a", "16x128x128", "not loaded on this GPU", (("!(bf16)", "m <= 16"),)),
            ("sm_120a", "128x128x128", "fails initialize()", (("bf16", "!(m <= 16)"),)),
            ("sm_120a", "128x128x128", "fails initialize()", (("!(bf16)", "!(m <= 16)"),)),
            ("sm_120a", "16x128x128", "fits", (("bf16", "m <= 16"),)),
            ("sm_120a", "16x128x128", "fits", (("!(bf16)", "m <= 16"),)),
        ]
    )
    assert all(k["chosen_by"].endswith(("scaled_mm_sm120_fp8.cu:18", "scaled_mm_sm120_fp8.cu:21"))
               for k in caller["kernels"])  # fmt: skip


def test_sm121_has_no_kernel_in_this_build(work: Path) -> None:
    # DGX Spark (12.1) does not run sm_120a code: a gap of the build, class B
    code, text = explain(work, "--tu", str(work / "tu.json"), "--arch", "sm_121")
    assert code == 1
    flat = " ".join(text.split())  # the `why` field is wrapped
    assert "B: " in text and "None of them is built for sm_121" in flat
    assert "(sm_120a) do not run on it" in flat
    assert "-> fails initialize()" not in text


def test_where_every_candidate_fits_the_other_classes_are_named(work: Path) -> None:
    code, text = explain(work, "--tu", str(work / "tu.json"), "--arch", "sm_100")
    assert code == 1
    assert "D: can_implement()" in text and "not decidable statically" in text
    flat = " ".join(text.split())  # the `why` field is wrapped
    assert "None of the candidates fails for shared memory on sm_100" in flat
    assert "-> fails initialize()" not in text and text.count("-> fits") == 4


def test_a_caller_no_tu_goes_through_says_so(work: Path) -> None:
    (work / "fp4.log").write_text(
        "RuntimeError: runGemm, /workspace/csrc/quantization/fp4/nvfp4_scaled_mm_sm120.cuh:175, "
        "Error Internal\n"
    )
    out = CliRunner().invoke(
        main, ["explain", "--log", str(work / "fp4.log"), "--tu", str(work / "tu.json")]
    )
    assert out.exit_code == 1
    flat = " ".join(out.output.split())
    assert "no kernel of the 2 translation unit(s) given goes through" in flat
    assert "not modeled" in out.output  # the class stays what the line alone says


def test_a_read_of_a_target_the_gpu_runs_is_asked_for(work: Path, tmp_path: Path) -> None:
    # only the sm_100a read, of a build whose flags target sm_120a: on sm_120 no read is for a
    # target the GPU runs, but the build has one: no class B claim, the read is asked for
    (entry, other) = json.loads((work / "tu.json").read_text())
    assert (entry["read"]["arch"], other["read"]["arch"]) == ("sm_120a", "sm_100a")
    (tmp_path / "sm100.json").write_text(json.dumps([other]))
    code, text = explain(work, "--tu", str(tmp_path / "sm100.json"), "--arch", "sm_120")
    assert code == 1
    flat = " ".join(text.split())
    assert "but the build also targets sm_120a" in flat and "--arch sm_120a" in flat
    assert "B: " not in text


def test_a_source_with_its_flags(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(work / "cache"))  # the module fixture's reads
    code, text = explain(work, "--tu", str(TU), "--arch", "sm_120", *FLAGS)
    assert code == 1, text
    assert "4 candidate(s)" in text and "likely culprit" in text  # sm_120a alone


def test_usage_errors(work: Path) -> None:
    (work / "bad.json").write_text('{"not": "a report"}')
    code, text = explain(work, "--tu", str(work / "bad.json"))
    assert code == 2 and "not a list of reads" in text
    code, text = explain(work, "--tu", str(work / "tu.json"), "--", "-Ifoo")
    assert code == 2 and "no .cu was given" in text
    code, text = explain(work, "--tu", str(TU), "--", f"-I{FIXTURES / 'include'}")
    assert code == 2 and "name no target" in text


@pytest.mark.parametrize(
    ("call", "name"),
    [
        ("cutlass_gemm_caller<typename X<short, 16, 4>::Gemm>", "cutlass_gemm_caller"),
        ("return vllm::cutlass_gemm_caller<Gemm>(out, a, b)", "cutlass_gemm_caller"),
        ("using Standalone", None),
        ("dispatch<short>", "dispatch"),
    ],
)
def test_callee(call: str, name: str | None) -> None:
    assert _callee(call) == name


@pytest.mark.slow
def test_vllm_scaled_mm_sm120_fp8(tmp_path: Path) -> None:
    """vLLM 0.34.0's SM120 FP8 scaled_mm (the sdist, fetched at test time; CUTLASS 4.5.0 headers
    from FlashInfer 0.7.4's wheel), read as its CMake build compiles it for 12.0a, saved as
    `cutlint tu --format json` would, and a caller line explained on 12.0 and 12.1."""
    from cutlint.engine.tu_judge import judge
    from cutlint.parse.tu import from_flags, read_tu
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist
    from cutlint.report.tu import render_json

    try:
        vllm = download_sdist("0.34.0")
        include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    except Exception as err:  # no network: say so
        pytest.skip(f"inputs unavailable: {err}")
    tu = vllm / "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8.cu"
    read = read_tu(from_flags(tu, cmake_flags(vllm, include, "12.0a")), use_cache=False)
    (tmp_path / "tu.json").write_text(render_json([(read, judge(read))]))
    (tmp_path / "vllm.log").write_text(LOG)
    args = ["--tu", str(tmp_path / "tu.json"), "--format", "json"]

    code, out = explain(tmp_path, *args, "--arch", "sm_120")
    assert code == 1
    (f,) = json.loads(out)["failures"]
    kernels = f["caller"]["kernels"]
    # every c3x kernel of the TU is handed to cutlass_gemm_caller: all 16, each within 101,376 B
    assert len(kernels) == len(read.kernels) == 16
    assert all(k["verdict"] == "fits" for k in kernels), {k["verdict"] for k in kernels}
    assert any("M <= 16" in c for k in kernels for path in k["conditions"] for c in path)
    assert f["failure_class"] == "D" and f["agreement"] == "not decidable statically"

    code, out = explain(tmp_path, *args, "--arch", "sm_121")  # DGX Spark: 12.1
    (f,) = json.loads(out)["failures"]
    assert f["failure_class"] == "B"
    assert {k["verdict"] for k in f["caller"]["kernels"]} == {"not loaded on this GPU"}
