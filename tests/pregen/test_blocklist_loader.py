"""The blocklist cutlint writes loads with FlashInfer's own TacticsBlocklist (0.7.2.post1).

`flashinfer/tactics_blocklist.py` imports `_METADATA_KEY`, `_collect_metadata`, `_tactic_to_json`
and `_tactic_to_json_hashable` from `flashinfer.autotuner` (which imports torch) and `logger` from
`flashinfer.jit.core`. The module file is imported in isolation, like the generator: the two
tactic converters and the key are taken from the wheel's own autotuner.py (they are pure
Python), `_collect_metadata` stands in for a real SM120 machine, and no package __init__ runs.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import logging
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.pregen.run import write_blocklist

VERSION = "0.7.2.post1"
GPU = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
ENVIRONMENT = {
    "flashinfer_version": VERSION,
    "cuda_version": "12.9",
    "cublas_version": "12.9.1",
    "cudnn_version": "91002",
    "cudnn_frontend_version": "1.14.0",
    "cutlass_dsl_version": "unknown",
    "gpu": GPU,
}


def _pure_functions(autotuner: Path, names: tuple[str, ...]) -> dict[str, Any]:
    """The named top-level functions and constants of autotuner.py, executed on their own."""
    tree = ast.parse(autotuner.read_text())
    keep: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            keep.append(node)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in names for t in node.targets
        ):
            keep.append(node)
    scope: dict[str, Any] = {"Any": Any}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(autotuner), "exec"), scope)
    return scope


@pytest.fixture()
def flashinfer_blocklist(flashinfer_root: Any) -> Iterator[Any]:
    root: Path = flashinfer_root(VERSION)
    scope = _pure_functions(
        root / "flashinfer/autotuner/autotuner.py",
        ("_METADATA_KEY", "_tactic_to_json", "_tactic_to_json_hashable"),
    )
    autotuner = types.ModuleType("flashinfer.autotuner")
    for name in ("_METADATA_KEY", "_tactic_to_json", "_tactic_to_json_hashable"):
        setattr(autotuner, name, scope[name])
    autotuner._collect_metadata = lambda: dict(ENVIRONMENT)  # type: ignore[attr-defined]
    core = types.ModuleType("flashinfer.jit.core")
    core.logger = logging.getLogger("flashinfer-test")  # type: ignore[attr-defined]
    stubs = {
        "flashinfer": types.ModuleType("flashinfer"),
        "flashinfer.jit": types.ModuleType("flashinfer.jit"),
        "flashinfer.autotuner": autotuner,
        "flashinfer.jit.core": core,
    }
    stubs["flashinfer"].__path__ = [str(root / "flashinfer")]
    saved = {k: sys.modules.get(k) for k in [*stubs, "flashinfer.tactics_blocklist"]}
    sys.modules.update(stubs)
    spec = importlib.util.spec_from_file_location(
        "flashinfer.tactics_blocklist", root / "flashinfer/tactics_blocklist.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["flashinfer.tactics_blocklist"] = module
    spec.loader.exec_module(module)
    try:
        yield module.TacticsBlocklist
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


class MoERunner:
    """The runner class whose name is the second half of the blocklist key."""


def _written(
    flashinfer_root: Any, tmp_path: Path, gpu: str | None, runners: tuple[str, ...] = ("nvfp4",)
) -> Path:
    root = flashinfer_root(VERSION)
    result = api.pregen_flashinfer(root=root, version=VERSION, runners=runners)
    path = tmp_path / "tactics_sm120.json"
    write_blocklist(result, root, path, gpu)
    return path


def test_flashinfer_loads_it_and_filters_the_failing_tactics(
    flashinfer_blocklist: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    path = _written(flashinfer_root, tmp_path, GPU)
    bl = flashinfer_blocklist()
    assert bl.load(str(path)) is True
    assert bl.summary() == {"trtllm::fused_moe::gemm2::MoERunner": 2}
    gemm2 = list(range(16, 48))  # the NVFP4 runner's GEMM_2 ids on SM120
    kept = bl.filter("trtllm::fused_moe::gemm2", MoERunner(), gemm2)
    assert sorted(set(gemm2) - set(kept)) == [26, 27]
    assert bl.filter("trtllm::fused_moe::gemm1", MoERunner(), list(range(16))) == list(range(16))


def test_with_every_runner_the_fp8_runners_failing_ids_are_filtered(
    flashinfer_blocklist: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    """FP8 x FP8's GEMM_1 ids 19 and 20 (16x256x128, 3 and 4 stages) fail on SM120 and no other
    runner of the key has them running; the 0.7 pre-filter keeps them (its query throws on the
    alpha_scales check), the blocklist drops them."""
    path = _written(flashinfer_root, tmp_path, GPU, runners=())
    bl = flashinfer_blocklist()
    assert bl.load(str(path)) is True
    assert bl.summary() == {"trtllm::fused_moe::gemm1::MoERunner": 2}
    gemm1 = list(range(21))
    kept = bl.filter("trtllm::fused_moe::gemm1", MoERunner(), gemm1)
    assert sorted(set(gemm1) - set(kept)) == [19, 20]


def test_the_wildcards_match_any_environment_but_the_release_and_gpu_must(
    flashinfer_blocklist: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    meta = json.loads(_written(flashinfer_root, tmp_path, None).read_text())["_metadata"]
    assert {k for k, v in meta.items() if v == "*"} == set(ENVIRONMENT) - {"flashinfer_version"}
    assert flashinfer_blocklist().load(str(tmp_path / "tactics_sm120.json")) is True
    ENVIRONMENT["flashinfer_version"] = "0.7.3"
    try:
        assert flashinfer_blocklist().load(str(tmp_path / "tactics_sm120.json")) is False
    finally:
        ENVIRONMENT["flashinfer_version"] = VERSION
    other_gpu = _written(flashinfer_root, tmp_path, "NVIDIA H200")
    assert flashinfer_blocklist().load(str(other_gpu)) is False
