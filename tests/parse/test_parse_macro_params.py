"""A macro call carries its definition's parameter names: from the file's own `#define`, from a
header it includes beside it (transitively), or none (and then the families assume one)."""

from __future__ import annotations

from pathlib import Path

from cutlint.parse.extract import parse_source

CALL = b"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(Sm100, __nv_bfloat16, 128, 64, 128, 1, 1, 1, _1SM)\n"
TRTLLM = (
    b"#define INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, CTA_M_, CTA_N_, CTA_K_, CGA_M_, "
    b"CGA_N_, CGA_K_, \\\n    XSM_) struct X {};\n"
)
NAMES = ("ARCH_", "T", "CTA_M_", "CTA_N_", "CTA_K_", "CGA_M_", "CGA_N_", "CGA_K_", "XSM_")


def test_own_define() -> None:
    (inst,) = parse_source("/nowhere/a.cu", TRTLLM + CALL).instantiations
    assert inst.parameters == NAMES
    assert inst.defined_at == "/nowhere/a.cu:1"


def test_header_beside_and_its_includes(tmp_path: Path) -> None:
    (tmp_path / "template.h").write_bytes(b'#pragma once\n#include "launchers/sm100.h"\n')
    (tmp_path / "launchers").mkdir()
    (tmp_path / "launchers" / "sm100.h").write_bytes(b"// x\n" + TRTLLM)
    path = str(tmp_path / "a.cu")
    (inst,) = parse_source(path, b'#include "template.h"\n' + CALL).instantiations
    assert inst.parameters == NAMES
    assert inst.defined_at == f"{tmp_path / 'launchers' / 'sm100.h'}:2"


def test_not_found_keeps_the_record_as_before() -> None:
    (inst,) = parse_source("/nowhere/a.cu", b'#include "missing.h"\n' + CALL).instantiations
    assert inst.parameters is None and inst.defined_at is None
    assert inst.args[0] == "Sm100"


def test_two_definitions_that_differ_are_not_known() -> None:
    text = (
        b"#ifdef A\n#define INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(T, M)\n#else\n"
        b"#define INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, M)\n#endif\n"
        b"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(Sm100, half, 128)\n"
    )
    (inst,) = parse_source("/nowhere/a.cu", text).instantiations
    assert inst.parameters is None


def test_same_parameters_in_both_branches_are_known() -> None:
    text = (
        b"#ifdef PLACEHOLDER_KERNELS\n#define INSTANTIATE_X(T, M) a\n#else\n"
        b"#define INSTANTIATE_X(T, M) b\n#endif\nINSTANTIATE_X(half, 128)\n"
    )
    (inst,) = parse_source("/nowhere/a.cu", text).instantiations
    assert inst.parameters == ("T", "M")
