"""ELF64 little-endian: the sections and symbols of host objects and of cubins.

Only what the readers need: section headers with their names, a section's bytes, the symbol
table's names. System V gABI, "Sections" and "Symbol Table"; NVIDIA's cubins use the same layout
(machine EM_CUDA = 190)."""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field

Buffer = bytes | memoryview | mmap.mmap
"""What an image is read from: bytes, or a file mapped into memory."""

ELF_MAGIC = b"\x7fELF"
EM_CUDA = 190
SHT_SYMTAB = 2
SHT_NOBITS = 8
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym


class NotElf(ValueError):
    """The bytes are not an ELF64 little-endian image this reader understands."""


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


@dataclass(frozen=True, slots=True)
class Elf:
    data: Buffer
    machine: int
    flags: int
    sections: tuple[Section, ...]
    by_name: dict[str, Section] = field(default_factory=dict)
    """The sections by name (the first of each name)."""

    def section(self, name: str) -> Section | None:
        return self.by_name.get(name)

    def bytes_of(self, s: Section) -> bytes:
        if s.type == SHT_NOBITS:
            return b""
        return bytes(self.data[s.offset : s.offset + s.size])

    def symbol_names(self) -> list[str]:
        """Names of `.symtab`'s entries, by index (EIATTR records name kernels by index)."""
        tab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        if tab is None or tab.entsize != _SYMBOL.size or tab.link >= len(self.sections):
            return []
        strtab = self.bytes_of(self.sections[tab.link])
        raw = self.bytes_of(tab)
        names = []
        for name_off, *_ in _SYMBOL.iter_unpack(raw[: len(raw) // _SYMBOL.size * _SYMBOL.size]):
            end = strtab.find(b"\0", name_off)
            names.append(
                strtab[name_off : end if end >= 0 else len(strtab)].decode("utf-8", "replace")
            )
        return names


def read_elf(data: Buffer) -> Elf:
    if bytes(data[:4]) != ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise NotElf("not an ELF64 little-endian image")
    try:
        (machine,) = struct.unpack_from("<H", data, 0x12)
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        (eflags,) = struct.unpack_from("<I", data, 0x30)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    except struct.error as e:
        raise NotElf(f"truncated ELF header: {e}") from None
    table = bytes(data[shoff : shoff + shnum * shentsize])
    if shentsize != _SECTION.size or len(table) != shnum * _SECTION.size:
        raise NotElf("a truncated or unexpected section table")
    raw = list(_SECTION.iter_unpack(table))
    if not raw or shstrndx >= len(raw):
        raise NotElf("no section name table")
    names = bytes(data[raw[shstrndx][4] : raw[shstrndx][4] + raw[shstrndx][5]])

    def name(off: int) -> str:
        end = names.find(b"\0", off)
        return names[off : end if end >= 0 else len(names)].decode("utf-8", "replace")

    sections = tuple(Section(name(r[0]), r[1], r[2], r[4], r[5], r[6], r[7], r[9]) for r in raw)
    by_name: dict[str, Section] = {}
    for s in sections:
        by_name.setdefault(s.name, s)
    return Elf(data, machine, eflags, sections, by_name)
