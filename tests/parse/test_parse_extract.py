"""Exact records for the hand-written fixtures and for inline sources."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cutlint.parse import parse_source
from cutlint.producers.trtllm.moe_macro import PARAMETERS, typed
from cutlint.records import (
    ElementType,
    FormKind,
    Fusion,
    Guard,
    Instantiation,
    MoeGemmArgs,
    ParsedFile,
    Shape3,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "parse"
SM120 = FIXTURES / "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu"
MACRO = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"
GOOD_ARGS = "Sm120, SafeFP4, SafeFP4, half, void, EpilogueOpDefault, NONE, 128, 128, 128, 1, 1, 1, false, false, false, false"


def typed_args(i: Instantiation) -> MoeGemmArgs | None:
    """The macro's typed arguments (the families' reader), where the count is right."""
    return typed(i.args)[0] if len(i.args) == len(PARAMETERS) else None


def parse(path: Path, **kw: object) -> ParsedFile:
    return parse_source(str(path), path.read_bytes(), **kw)  # type: ignore[arg-type]


def src(text: str, **kw: object) -> ParsedFile:
    return parse_source("inline.cu", text.encode(), **kw)  # type: ignore[arg-type]


def codes(parsed: ParsedFile) -> list[tuple[str, int | None]]:
    return [(p.code, p.line) for p in parsed.problems]


def test_flashinfer_sm120_file() -> None:
    parsed = parse(SM120)
    assert parsed.generated_for_sm == 120
    assert parsed.flashinfer_version is None
    assert parsed.problems == ()
    first = parsed.instantiations[0]
    assert (first.span.line, first.span.column, first.span.end_line) == (12, 9, 15)
    assert first.span.path == str(SM120)
    assert first.form is FormKind.MACRO_CALL and first.name == MACRO
    assert first.args == (
        "Sm120", "SafeFP4", "SafeFP4", "half", "void", "EpilogueOpDefault", "FINALIZE",
        "128", "128", "128", "1", "1", "1", "false", "false", "false", "false",
    )  # fmt: skip
    assert first.guard == Guard(text="defined(ENABLE_FP4) && defined(ENABLE_FP4)", active=True)
    moe = typed_args(first)
    assert moe is not None
    assert (moe.arch_tag, moe.sm) == ("Sm120", 120)
    assert (moe.act_type, moe.weight_type, moe.output_type) == (ElementType.E2M1,) * 2 + (
        ElementType.F16,
    )
    assert (moe.epilogue_schedule, moe.epilogue_tag, moe.fusion) == (
        "void",
        "EpilogueOpDefault",
        Fusion.FINALIZE,
    )
    assert moe.cta_tile == Shape3(m=128, n=128, k=128) and moe.cluster == Shape3(m=1, n=1, k=1)
    assert (moe.mxfpx, moe.dynamic_cga, moe.bias, moe.swap_ab) == (False, False, False, False)
    types = [
        (
            typed_args(i).act_type,
            typed_args(i).output_type,
            typed_args(i).mxfpx,
            typed_args(i).swap_ab,
        )
        for i in parsed.instantiations
        if typed_args(i)
    ]
    assert types == [
        (ElementType.E2M1, ElementType.F16, False, False),
        (ElementType.E2M1, ElementType.BF16, False, True),
        (ElementType.E4M3, ElementType.F16, True, False),
        (ElementType.BF16, ElementType.BF16, False, False),
        (ElementType.F16, ElementType.F16, False, False),
    ]
    assert parsed.instantiations[-1].guard == Guard(text="1 && 1", active=True)


def test_guard_texts_name_the_branch() -> None:
    texts = [
        (i.guard.text if i.guard else None) for i in parse(FIXTURES / "guards.cu").instantiations
    ]
    assert texts[:5] == [
        "0",
        "!0 && defined(ENABLE_FP4)",
        "!0 && !defined(ENABLE_FP4)",
        "!defined(ENABLE_FP8)",
        "LOCAL_SWITCH",
    ]
    assert texts[6] == "0"
    assert texts[7] == "defined(ENABLE_FP4) && 0"  # the comment spanning lines is gone
    assert texts[8] is None


def test_define_set_decides_activity() -> None:
    def active(**kw: object) -> list[bool]:
        return [
            bool(i.guard and i.guard.active)
            for i in parse(FIXTURES / "guards.cu", **kw).instantiations
        ]

    assert active()[:6] == [False, True, False, False, True, False]
    assert active(undefines=["ENABLE_FP4"])[:6] == [False, False, True, False, False, False]
    assert active(defines={"NOT_DEFINED_ANYWHERE": "1"})[5] is True
    assert (
        active(defines={"LOCAL_SWITCH": "0", "ENABLE_FP4": "1"})[4] is True
    )  # the file's #define wins


def test_explicit_launchers() -> None:
    sm80 = parse(FIXTURES / "cutlass_kernel_file_gemm_grouped_sm80_M128_group0.generated.cu")
    assert sm80.generated_for_sm is None  # written for every device: its name says no GPU
    first = sm80.instantiations[0]
    assert (
        first.form is FormKind.EXPLICIT_INSTANTIATION
        and typed_args(first) is None
        and first.guard is None
    )
    assert first.name == "sm80_generic_fused_moe_gemm_kernelLauncher"
    assert first.args == (
        "cutlass::half_t", "cutlass::half_t", "128", "128", "64", "2",
        "tensorrt_llm::cutlass_extensions::EpilogueOpDefaultSilu",
    )  # fmt: skip
    assert (first.span.line, first.span.column, first.span.end_line) == (12, 13, 13)
    sm90 = parse(FIXTURES / "cutlass_kernel_file_gemm_grouped_sm90_M128_Mixed_group0.generated.cu")
    names = [(i.name, len(i.args)) for i in sm90.instantiations]
    assert names == [
        ("sm90_generic_mixed_moe_gemm_kernelLauncher", 9),
        ("sm90_generic_mixed_gemm_kernelLauncher", 11),
        ("launcher_with_a_return_type", 2),
    ]
    assert (
        sm90.instantiations[0].args[4]
        == "cute::Shape<cute::Int<128>, cute::Int<16>, cute::Int<128>>"
    )
    assert sm90.instantiations[2].args == ("cute::Int<(1 << 2)>", "64")
    assert sm90.instantiations[2].guard == Guard(text="defined(ENABLE_FP8)", active=True)


def test_any_instantiate_macro_and_any_return_type() -> None:
    """FlashInfer's JIT-rendered modules: macros of other names and arities, kept as written,
    and explicit instantiations that return `cudaError_t`."""
    parsed = src(
        "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(half, 128, 256, 128, 1, 1, 1, _1SM, true)\n"
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC(Tactic128x128x128Config)\n"
        "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120(\n    128,\n    32, cutlass::half_t\n)\n"
        "template cudaError_t\nCutlassGroupwiseScaledGEMMSM120<\n    1, 128, 128,\n    true,\n"
        "    cutlass::float_e4m3_t,\n    cutlass::half_t>(\n        void* b, int m, cudaStream_t s);\n"
        "#define INSTANTIATE_X(a) template void f<a>(a);\n"
        "int MY_INSTANTIATE_Y(int); int z = INSTANTIATE_SIZE; INSTANTIATE_Z\n"
    )
    assert parsed.problems == ()
    got = [(i.form, i.name, i.args, i.span.line, i.span.end_line) for i in parsed.instantiations]
    assert got == [
        (
            FormKind.MACRO_CALL,
            "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
            ("half", "128", "256", "128", "1", "1", "1", "_1SM", "true"),
            1,
            1,
        ),
        (
            FormKind.MACRO_CALL,
            "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC",
            ("Tactic128x128x128Config",),
            2,
            2,
        ),
        (
            FormKind.MACRO_CALL,
            "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120",
            ("128", "32", "cutlass::half_t"),
            3,
            6,
        ),
        (
            FormKind.EXPLICIT_INSTANTIATION,
            "CutlassGroupwiseScaledGEMMSM120",
            ("1", "128", "128", "true", "cutlass::float_e4m3_t", "cutlass::half_t"),
            7,
            13,
        ),
    ]
    assert all(i.form in FormKind for i in parsed.instantiations)
    cut = src("INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120(half, 128,\n#endif\n")
    assert [p.code for p in cut.problems] == ["CUT003", "CUT009"]  # and a stray #endif
    assert "`INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120(` is truncated" in cut.problems[0].message


def test_bad_arguments_keep_the_record() -> None:
    count = parse(FIXTURES / "bad" / "wrong_count.cu")
    assert [len(i.args) for i in count.instantiations] == [16, 18, 1]
    assert all(typed_args(i) is None for i in count.instantiations)
    unknown = parse(FIXTURES / "bad" / "unknown_args.cu").instantiations
    assert typed_args(unknown[0]) is not None and typed_args(unknown[0]).act_type is None
    assert typed_args(unknown[1]) is None  # CTA_N is not an integer
    assert typed_args(unknown[2]) is not None and typed_args(unknown[2]).fusion is None
    assert typed_args(unknown[3]) is not None and typed_args(unknown[3]).sm is None
    assert typed_args(unknown[4]) is None and typed_args(unknown[5]) is None


def test_truncated_calls_say_where() -> None:
    parsed = parse(FIXTURES / "bad" / "truncated.cu")
    assert codes(parsed) == [("CUT003", 4), ("CUT003", 11), ("CUT003", 21), ("CUT003", 25)]
    messages = [p.message for p in parsed.problems]
    assert "next preprocessor directive (line 7)" in messages[0]
    assert "next instantiation (line 14)" in messages[1]
    assert "end of the file" in messages[3]
    assert [i.span.line for i in parsed.instantiations] == [14]


def test_comments_and_splices_inside_arguments() -> None:
    parsed = src(
        f"{MACRO}(Sm120, /* act */ SafeFP4, SafeFP4, // weight, output\n"
        "half, void, EpilogueOpDefault, NONE, 128, 128, \\\n 128, 1, 1, 1, false, false, false, false);\n"
    )
    assert parsed.problems == ()
    (inst,) = parsed.instantiations
    assert inst.args[1:4] == ("SafeFP4", "SafeFP4", "half") and inst.args[9] == "128"


def test_integer_spellings() -> None:
    parsed = src(
        f"{MACRO}(Sm120, SafeFP4, SafeFP4, half, void, EpilogueOpDefault, NONE, 0x80, 128u, 0200, 1, 1, 1, 0, 1, false, true);"
    )
    moe = typed_args(parsed.instantiations[0])
    assert parsed.problems == () and moe is not None
    assert moe.cta_tile == Shape3(m=128, n=128, k=128)
    assert (moe.mxfpx, moe.dynamic_cga, moe.swap_ab) == (False, True, True)


def test_columns_are_bytes_and_crlf_lines_count() -> None:
    parsed = src(f"#if 1\r\n\t  {MACRO}({GOOD_ARGS});\r\n#endif\r\n")
    (inst,) = parsed.instantiations
    assert (inst.span.line, inst.span.column) == (2, 4)
    assert inst.guard == Guard(text="1", active=True)


def test_spliced_directive_condition() -> None:
    parsed = src(
        f"#if defined(ENABLE_FP4) && \\\n    defined(ENABLE_FP8)\n{MACRO}({GOOD_ARGS});\n#endif\n"
    )
    assert parsed.instantiations[0].guard == Guard(
        text="defined(ENABLE_FP4) && defined(ENABLE_FP8)", active=True
    )


def test_unterminated_if_runs_to_the_end() -> None:
    parsed = src(f"#if 0\n{MACRO}({GOOD_ARGS});\n")
    assert parsed.instantiations[0].guard == Guard(text="0", active=False)


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        (b"", "CUT006", None),
        (b"  \n\n\t\n", "CUT006", None),
        (b"// nothing\nnamespace a {}\n", "CUT006", None),
        (b"#if 1\nint x;\n\x00\x01\x02", "CUT002", 3),
        (b"// caf\xe9\n", "CUT002", 1),
        (b"\xff\xfe" + "INSTANTIATE".encode("utf-16-le"), "CUT002", 1),
    ],
)
def test_file_level_problems(text: bytes, code: str, line: int | None) -> None:
    parsed = parse_source("x.cu", text)
    assert codes(parsed) == [(code, line)] and parsed.instantiations == ()
    assert parsed.problems[0].path == "x.cu"


def test_a_10mb_line_is_linear() -> None:
    text = (
        b"int x = "
        + b"1+" * 5_000_000
        + b"1;\n#if 1\n"
        + f"{MACRO}({GOOD_ARGS});\n#endif\n".encode()
    )
    start = time.perf_counter()
    parsed = parse_source("big.cu", text)
    assert time.perf_counter() - start < 5.0
    assert parsed.problems == () and parsed.instantiations[0].span.line == 3


def test_deep_nesting_in_arguments_is_counted_not_recursed() -> None:
    text = f"{MACRO}({'(' * 20000}1{')' * 20000});\n".encode()
    parsed = parse_source("deep.cu", text)
    # One argument: the family's reader reports the count (CUT004), not the parser.
    assert codes(parsed) == [] and len(parsed.instantiations[0].args) == 1


def test_missing_includes_do_not_matter() -> None:
    with_include = src(
        f'#include "does/not/exist.h"\n#include <neither.h>\n#if 1\n{MACRO}({GOOD_ARGS});\n#endif\n'
    )
    assert with_include.problems == () and with_include.instantiations[0].guard == Guard(
        text="1", active=True
    )
