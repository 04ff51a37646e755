"""Mutated real files never raise: every result is a ParsedFile and every problem names its code
and its file. (Hypothesis shrinks a failure to the smallest mutation that shows it.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cutlint.parse import PROBLEM_NAMES, Limits, parse_paths, parse_source
from cutlint.records import ParsedFile

FIXTURES = Path(__file__).parents[2] / "fixtures" / "parse"
HAND_WRITTEN = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.cu"))]
REAL_FILES = (
    "gemm_grouped/120/cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu",
    "gemm_grouped/80/cutlass_kernel_file_gemm_grouped_sm80_M16_group0.generated.cu",
    "gemm/90/cutlass_kernel_file_gemm_sm90_M64_group0.generated.cu",
)


@pytest.fixture(scope="session")
def seeds(generated_cache: Callable[[str], Path]) -> list[bytes]:
    """The real generator's files (FlashInfer 0.7.2.post1, written at test time), and the
    hand-written fixtures."""
    root = generated_cache("0.7.2.post1")
    return [(root / name).read_bytes() for name in REAL_FILES] + HAND_WRITTEN


# Bytes that change structure most: brackets, separators, directive and comment openers, quotes,
# a NUL, an invalid UTF-8 byte, and the macro name itself.
INTERESTING = [b"(", b")", b",", b";", b"<", b">", b"#", b"#if 0\n", b"#endif\n", b"/*", b"*/", b"//",
               b'"', b"'", b"\\\n", b"\n", b"\x00", b"\xff", b"INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(",
               b"template void f<"]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["truncate", "insert", "duplicate", "delete"]))
        if op == "truncate":
            text = text[:at]
        elif op == "insert":
            piece = draw(st.one_of(st.sampled_from(INTERESTING), st.binary(min_size=1, max_size=8)))
            text = text[:at] + piece + text[at:]
        elif op == "duplicate":
            lines = text.split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            text = b"\n".join(lines)
        else:
            n = draw(st.integers(1, 64))
            text = text[:at] + text[at + n :]
    return text


def check(parsed: ParsedFile, path: str) -> None:
    assert isinstance(parsed, ParsedFile) and parsed.path == path
    for p in parsed.problems:
        assert p.code in PROBLEM_NAMES and p.path == path
        assert p.line is None or p.line >= 1
    for inst in parsed.instantiations:
        assert inst.span.path == path and 1 <= inst.span.line <= inst.span.end_line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutations_in_process(seeds: list[bytes], data: st.DataObject) -> None:
    text = data.draw(mutated(seeds))
    check(parse_source("mutated.cu", text), "mutated.cu")


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_mutations_through_workers(
    tmp_path_factory: object, seeds: list[bytes], data: st.DataObject
) -> None:
    texts = data.draw(st.lists(mutated(seeds), min_size=1, max_size=4))
    directory = tmp_path_factory.mktemp("mutated")  # type: ignore[attr-defined]
    paths = []
    for i, text in enumerate(texts):
        (directory / f"m{i}.cu").write_bytes(text)
        paths.append(directory / f"m{i}.cu")
    results = parse_paths(paths, jobs=2, limits=Limits(seconds_per_file=10))
    assert len(results) == len(paths)
    for path, parsed in zip(paths, results, strict=True):
        check(parsed, str(path))
        assert parsed == parse_source(str(path), path.read_bytes())
