"""A cubin's kernels and what it records of each: the `.nv.info` attributes.

`.nv.info` (the whole cubin) and `.nv.info.<kernel>` (one kernel) hold a list of attributes, each
a format byte, an attribute byte and a 16-bit field: for EIFMT_SVAL that many bytes follow, for
the other formats the field is the value. The attribute numbers are the EIATTR_* of NVIDIA's ELF
ABI as cuobjdump --dump-elf prints them (EIATTR_REGCOUNT 0x2f: symbol index and registers;
EIATTR_FRAME_SIZE 0x11, EIATTR_MIN_STACK_SIZE 0x12, EIATTR_MAX_STACK_SIZE 0x23: symbol index and
bytes; EIATTR_MAX_THREADS 0x05: the launch bounds' x, y, z; EIATTR_MAXREG_COUNT 0x1b: the
register cap ptxas compiled under). Static shared memory is the size of the kernel's
`.nv.shared.<kernel>` NOBITS section (cuobjdump's SHARED; docs/hardware.md: CUTLASS kernels
have none of their own, their 1 KiB section in cuobjdump is the per-block reservation)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cutlint.binaries.elf import Elf

EIFMT_SVAL = 4
EIATTR_MAX_THREADS = 0x05
EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_MAXREG_COUNT = 0x1B
EIATTR_MAX_STACK_SIZE = 0x23
EIATTR_REGCOUNT = 0x2F

_PER_SYMBOL = {
    EIATTR_REGCOUNT: "registers",
    EIATTR_FRAME_SIZE: "frame_size",
    EIATTR_MIN_STACK_SIZE: "min_stack_size",
    EIATTR_MAX_STACK_SIZE: "max_stack_size",
}


@dataclass(frozen=True, slots=True)
class Kernel:
    """One kernel of one cubin, as the cubin records it."""

    name: str
    sm: int
    registers: int | None
    frame_size: int | None
    min_stack_size: int | None
    max_stack_size: int | None
    static_smem: int
    """Static `__shared__` bytes of the kernel's own (cudaFuncGetAttributes.sharedSizeBytes)."""
    shared_section: int
    """The size of `.nv.shared.<kernel>`, cuobjdump's SHARED: on sm_90 and later it includes the
    1 KiB per-block reservation (`.nv.shared.reserved.0` present)."""
    max_threads: tuple[int, int, int] | None
    """`__launch_bounds__`'s first argument as x, y, z (None: no launch bounds)."""
    register_cap: int | None
    """EIATTR_MAXREG_COUNT: the cap ptxas was given (launch bounds or -maxrregcount)."""


def attributes(raw: bytes) -> list[tuple[int, int, bytes | int]]:
    """(format, attribute, payload bytes or 16-bit value) of every attribute in a `.nv.info`."""
    out: list[tuple[int, int, bytes | int]] = []
    pos = 0
    while pos + 4 <= len(raw):
        fmt, attr, field = struct.unpack_from("<BBH", raw, pos)
        if fmt == EIFMT_SVAL:
            out.append((fmt, attr, raw[pos + 4 : pos + 4 + field]))
            pos += 4 + field
        else:
            out.append((fmt, attr, field))
            pos += 4
    return out


def kernels(elf: Elf) -> list[Kernel]:
    """The cubin's kernels (the functions with a `.nv.info.<name>` section), with their numbers.

    The target sm is the low byte of the ELF header's flags (EF_CUDA_SM)."""
    symbols = elf.symbol_names()
    per_symbol: dict[str, dict[str, int]] = {}
    info = elf.section(".nv.info")
    for _fmt, attr, payload in attributes(elf.bytes_of(info)) if info else []:
        key = _PER_SYMBOL.get(attr)
        if key and isinstance(payload, bytes) and len(payload) >= 8:
            index, value = struct.unpack_from("<II", payload)
            if index < len(symbols):
                per_symbol.setdefault(symbols[index], {})[key] = value
    # EF_CUDA_SM: bits 8-15 of e_flags in the ABI CUDA 12.x/13.0 writes (0x6005a04: sm_90),
    # the low byte in older ones.
    sm = (elf.flags >> 8) & 0xFF if (elf.flags >> 8) & 0xFF >= 20 else elf.flags & 0xFF
    reserved = 1024 if elf.section(".nv.shared.reserved.0") is not None else 0
    out = []
    for s in elf.sections:
        if not s.name.startswith(".nv.info."):
            continue
        name = s.name.removeprefix(".nv.info.")
        threads: tuple[int, int, int] | None = None
        cap: int | None = None
        for _fmt, attr, payload in attributes(elf.bytes_of(s)):
            if attr == EIATTR_MAX_THREADS and isinstance(payload, bytes) and len(payload) >= 12:
                x, y, z = struct.unpack_from("<III", payload)
                threads = (x, y, z)
            elif attr == EIATTR_MAXREG_COUNT and isinstance(payload, int):
                cap = payload
        shared = elf.section(f".nv.shared.{name}")
        numbers = per_symbol.get(name, {})
        out.append(
            Kernel(
                name=name,
                sm=sm,
                registers=numbers.get("registers"),
                frame_size=numbers.get("frame_size"),
                min_stack_size=numbers.get("min_stack_size"),
                max_stack_size=numbers.get("max_stack_size"),
                # measured with nvcc 13.0 for sm_90a: ptxas reports 4,096 B smem, the section
                # holds 5,120 B; for sm_80 both are 4,096 B
                static_smem=max(shared.size - reserved, 0) if shared else 0,
                shared_section=shared.size if shared else 0,
                max_threads=threads,
                register_cap=cap,
            )
        )
    return out
