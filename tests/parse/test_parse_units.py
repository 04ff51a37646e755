"""The small pieces: masking, directives, bracket matching, typed arguments, path facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.parse import directives
from cutlint.parse.calls import Brackets
from cutlint.parse.lexmask import _DIGRAPH, _has_digraph, mask
from cutlint.producers.flashinfer import cache_layout
from cutlint.producers.trtllm import moe_macro as moe_args
from cutlint.records import ElementType


def test_mask_keeps_offsets_and_newlines() -> None:
    text = b'int a = 1\'000; char c = \'"\'; // "x\nconst char* s = "a//b/*"; /* \'q\n */ R"xy(a")"b)xy";'
    m = mask(text)
    assert len(m.code) == len(m.uncommented) == len(text)
    assert m.code.count(b"\n") == text.count(b"\n")
    assert b"1'000" in m.code  # a digit separator is not a char literal
    assert b"//" not in m.code and b"/*" not in m.code and b'"' not in m.code
    assert b'"a//b/*"' in m.uncommented  # strings survive in the spelled text
    assert len(m.comment_spans) == 2


@pytest.mark.parametrize(
    "code",
    [
        b"a % b; x::y<<2; z<::w",
        b"",
        b"%",
        b"<%",
        b"%>",
        b"%:",
        b"%:%:",
        b"a<:1:>",
        b"<::x",
        b"<:::",
        b"x :> y",
        b"%%>",
        b"<<%",
    ],
)
def test_the_digraph_check_misses_no_digraph(code: bytes) -> None:
    """lexmask's quick check says yes wherever _DIGRAPH's scan finds a digraph to replace (it
    may say yes where the scan then finds none: `<::`, `<<%`)."""
    scanned = any(m.group(1) is None for m in _DIGRAPH.finditer(code))
    assert _has_digraph(bytearray(code)) or not scanned


def test_a_modulo_among_scope_operators_is_no_digraph() -> None:
    """A `%` alone sends no header's code through the scan of every `::` (10 ms for one)."""
    assert not _has_digraph(bytearray(b"a % b; x::y<<2; z % ::w"))


def test_unterminated_comment_runs_to_the_end() -> None:
    m = mask(b"a /* b\nc")
    assert m.code == b"a     \n "


def _dirs(text: bytes) -> list[tuple[str, str]]:
    return [(d.kind, d.condition) for d in directives.scan(mask(text))]


def test_directive_scan() -> None:
    text = b'#include "x"\n  #  if A &&\\\n B\nx = 1; #if NOT_A_DIRECTIVE\n// #if C\n#else\n#endif'
    assert _dirs(text) == [("include", ""), ("if", "A && B"), ("else", ""), ("endif", "")]
    assert _dirs(b"int x; \\\n#if SPLICED_INTO_THE_LINE_BEFORE\n") == []
    assert _dirs(b"#ifdef X\n#elifndef Y\n#endif\n") == [
        ("ifdef", "defined(X)"),
        ("elifndef", "!defined(Y)"),
        ("endif", ""),
    ]


def test_innermost_branch() -> None:
    text = b"#if A\n a\n#if B\n b\n#endif\n c\n#elif C\n d\n#endif\n e\n"
    m = mask(text)
    found = directives.scan(m)
    branches = directives.branches(found, len(text))
    offsets = [text.index(w) for w in (b" a", b" b", b" c", b" d", b" e")]
    inner = directives.innermost(branches, offsets)
    assert [b.text if b else None for b in inner] == ["A", "B", "A", "!A && C", None]
    m = mask(b"#ifndef X\n#else\n x\n#endif\n#if A || B\n#else\n y\n#endif\n")
    found = directives.scan(m)
    offsets = [m.code.index(b" x"), m.code.index(b" y")]
    texts = [
        b.text if b else None for b in directives.innermost(directives.branches(found, 99), offsets)
    ]
    assert texts == ["defined(X)", "!(A || B)"]


def test_skeleton_is_directives_only() -> None:
    text = b'#include "gone.h"\nint f(int x) { return (x); }\n#if A /* c\n */ && B\nfoo(\n#endif\n'
    m = mask(text)
    sk = directives.skeleton(m, directives.scan(m))
    assert len(sk) == len(text)
    assert sk.split() == [b"#if", b"A", b"&&", b"B", b"#endif"]


@pytest.mark.parametrize(
    ("decl", "opener", "args"),
    [
        (b"f<a, b<c, d>, e>", 1, [b"a", b" b<c, d>", b" e"]),
        (b"f<cute::Int<(1<<2)>, x>", 1, [b"cute::Int<(1<<2)>", b" x"]),
        (b"f<decltype(a->b), (x > y)>", 1, [b"decltype(a->b)", b" (x > y)"]),
        (b"f<>", 1, []),
    ],
)
def test_template_argument_split(decl: bytes, opener: int, args: list[bytes]) -> None:
    br = Brackets(decl)
    assert [decl[a:b] for a, b in br.args(opener)] == args


@pytest.mark.parametrize(
    ("spelled", "value"),
    [("128", 128), ("0x80", 128), ("0b10", 2), ("0200", 128), ("64u", 64), ("64ULL", 64), ("0", 0)],
)
def test_integer(spelled: str, value: int) -> None:
    assert moe_args.integer(spelled) == value


