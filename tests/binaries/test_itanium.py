"""The small Itanium demangler (cutlint.binaries.itanium) against c++filt on the recorded SM120
kernels of tests/data/ptxas_sm120.json, and on its own where c++filt is missing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cutlint.binaries import itanium
from cutlint.binaries.demangle import find_cxxfilt
from cutlint.binaries.kernel_type import KernelFeatures, features

DATA = Path(__file__).resolve().parents[1] / "data" / "ptxas_sm120.json"
NAMES = [k["name"] for s in json.loads(DATA.read_text())["samples"].values() for k in s["kernels"]]


@pytest.mark.skipif(find_cxxfilt() is None, reason="no c++filt here")
def test_the_same_text_as_cxxfilt() -> None:
    tool = find_cxxfilt()
    assert tool is not None
    run = subprocess.run(
        [tool, "--no-recurse-limit"], input="\n".join(NAMES) + "\n", capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    for name, expected in zip(NAMES, run.stdout.splitlines(), strict=True):
        assert "".join(itanium.demangle(name).split()) == "".join(expected.split())


def test_features_of_a_fused_moe_kernel_without_cxxfilt() -> None:
    moe = json.loads(DATA.read_text())["samples"]["moe_m256_g0"]["kernels"]
    got = [features(itanium.demangle(k["name"])) for k in moe]
    assert got[2] == KernelFeatures(2, (256, 128, 128), "bf16", "column")
    assert got[1] == KernelFeatures(3, (256, 128, 128), "f16", "row")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("_Z5heavyPfPKfi", None),  # not a nested name: left to c++filt
        ("_ZN2ns1fIiEEvv", "void ns::f<int>()"),
        ("_ZN2ns1fILi3ELb1EEEvPS_", None),  # S_ of a function name's own prefix: no type here
    ],
)
def test_small_shapes(name: str, text: str | None) -> None:
    try:
        got: str | None = itanium.demangle(name)
    except itanium.Unsupported:
        got = None
    if text is None and got is not None:
        return  # decoded more than asked: fine as long as it does not raise elsewhere
    assert got == text
