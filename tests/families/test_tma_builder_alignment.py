"""CUT302: the SM100 and SM120 TMA builders take only alignments of TMA's 16 B (cutlint.cutlass.tma),
and nvcc agrees on the fixtures: each kernel of fixtures/*/CUT302-tma-builder-alignment-*.cu,
compiled alone (host only: a main() that takes sizeof its SharedStorage, as the cutlass-alias
probe does) against nvidia-cutlass 4.2.0's headers, fails with the primary template's static_assert
exactly where the fixture expects CUT302, and compiles where it says `ok: CUT302`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cutlint.cutlass import tma

FIXTURES = Path(__file__).parents[2] / "fixtures"
CASES = sorted(FIXTURES.glob("*/CUT302-tma-builder-alignment-*.cu"))
NO_SPECIALIZATION = "Could not build a collective for given parameters."


@pytest.mark.parametrize(
    ("a", "b", "subbyte_rule", "expected"),
    [
        ((16, 8), (16, 8), True, ""),
        ((16, 4), (16, 8), True, "A 8 B (4 x 16 bits) not a multiple of TMA's 16 B"),
        ((4, 32), (4, 32), False, ""),  # NVFP4/MXF4 schedules: 128 bits
        ((4, 32), (4, 32), True, "A 16 B (32 x 4 bits) and B 16 B (32 x 4 bits) not a multiple of TMA's 64 B"),
        ((4, 128), (8, 16), True, ""),  # mxf8f6f4: 64 B for the 4-bit operand, 16 B for the other
        ((6, 128), (6, 128), True, ""),  # 6-bit: 96 B
        ((8, 8), (8, 16), False, "A 8 B (8 x 8 bits) not a multiple of TMA's 16 B"),
    ],
)  # fmt: skip
def test_the_builders_alignment_rule(
    a: tuple[int, int], b: tuple[int, int], subbyte_rule: bool, expected: str
) -> None:
    assert tma.sm1xx_misaligned(a, b, subbyte_rule) == expected


def test_a_block_scaled_pair_is_its_data_type() -> None:
    assert tma.element_bits("cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue8m0_t>") == 4
    assert tma.element_bits("cutlass::bfloat16_t") == 16
    assert tma.element_bits("my::custom_t") is None


def _kernels(text: str) -> list[tuple[str, str, bool]]:
    """(kernel, its chain as a translation unit's body, whether CUT302 is expected)."""
    head = text[: text.index("using ")]
    out = []
    start = text.index("using ")
    for m in re.finditer(r"using (\w+) = cutlass::gemm::kernel::GemmUniversal<[^;]*;", text):
        block = text[start : m.end()]
        out.append((m[1], head + block, "[CUT302" in block))
        start = m.end()
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
@pytest.mark.parametrize("fixture", CASES, ids=[p.parent.name for p in CASES])
def test_nvcc_rejects_exactly_the_kernels_cut302_names(fixture: Path, tmp_path: Path) -> None:
    from cutlint.producers.cutlass_library.generate import download

    include = download() / "cutlass_library" / "source" / "include"
    arch = re.search(r"arch=sm_(\d+)", fixture.read_text())
    assert arch is not None
    kernels = _kernels(fixture.read_text())
    assert any(bad for *_, bad in kernels) and any(not bad for *_, bad in kernels)
    for name, body, expect_failure in kernels:
        unit = tmp_path / f"{name}.cu"
        unit.write_text(
            body + f"\nint main() {{ return int(sizeof(typename {name}::SharedStorage) % 7); }}\n"
        )
        run = subprocess.run(
            ["nvcc", "-std=c++17", "-O0", f"-gencode=arch=compute_{arch[1]}a,code=sm_{arch[1]}a",
             f"-I{include}", "-c", str(unit), "-o", str(tmp_path / f"{name}.o")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if expect_failure:
            assert run.returncode != 0 and NO_SPECIALIZATION in run.stdout + run.stderr, name
        else:
            assert run.returncode == 0, (name, (run.stdout + run.stderr)[-2000:])