@pytest.mark.parametrize("spelled", ["1'28", "(128)", "128.0", "N", "-1", "", "0x"])
def test_not_an_integer(spelled: str) -> None:
    assert moe_args.integer(spelled) is None


def test_element_types_and_arch() -> None:
    assert moe_args.element_type("cutlass :: half_t") is ElementType.F16
    assert moe_args.element_type("::cutlass::float_e2m1_t") is ElementType.E2M1
    assert moe_args.element_type("SafeFP8") is ElementType.E4M3
    assert moe_args.element_type("__nv_fp8_e5m2") is ElementType.E5M2
    assert moe_args.element_type("float") is ElementType.F32
    assert moe_args.element_type("double") is None
    assert [moe_args.arch_sm(a) for a in ("Sm120", "Sm90", "Sm100", "SM120", "Sm")] == [
        120,
        90,
        100,
        None,
        None,
    ]
    assert [moe_args.boolean(b) for b in ("true", "false", "1", "0", "yes")] == [
        True,
        False,
        True,
        False,
        None,
    ]


@pytest.mark.parametrize(
    ("path", "sm", "version"),
    [
        (
            "/home/u/.cache/flashinfer/0.7.2.post1/120a/generated/cutlass_instantiations/120/gemm_grouped/120/"
            "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu",
            120,
            "0.7.2.post1",
        ),
        (
            "/x/.cache/flashinfer/0.6.3/90a/generated/gemm/90/cutlass_kernel_file_gemm_sm90_M64_group3.generated.cu",
            90,
            "0.6.3",
        ),
        ("/x/flashinfer/0.6.3/notes/sm_100a/file.cu", 100, None),  # no `generated`: not the cache
        (
            # the Ampere fused MoE the generator writes for every device: outside a device's
            # directory, neither its `_sm80_` nor `gemm_grouped/80` says which GPU runs it
            "gen/gemm_grouped/80/cutlass_kernel_file_gemm_grouped_sm80_M16_group2.generated.cu",
            None,
            None,
        ),
        (
            "/c/flashinfer/0.7.4/120f/generated/cutlass_instantiations/120/gemm_grouped/80/"
            "cutlass_kernel_file_gemm_grouped_sm80_M16_group2.generated.cu",
            120,  # an Ampere kernel of an SM120 cache runs on the SM120 device
            "0.7.4",
        ),
        ("/src/kernels/moe.cu", None, None),
        ("/a/flashinfer/latest/generated/x_sm120_.cu", 120, None),
    ],
)
def test_path_facts(path: str, sm: int | None, version: str | None) -> None:
    assert cache_layout.generated_for_sm(path) == sm
    assert cache_layout.flashinfer_version(path) == version


def test_version_of_a_relative_path_inside_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / ".cache" / "flashinfer" / "0.6.3" / "120a"
    cache.mkdir(parents=True)
    monkeypatch.chdir(cache)
    assert cache_layout.flashinfer_version("generated/cutlass_instantiations/120/x.cu") == "0.6.3"


def test_file_defines_are_those_outside_every_conditional() -> None:
    text = (
        b"#define A 1\n#define B(x) x\n#if X\n#define C 1\n#endif\n#define D\n#undef A\n"
        b"#define E \\\n  2\n"
    )
    masked = mask(text)
    assert directives.file_defines(masked, directives.scan(masked)) == ("B", "D", "E")


def test_instance_macros_are_read(tmp_path: Path) -> None:
    """FlashInfer's SM100 FP8/BF16 templates instantiate through `INSTANCE_*` macros."""
    from cutlint.parse.extract import parse_source

    text = (
        b'#include "flashinfer/gemm/fp8_gemm_template_sm100.h"\n'
        b"#define FLASHINFER_X 1\n"
        b"INSTANCE_FP8_GEMM_TEMPLATE_SM100(half, 64, 64, 128, 1, 2, 1, _1SM);\n"
    )
    parsed = parse_source(str(tmp_path / "f.cu"), text)
    assert [(i.name, i.args) for i in parsed.instantiations] == [
        ("INSTANCE_FP8_GEMM_TEMPLATE_SM100", ("half", "64", "64", "128", "1", "2", "1", "_1SM"))
    ]
    assert parsed.defines == ("FLASHINFER_X",)


def test_identifier_classes_are_cpps_written_by_exclusion() -> None:
    """literals' identifier classes, spelled as the ASCII characters they exclude (cheap to
    compile), are exactly [A-Za-z_$ + non-ASCII] then [\\w$ + non-ASCII]."""
    import re

    from cutlint.parse import literals

    start = re.compile(literals._IDENT_START)
    cont = re.compile(literals._IDENT_CONTINUE)
    for cp in [*range(0x2000), 0xD800, 0xDC80, 0xFFFF, 0x10000, 0x10FFFF]:
        c = chr(cp)
        assert bool(start.fullmatch(c)) == (c.isascii() is False or c.isalpha() or c in "_$"), cp
        word = c.isascii() is False or c.isalnum() or c in "_$"
        assert bool(cont.fullmatch(c)) == word, cp
