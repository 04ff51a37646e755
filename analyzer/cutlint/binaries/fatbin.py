"""The fatbin container: the device images (cubins, PTX) a host binary embeds.

Layout as nvcc 12.x/13.0 writes it (read from the bytes of objects it builds; the section names
and the wrapper's magic are CUDA's include/fatbinary_section.h): a 16-byte header (magic
0xBA55ED50, version, header size, size of the entries), then entries, each a header of its own
(kind 1 PTX, 2 ELF; header size; payload size; compressed size at 16; target sm at 28; flags at
40; uncompressed size at 56) followed by its payload. Several containers may follow one another
in a section (one per translation unit after linking).

Compressed entries: flag 0x8000 holds a zstd frame (CUDA 12.8 and later, `--compress-mode`),
decoded with the `zstandard` module when it is installed; flag 0x2000 is the older NVIDIA LZ
scheme, which this reader does not decode (the caller falls back to cuobjdump, or says why)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2
FLAG_COMPRESSED_LZ = 0x2000
FLAG_COMPRESSED_ZSTD = 0x8000
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(frozen=True, slots=True)
class Entry:
    kind: int
    sm: int
    flags: int
    payload: bytes
    uncompressed_size: int

    @property
    def compression(self) -> str | None:
        if self.flags & FLAG_COMPRESSED_ZSTD:
            return "zstd"
        if self.flags & FLAG_COMPRESSED_LZ:
            return "nvidia-lz"
        return None


class BadFatbin(ValueError):
    """The bytes do not hold a fatbin container this reader understands."""


def entries(data: bytes, start: int = 0, end: int | None = None) -> list[Entry]:
    """Every entry of the containers laid one after another in `data[start:end]`."""
    end = len(data) if end is None else end
    out: list[Entry] = []
    pos = start
    while pos + 16 <= end:
        magic, _version, header_size, size = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:
            # containers are 8-byte aligned; padding between them is zeros
            if data[pos : pos + 8] == b"\0" * 8:
                pos += 8
                continue
            if not out:
                raise BadFatbin(f"no fatbin magic at offset {pos}")
            break
        p, stop = pos + header_size, pos + header_size + size
        if stop > end:
            raise BadFatbin(f"a container of {size} B runs past its section")
        while p + 64 <= stop:
            kind, _ver, ehs, psize = struct.unpack_from("<HHIQ", data, p)
            (compressed,) = struct.unpack_from("<I", data, p + 16)
            (sm,) = struct.unpack_from("<I", data, p + 28)
            (flags,) = struct.unpack_from("<Q", data, p + 40)
            (uncompressed,) = struct.unpack_from("<Q", data, p + 56)
            body = data[p + ehs : p + ehs + psize]
            if flags & (FLAG_COMPRESSED_ZSTD | FLAG_COMPRESSED_LZ) and compressed:
                body = body[:compressed]
            out.append(Entry(kind, sm, flags, bytes(body), uncompressed))
            p += ehs + psize
        pos = stop
    return out


_DECOMPRESSOR: list[Any] = []


def _zstd(module: Any) -> Any:
    """One decompressor for the process: making one per entry costs more than decoding it."""
    if not _DECOMPRESSOR:
        _DECOMPRESSOR.append(module.ZstdDecompressor())
    return _DECOMPRESSOR[0]


def decompress(entry: Entry) -> bytes | str:
    """The entry's image, or why it cannot be had here."""
    if entry.compression is None:
        return entry.payload
    if entry.compression == "zstd" and entry.payload[:4] == ZSTD_MAGIC:
        try:
            import zstandard  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            return "a zstd-compressed entry and no zstd decoder (pip install zstandard)"
        try:
            image: bytes = _zstd(zstandard).decompress(
                entry.payload, max_output_size=max(entry.uncompressed_size, 1 << 20)
            )
        except zstandard.ZstdError as e:
            return f"a zstd entry that does not decode: {e}"
        return image
    return f"an entry compressed with the {entry.compression} scheme, which this reader does not decode"
