"""nvcc target flags as code objects, and which GPU loads which (CUDA C++ Programming Guide,
"Compute Capability", "Feature Set Compiler Targets")."""

from __future__ import annotations

import pytest

from cutlint.build_context import Target
from cutlint.context.command import parse_command
from cutlint.context.gpus import gpu_sm
from cutlint.context.targets import parse_targets


def names(args: str) -> list[str]:
    return [t.name for t in parse_targets(args.split())]


def test_gencode_spellings() -> None:
    assert names("-gencode=arch=compute_120f,code=sm_120f") == ["sm_120f"]
    assert names("-gencode arch=compute_80,code=[sm_80,compute_80]") == ["sm_80", "compute_80"]
    assert names("--generate-code=arch=compute_90a,code=sm_90a") == ["sm_90a"]


def test_arch_alone_is_sass_and_ptx_and_code_overrides_it() -> None:
    assert names("-arch=sm_90a") == ["sm_90a", "compute_90a"]
    assert names("-arch=compute_100a -code=sm_100a") == ["sm_100a"]
    assert names("-arch=native") == []


@pytest.mark.parametrize(
    ("target", "loads", "not_loads"),
    [
        ("sm_120a", [120], [121, 100]),  # architecture-specific: exactly 12.0
        ("sm_120f", [120, 121], [100, 90]),  # family: 12.x with x >= 0
        ("sm_100f", [100, 103], [120, 110]),
        ("sm_80", [80, 86, 89], [90, 120]),  # plain SASS: later minors of the same major
        ("compute_80", [80, 90, 120], [75]),  # PTX: JIT-compiled for any later GPU
        ("compute_120a", [120], [121]),
    ],
)
def test_which_gpu_loads_which_code(target: str, loads: list[int], not_loads: list[int]) -> None:
    (t,) = parse_targets([f"-gencode=arch={target.replace('sm_', 'compute_')},code={target}"])
    assert all(t.loads_on(sm) for sm in loads)
    assert not any(t.loads_on(sm) for sm in not_loads)


def test_a_command_line_reads_as_the_compiler_reads_it() -> None:
    cmd = parse_command(
        "nvcc -DENABLE_FP4 -D X=1 -I inc -isystem /a/b --include-path=/c -UBAR "
        "-gencode=arch=compute_120f,code=sm_120f -c x.cu",
        "--compile-command",
        "/w",
    )
    assert cmd.include_dirs == ("/w/inc", "/a/b", "/c")
    assert cmd.defines == ("ENABLE_FP4", "X") and cmd.undefines == ("BAR",)
    assert cmd.targets == (Target(sm=120, suffix="f", ptx=False),)


def test_gpu_names() -> None:
    assert gpu_sm("rtx-5090") == gpu_sm("RTX PRO 6000") == 120
    assert (gpu_sm("dgx-spark"), gpu_sm("h200"), gpu_sm("b200"), gpu_sm("B300")) == (
        121,
        90,
        100,
        103,
    )
    assert gpu_sm("voodoo-2") is None
