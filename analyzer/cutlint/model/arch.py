"""The arch database: per-arch limits loaded from data/arches.toml, each number with its source."""

from __future__ import annotations

import re
from functools import cache

from cutlint import tables
from cutlint.records import ArchLimits


@cache
def arches() -> dict[str, ArchLimits]:
    data = tables.load(tables.data_file("cutlint.model", "arches.toml"))
    common = data.pop("common_sources")
    shared = data.pop("common_values")
    out: dict[str, ArchLimits] = {}
    for name, d in data.items():
        d = shared | d
        d["sources"] = common | d.get("sources", {})
        out[name] = ArchLimits(name=name, runs_kernels_of=tuple(d.pop("runs_kernels_of")), **d)
    return out


def known() -> str:
    """The arches the table has, for messages: `sm_80, sm_86, ..., sm_121`."""
    return ", ".join(sorted(arches(), key=lambda name: arches()[name].sm))


def arch_for(spec: str | int) -> ArchLimits:
    """`sm_120`, `sm120`, `sm_120a`, `120`, `12.0`, or a GPU's name (`rtx-5090`: context/data/
    gpus.toml) -> the sm_120 record. KeyError if unknown
    (whatever the text: a number of 5,000 digits is unknown too, not a ValueError)."""
    text = str(spec).strip().lower()
    m = re.fullmatch(r"(?:sm_?|compute_?)?([0-9]{1,4})(?:\.([0-9]))?[af]?", text)
    if m:
        sm = int(m[1]) * 10 + int(m[2]) if m[2] is not None else int(m[1])
    else:
        from cutlint.context.gpus import gpu_sm  # a GPU's name: `rtx-5090`, `h200`, `dgx-spark`

        named = gpu_sm(text) if len(text) <= 64 else None
        if named is None:
            raise KeyError(spec)
        sm = named
    name = f"sm_{sm}"
    table = arches()
    if name not in table:
        raise KeyError(spec)
    return table[name]


def builds(arch_tag: str) -> tuple[int, ...]:
    """The arches (sm values) whose targets build CUTLASS kernels of `arch_tag` (`Sm100`: 100,
    103, 110), from the table's `builds_cutlass_arch_tags`."""
    return tuple(sorted(a.sm for a in arches().values() if arch_tag in a.builds_cutlass_arch_tags))


def cannot_load(sm: int, suffix: str, device: ArchLimits) -> str | None:
    """Why a cubin compiled for `sm_<sm><suffix>` has no code `device` can run, or None.

    An architecture-specific target (`sm_120a`) loads only on exactly that compute capability; a
    family-specific one (`sm_120f`, CUDA 12.9 on) on every part of the same major version with
    the same or a higher minor (sm_100f: 10.0 and 10.3; sm_120f: 12.0 and 12.1). CUDA C++
    Programming Guide, "Compute Capabilities" / "Feature Set Compiler Targets"."""
    target = f"sm_{sm}{suffix}"
    if suffix == "a" and sm not in device.runs_kernels_of:
        return (
            f"the file is compiled for {target}, which loads only on compute capability "
            f"{sm // 10}.{sm % 10}, not on {device.name}"
        )
    if suffix == "f" and not (device.sm // 10 == sm // 10 and device.sm >= sm):
        return (
            f"the file is compiled for {target}, which loads only on compute capability "
            f"{sm // 10}.x with x >= {sm % 10}, not on {device.name}"
        )
    return None
