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


@pytest.mark.parametrize(
    ("contiguous", "bits", "expected"),
    [
        (64, 16, (128, 64)),  # f16, K 64: Layout_K_SW128_Atom, 128 B inner box
        (32, 16, (64, 32)),
        (16, 16, (32, 16)),
        (8, 16, (0, 8)),  # interleaved
        (128, 8, (128, 128)),
        (8, 8, None),  # no atom divides it: ss_smem_selector's static_assert
    ],
)
def test_the_sm90_smem_atom_and_inner_box(
    contiguous: int, bits: int, expected: tuple[int, int] | None
) -> None:
    assert tma.sm90_smem_swizzle(contiguous, bits) == expected


def test_the_tma_section_of_an_sm90_chain() -> None:
    """fixtures/sm90-collective-builder/CUT301-tma-global-alignment.cu, tma_align4_f16: f16 A/B at
    an alignment of 4 (8 B promised, 16 B needed), tile K 64: SW128, a 64-element inner box;
    four descriptors (A, B, C, D) in the parameters."""
    from cutlint import api

    fixture = FIXTURES / "sm90-collective-builder" / "CUT301-tma-global-alignment.cu"
    options = api.CheckOptions(arch="sm_90", cutlass_version="4.2.0")
    r = api.instantiation_at(fixture, 40, options)
    assert r is not None and r.resources is not None and r.resources.tma is not None
    plan = r.resources.tma
    got = [(d.operand, d.alignment_bytes, d.required_bytes, d.swizzle_bytes, d.inner_box)
           for d in plan.descriptors]  # fmt: skip
    assert got == [("A", 8, 16, 128, 64), ("B", 8, 16, 128, 64)]
    assert plan.param_bytes == 4 * 128 and plan.param_limit == 4096
