"""Occupancy and the launch-bounds register cap against values CUDA's calculator gives.

Expected values: CUDA 13.0 include/cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor,
the CUDA Occupancy Calculator's arithmetic) worked by hand, and the H200 run of docs/hardware.md
(cudaOccupancyMaxActiveBlocksPerMultiprocessor and the cubins' 168 registers)."""

from __future__ import annotations

import pytest

from cutlint.model.arch import arch_for
from cutlint.model.occupancy import block_registers, occupancy, register_cap


@pytest.mark.parametrize(
    ("arch", "threads", "regs", "smem", "blocks", "limited_by"),
    [
        # 256 threads x 32 registers, no shared memory: 8 blocks (64 warps) on an A100
        ("sm_80", 256, 32, 0, 8, ("warps", "registers")),
        # 128 x 64: 2,048 registers a warp, 8 warps a sub-partition -> 32 warps -> 8 blocks
        ("sm_80", 128, 64, 0, 8, ("registers",)),
        # 1024 threads need at most 64 registers: 72 -> 73,728 > 65,536 a block
        ("sm_90", 1024, 72, 0, 0, ("registers",)),
        ("sm_90", 1024, 64, 0, 1, ("registers",)),
        # 255 registers round up to 8,192 a warp: 2 warps a sub-partition
        ("sm_86", 256, 255, 0, 1, ("registers",)),
        # sm_86 holds 16 blocks of 32 threads at most, sm_89 24, sm_120 24
        ("sm_86", 32, 16, 0, 16, ("blocks",)),
        ("sm_89", 32, 16, 0, 24, ("blocks",)),
        ("sm_120", 32, 16, 0, 24, ("blocks",)),
        # H200 (docs/hardware.md): at the opt-in limit 1 block, one byte above 0
        ("sm_90", 384, 168, 232_448, 1, ("shared memory", "registers")),
        ("sm_90", 384, 168, 232_449, 0, ("shared memory",)),
        # below 48 KiB the default limit holds, the reservation beside it: 48 KiB fits twice
        # on sm_120's 100 KiB (49,152 + 1,024 = 50,176 B a block)
        ("sm_120", 128, 32, 49_152, 2, ("shared memory",)),
        ("sm_120", 128, 32, 101_376, 1, ("shared memory",)),
        ("sm_120", 128, 32, 101_377, 0, ("shared memory",)),
    ],
)
def test_occupancy_equals_the_calculator(
    arch: str, threads: int, regs: int, smem: int, blocks: int, limited_by: tuple[str, ...]
) -> None:
    occ = occupancy(arch_for(arch), threads, smem, regs)
    assert occ.blocks_per_sm == blocks
    assert occ.limited_by == limited_by


def test_registers_not_decided_gives_a_bound_not_a_number() -> None:
    occ = occupancy(arch_for("sm_80"), 256, 0, None)
    assert occ.blocks_per_sm is None and occ.at_most == 8 and occ.by_registers is None
    assert "at most 8" in occ.derivation
    # a limit that is already zero decides it whatever the registers
    assert occupancy(arch_for("sm_80"), 256, 200_000, None).blocks_per_sm == 0


@pytest.mark.parametrize(
    ("threads", "min_blocks", "cap"),
    [
        (384, 1, 168),  # every CUTLASS SM90 kernel of the H200 run (cuobjdump REG:168)
        (256, 1, 255),  # 256 a thread, capped at 255
        (128, 1, 255),
        (256, 2, 128),
        (160, 1, 255),
        (288, 1, 224),  # 227 -> 224
        (1024, 1, 64),
        (None, None, 255),
    ],
)
def test_launch_bounds_cap(threads: int | None, min_blocks: int | None, cap: int) -> None:
    got, derivation = register_cap(threads or 128, min_blocks, arch_for("sm_90"))
    assert got == cap, derivation


def test_block_registers_round_per_warp() -> None:
    sm90 = arch_for("sm_90")
    assert block_registers(168, 384, sm90) == 64_512
    assert block_registers(33, 32, sm90) == 1_280  # 1,056 -> 1,280 (units of 256)
