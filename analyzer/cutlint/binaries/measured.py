"""Measured registers and spills in `cutlint check`: ptxas's report or the built binaries, mapped
to the instantiations they were compiled from.

Sources, the most exact first: the report `cutlint verify --device-code` left for the file's
bytes and the target (store.py: registers, stack frame, spill stores and loads, origin `ptxas`),
and the cubins of the binaries the user names (`--binaries`) or that FlashInfer's JIT wrote
beside the sources (`<archdir>/cached_ops/<module>/*.so`; registers and stack frame, origin
`cubin`: a cubin does not record spills).

A kernel is matched by what its demangled type says (kernel_type.features: stages, CTA tile,
output element, output major-ness) against what the instantiation's must say
(families.kernel_signature). One instantiation may compile to several kernels (FlashInfer's FP4
GEMM builds a stream-K and a persistent one), and two instantiations may share candidates when
the name does not tell them apart (FlashInfer's NONE and FINALIZE fused-MoE epilogues of one
tile). A number is given to an instantiation only where it holds whichever candidates are its
kernels: its candidates are all its own (each matches it alone), or they all agree. Otherwise it
keeps the model's numbers, and `measured` says why."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cutlint.binaries.store import by_source, index_dir
from cutlint.records import (
    CheckResult,
    FileResult,
    InstantiationResult,
    RegisterUse,
    Resources,
    Verdict,
)

if TYPE_CHECKING:
    from cutlint.binaries.kernel_type import KernelFeatures
    from cutlint.engine.selection import Selection

# The readers of binaries and the judge are imported where a kernel is measured: a check with
# nothing measured (no ptxas report, no binaries) must not pay for them at start-up.

REGISTER_RULES = frozenset({"CUT108", "CUT110", "CUT111"})
"""The rules measured registers decide again (CUT109, the setmaxnreg split, is the model's)."""


@dataclass(frozen=True, slots=True)
class Measured:
    name: str
    registers: int
    stack_frame: int | None
    spill_stores: int | None
    """None: not known (a cubin); 0: ptxas reported none."""
    spill_loads: int | None
    origin: str
    """`ptxas` or `cubin`."""
    where: str
    features: KernelFeatures
    is_kernel: bool
    """A CUTLASS `device_kernel` (the kernels instantiations make); others are left out."""


def _sm(target: str) -> int | None:
    digits = "".join(c for c in target.removeprefix("sm_") if c.isdigit())
    return int(digits) if digits else None


Row = tuple[str, int, int | None, int | None, int | None, str, str]
"""name, registers, stack frame, spill stores, spill loads, origin, where"""


def _typed(rows: Sequence[Row]) -> list[Measured]:
    from cutlint.binaries.demangle import demangle
    from cutlint.binaries.kernel_type import features

    names = demangle(r[0] for r in rows)
    out = []
    for name, regs, frame, stores, loads, origin, where in rows:
        text = names.get(name)
        out.append(
            Measured(
                name, regs, frame, stores, loads, origin, where, features(text),
                text is not None and text.startswith("void cutlass::device_kernel<"),
            )
        )  # fmt: skip
    return out


def from_store(cache: Path, source: bytes, sm: int) -> list[Measured]:
    """The kernels of ptxas's report for these bytes on a target of `sm` (`sm_120a`, `sm_120`)."""
    if not index_dir(cache).is_dir():
        return []
    rows: list[Row] = []
    for target in (f"sm_{sm}a", f"sm_{sm}f", f"sm_{sm}"):
        entry = by_source(cache, source, target)
        try:
            data = json.loads(entry.read_text())
        except (OSError, ValueError):
            continue
        where = f"ptxas ({target}, cutlint verify --device-code)"
        for k in data.get("kernels", ()):
            rows.append(
                (str(k["name"]), int(k["registers"]), int(k["stack_frame"]),
                 int(k["spill_stores"]), int(k["spill_loads"]), "ptxas", where)
            )  # fmt: skip
        break
    return _typed(rows)


def from_binaries(paths: Sequence[Path], sm: int) -> list[Measured]:
    """The kernels of the cubins for `sm` in these files or directories."""
    from cutlint.binaries.read import read_paths

    reading = read_paths(paths)
    rows: list[Row] = [
        (i.kernel.name, i.kernel.registers, i.kernel.frame_size, None, None, "cubin", i.path)
        for i in reading.kernels
        if i.kernel.sm == sm and i.kernel.registers is not None
    ]
    return _typed(rows)


def module_binaries(source: str) -> list[Path]:
    """FlashInfer's JIT builds `<archdir>/generated/<module>/...` into
    `<archdir>/cached_ops/<module>/<module>.so` (flashinfer/jit/core.py, JitSpec); the fused-MoE
    files under `generated/cutlass_instantiations/` into `cached_ops/fused_moe_<sm>/`."""
    found = _module_dirs(source)
    if found is None:
        return []
    return [f for d in found[1] if d.is_dir() for f in sorted(d.glob("*.so"))]


def _module_dirs(source: str) -> tuple[Path, list[Path]] | None:
    """The `cached_ops` directory of the JIT cache `source` is in, and the module directories
    its binaries would be in (module_binaries); None outside such a cache."""
    parts = Path(source).parts
    if "generated" not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index("generated")
    if at + 1 >= len(parts) - 1:
        return None
    archdir, module = Path(*parts[:at]), parts[at + 1]
    ops = archdir / "cached_ops"
    dirs = sorted(ops.glob("fused_moe_*")) if module == "cutlass_instantiations" else [ops / module]
    return ops, dirs


def dependencies(files: Iterable[str], cache: Path | None) -> list[str]:
    """Every path whose stat decides what `apply` finds for the checked `files`, besides their own
    bytes: the ptxas report store's directories (its entries are moved into place, which
    changes their directory's stat), and each JIT cache's `cached_ops` directory, module
    directories and binaries (a replayed check, engine/replay.py, depends on them)."""
    out: list[str] = []
    if cache is not None:
        store = index_dir(cache)
        out.append(str(store))
        if store.is_dir():
            with os.scandir(store) as entries:
                out += [e.path for e in entries if e.is_dir()]
    seen: set[str] = set()
    for path in files:
        where = os.path.dirname(path)
        if where in seen:
            continue
        seen.add(where)
        found = _module_dirs(path)
        if found is not None:
            ops, dirs = found
            out += [str(ops), *map(str, dirs)]
            out += [str(s) for d in dirs if d.is_dir() for s in d.glob("*.so")]
    return out


@dataclass(frozen=True, slots=True)
class Attribution:
    kernels: tuple[Measured, ...]
    own: bool
    """Every candidate matches this instantiation alone: they are its kernels."""


def _matches(sig: dict[str, object], f: KernelFeatures) -> bool:
    have = {"stages": f.stages, "tile": f.tile, "output": f.output, "output_major": f.output_major}
    return all(sig[k] is None or have[k] is None or sig[k] == have[k] for k in have)


def attribute(
    rows: Sequence[InstantiationResult], kernels: Sequence[Measured]
) -> dict[int, Attribution]:
    """Per row index: its candidate kernels, and whether they are all its own."""
    from cutlint.families.kernel_signature import signature

    sigs = {
        i: signature(r.recipe, r.resources)
        for i, r in enumerate(rows)
        if r.recipe is not None and r.resources is not None
    }
    found: dict[int, list[Measured]] = {i: [] for i in sigs}
    owners: dict[int, set[int]] = {}
    for n, k in enumerate(kernels):
        if not k.is_kernel:
            continue
        owners[n] = {i for i, sig in sigs.items() if _matches(sig, k.features)}
        for i in owners[n]:
            found[i].append(k)
    out = {}
    for i, ks in found.items():
        if not ks:
            continue
        own = all(owners[n] == {i} for n, k in enumerate(kernels) if k.is_kernel and i in owners[n])
        out[i] = Attribution(tuple(ks), own)
    return out


def _same(values: Sequence[int | None]) -> int | None:
    return values[0] if values and all(v == values[0] for v in values) else None


def measured_use(res: Resources, a: Attribution) -> RegisterUse | None:
    """The register use the measured kernels decide for this instantiation, or None."""
    from cutlint.model.occupancy import block_registers

    base = res.register_use
    if base is None:
        return None
    ks = a.kernels
    regs = [k.registers for k in ks]
    stores = [k.spill_stores for k in ks]
    loads = [k.spill_loads for k in ks]
    # own kernels: the instantiation has all of them, so its worst kernel is its number; shared
    # candidates: only what every candidate says
    if a.own:
        per_thread: int | None = max(regs)
        spill_s = None if None in stores else max(s or 0 for s in stores)
        spill_l = None if None in loads else max(x or 0 for x in loads)
        frame: int | None = max((k.stack_frame or 0) for k in ks)
    else:
        per_thread = _same(regs)
        known = [s for s in stores if s is not None]
        spill_s = min(known) if len(known) == len(stores) and all(known) else _same(stores)
        spill_l = min(x or 0 for x in loads) if spill_s and None not in loads else _same(loads)
        frame = _same([k.stack_frame for k in ks])
    if per_thread is None and spill_s is None:
        return None
    origin = ks[0].origin
    detail = "; ".join(
        f"{k.registers} registers"
        + (f", {k.spill_stores} B spill stores" if k.spill_stores is not None else "")
        for k in ks[:4]
    )
    what = (
        f"its {len(ks)} kernel{'s' if len(ks) > 1 else ''} ({detail}), the worst of them"
        if a.own
        else f"{len(ks)} kernels its name does not tell apart ({detail}), what they all have"
    )
    per = per_thread if per_thread is not None else base.per_thread
    return base.model_copy(
        update={
            "per_thread": per,
            "block": None
            if per is None
            else block_registers(per, res.max_threads_per_block, res.arch),
            "origin": origin if per_thread is not None else base.origin,
            "spill_stores": spill_s,
            "spill_loads": spill_l,
            "stack_frame": frame,
            "measured": f"{ks[0].where}, matched by stages, tile, output type and major-ness: "
            f"{what}",
        }
    )


def _rejudged(
    r: InstantiationResult, use: RegisterUse, selection: Selection
) -> InstantiationResult:
    from cutlint.engine.evaluate import diagnose
    from cutlint.engine.judge import facts_for, rules_for, verdict_of
    from cutlint.engine.loader import rules_by_id
    from cutlint.families.registry import family_of
    from cutlint.model.occupancy import occupancy

    assert r.recipe is not None and r.resources is not None
    res = r.resources
    occ = occupancy(res.arch, res.max_threads_per_block, res.layout.size, use.per_thread)
    res = res.model_copy(update={"register_use": use, "occupancy": occ})
    family = family_of(r.recipe)
    rules = [x for x in rules_for(family, res.arch.sm) if x.id in REGISTER_RULES]
    line = r.instantiation.span
    found = diagnose(rules, facts_for(family, r.recipe, res), line.path, line.line)
    kept = [d for d in r.diagnostics if d.rule not in REGISTER_RULES]
    diags = (*kept, *(d for d in found if selection.wants(d.rule)))
    verdict = r.verdict
    if verdict in (Verdict.FITS, Verdict.ZERO_SLACK):
        worse = verdict_of(found, rules_by_id())
        verdict = worse if worse is not Verdict.FITS else verdict
    return r.model_copy(update={"resources": res, "diagnostics": diags, "verdict": verdict})


def measure_file(f: FileResult, kernels: Sequence[Measured], selection: Selection) -> FileResult:
    rows = list(f.instantiations)
    changed = False
    for i, a in attribute(rows, kernels).items():
        res = rows[i].resources
        use = measured_use(res, a) if res is not None else None
        if use is not None:
            rows[i] = _rejudged(rows[i], use, selection)
            changed = True
    return f.model_copy(update={"instantiations": tuple(rows)}) if changed else f


class Measurer:
    """Measured registers and spills for one file at a time (`apply`, and a check that streams
    its results), remembering what the files of a run share: the binaries beside a directory
    and the kernels read from them."""

    def __init__(
        self, selection: Selection, cache: Path | None, binaries: Sequence[Path] = ()
    ) -> None:
        self.selection = selection
        self.cache = cache
        self.binaries = binaries
        self.named: dict[int, list[Measured]] = {}
        self.beside: dict[str, list[Path]] = {}
        """module_binaries by directory: the files of one directory have the same (a build's
        27,000 files would look for the same cached_ops 27,000 times)."""
        # else no file's bytes are read
        self.stored = cache is not None and index_dir(cache).is_dir()

    def file(self, f: FileResult) -> FileResult:
        """`f` with what was measured of its kernels (`f` itself when nothing was; fingerprints
        are the caller's to set again when it is not)."""
        sms = {r.resources.arch.sm for r in f.instantiations if r.resources is not None}
        if len(sms) != 1:
            return f
        sm = sms.pop()
        kernels: list[Measured] = []
        if self.stored:
            assert self.cache is not None
            try:
                kernels = from_store(self.cache, Path(f.path).read_bytes(), sm)
            except OSError:
                kernels = []
        if not kernels:
            where = os.path.dirname(f.path)
            if where not in self.beside:
                self.beside[where] = module_binaries(f.path)
            found = [*self.binaries, *self.beside[where]]
            if found:
                key = hash((tuple(map(str, found)), sm))
                if key not in self.named:
                    self.named[key] = from_binaries(found, sm)
                kernels = self.named[key]
        return measure_file(f, kernels, self.selection) if kernels else f


def apply(
    result: CheckResult,
    selection: Selection,
    cache: Path | None,
    binaries: Sequence[Path] = (),
) -> CheckResult:
    """`result` with measured registers and spills where a report or a binary is at hand."""
    measurer = Measurer(selection, cache, binaries)
    files = [measurer.file(f) for f in result.files]
    if all(a is b for a, b in zip(files, result.files, strict=True)):
        return result
    from cutlint.engine.fingerprint import with_fingerprints

    return with_fingerprints(
        result.model_copy(update={"files": tuple(files)}), Path(result.root or os.getcwd())
    )
