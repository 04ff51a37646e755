"""FlashInfer releases cutlint knows: the CUTLASS each vendors, its fused-MoE macro, what its
launcher dispatches and how its JIT names things.

The table is data (data/releases.toml), written by `python -m
cutlint.producers.flashinfer.derive_releases` from each release's wheel, every value with its
source in that wheel (docs/flashinfer-releases.md). A release not in the table is answered with
the nearest one (`release_for`), and the answer says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from cutlint import tables
from cutlint.cutlass.versions import Version, parse_version

Tile = tuple[int, int, int]

_PEP440 = re.compile(
    r"v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))|-(?P<post_implicit>\d+))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
VersionKey = tuple[tuple[int, ...], tuple[int, int], int, float]


def version_key(version: str) -> VersionKey:
    """A sort key that orders versions as PEP 440 does (0.6.8 < 0.6.8.post1 < 0.6.9rc1 < 0.6.9);
    a local label (`+cu128`) is ignored. ValueError for a string that is not a version."""
    m = _PEP440.fullmatch(version.strip())
    if not m:
        raise ValueError(f"not a PEP 440 version: {version!r}")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    post_text = m["post"] if m["post"] is not None else m["post_implicit"]
    post = int(post_text or 0) if post_text is not None else -1
    dev = float(m["dev"] or 0) if m["dev"] is not None else float("inf")
    if m["pre"]:
        pre = (_PRE_RANK[m["pre"].lower()], int(m["pre_n"] or 0))
    elif m["dev"] is not None and post < 0:
        pre = (-1, 0)  # 1.0.dev1 sorts before 1.0a1
    else:
        pre = (3, 0)  # a final release sorts after its pre-releases
    return tuple(release), pre, post, dev


@dataclass(frozen=True)
class ShapeCase:
    """One `SHAPE_CASE(arch, M, N, K)` of the launcher's tile dispatch: the enumerator it matches
    (`CtaShape128x128x64B`) names K in bytes of A."""

    name: str
    m: int
    n: int
    k_bytes: int

    def tile(self, a_bits: int) -> Tile:
        """(M, N, K) in elements for an A of `a_bits` bits: the macro's K * 8 / sizeof_bits<A>
        (K = 128 for FP4, 64 for FP8, 32 for 16-bit A when the name says 64B)."""
        return self.m, self.n, self.k_bytes * 8 // a_bits


@dataclass(frozen=True)
class TileDispatch:
    """One `switch (gemm_config.tile_config_smNN)` of dispatchMoeGemmSelectTileShape..."""

    sm_versions: tuple[int, ...]
    """Device `sm_version`s whose if / else-if chain can reach this switch."""
    arch_tag: str
    switch: str
    tile_config: str
    """The enum class of the cases (`CutlassTileConfigSM120`)."""
    when: tuple[str, ...]
    """The conditions on the way (C++ text; `!(c)` for an earlier branch of a chain)."""
    guards: tuple[str, ...]
    """The `#if` conditions around it."""
    shape_cases: tuple[ShapeCase, ...]
    source: str

    def tiles(self, a_bits: int) -> tuple[Tile, ...]:
        return tuple(c.tile(a_bits) for c in self.shape_cases)


@dataclass(frozen=True)
class ClusterRule:
    """A cluster shape `are_tile_shapes_supported` lets through for arches without a check of
    their own (SM90), and the least CTA tile it needs."""

    cga_m: int
    cga_n: int
    min_cta_m: int
    min_cta_n: int


@dataclass(frozen=True)
class JitModule:
    """One CUTLASS fused-MoE JIT module (`gen_cutlass_fused_moe_sm<NN>_module`): it compiles every
    generated file under `cutlass_instantiations/<dev>` with these defines."""

    dev: str
    """The `<dev>` of `cutlass_instantiations/<dev>`: `120`, `103`, `100`, `90`, `89`."""
    function: str
    defines: tuple[str, ...]
    """`NAME` or `NAME=VALUE`, as the -D flags spell them, always passed."""
    conditional_defines: tuple[str, ...]
    """`NAME if <Python condition>`: passed only where the condition holds at JIT time."""
    arch_flags: tuple[str, ...]
    source: str

    @property
    def name(self) -> str:
        """The module's name as FlashInfer builds it (`fused_moe_120`)."""
        return f"fused_moe_{self.dev}"

    @property
    def defined(self) -> frozenset[str]:
        """The macro names it always defines."""
        return frozenset(d.partition("=")[0] for d in self.defines)


@dataclass(frozen=True)
class LauncherGuard:
    """A launcher whose body only a define compiles (the `#else` branch throws)."""

    launcher: str
    define: str
    source: str


@dataclass(frozen=True)
class FlashInferRelease:
    version: str
    cutlass: Version
    sm120_tiles: frozenset[Tile]
    """(M, N, K) in elements that `are_tile_shapes_supported_sm120` accepts."""
    sm120_tiles_source: str
    cutlass_source: str = ""
    macro_parameters: tuple[str, ...] = ()
    """The parameters of `#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(...)`, in order."""
    macro_parameters_source: str = ""
    sm120_cluster_max: Tile | None = None
    sm120_cluster_max_source: str = ""
    sm100_checks: tuple[str, ...] = ()
    """`are_tile_shapes_supported_sm100`'s returns in order, each with its conditions (C++ text)."""
    sm100_checks_source: str = ""
    sm100_cluster_max: Tile | None = None
    sm100_cluster_max_source: str = ""
    cluster_shapes: tuple[Tile, ...] = ()
    """The cluster shapes the launcher's cluster switch has a case for."""
    cluster_shapes_source: str = ""
    cluster_rules: tuple[ClusterRule, ...] = ()
    cluster_rules_source: str = ""
    tile_checks: tuple[tuple[str, str], ...] = ()
    """(arch tag `Sm120`, the check its tiles go through, or `cluster_rules`)."""
    tile_checks_source: str = ""
    dispatch: tuple[TileDispatch, ...] = ()
    jit_cuda: tuple[str, ...] = ()
    """The CUDA versions of jit_arch_dirs' columns."""
    jit_arch_dirs: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """(device sm, the arch directory under each CUDA of jit_cuda; "" where the JIT gets none)."""
    jit_arch_dirs_source: str = ""
    moe_dev: tuple[tuple[int, str], ...] = ()
    """(device sm, the `<dev>` of `cutlass_instantiations/<dev>`); no entry: no CUTLASS MoE."""
    moe_dev_source: str = ""
    instantiations_dir: str = ""
    instantiations_dir_source: str = ""
    generator_archs: str = ""
    generator_archs_source: str = ""
    generators: tuple[str, ...] = ()
    generators_source: str = ""
    jinja_templates: tuple[str, ...] = ()
    jinja_templates_source: str = ""
    jit_modules: tuple[JitModule, ...] = ()
    jit_modules_source: str = ""
    jit_module_compiles: str = ""
    """What each module compiles of the generator's output (`output_dir.rglob('*.generated.cu')`)."""
    jit_module_compiles_source: str = ""
    launcher_guards: tuple[LauncherGuard, ...] = ()
    launcher_guards_source: str = ""

    def jit_arch_dir(self, sm: int, cuda: str) -> str | None:
        """The arch directory of `~/.cache/flashinfer/<version>/<arch>/` on a device `sm` (120)
        with CUDA `cuda`: None when not tabled, "" when this release's JIT gets no arch there."""
        dirs = dict(self.jit_arch_dirs).get(sm)
        if dirs is None or cuda not in self.jit_cuda:
            return None
        return dirs[self.jit_cuda.index(cuda)]

    def moe_dev_for(self, sm: int) -> str | None:
        return dict(self.moe_dev).get(sm)

    def jit_module(self, dev: str) -> JitModule | None:
        """The module that compiles `cutlass_instantiations/<dev>` (None: this release has none)."""
        return next((m for m in self.jit_modules if m.dev == dev), None)

    def launcher_guard(self, launcher: str) -> LauncherGuard | None:
        """The define `launcher`'s body is compiled under, if one is (by unqualified name)."""
        name = launcher.rsplit("::", 1)[-1]
        return next((g for g in self.launcher_guards if g.launcher == name), None)

    def tile_check(self, arch_tag: str) -> str | None:
        return dict(self.tile_checks).get(arch_tag)

    def dispatch_for(self, sm: int) -> tuple[TileDispatch, ...]:
        """The tile switches a device `sm` can reach."""
        return tuple(d for d in self.dispatch if sm in d.sm_versions)


def _tile(t: list[int]) -> Tile:
    return t[0], t[1], t[2]


def _release(version: str, d: dict[str, Any]) -> FlashInferRelease:
    dirs = d.get("jit_arch_dirs", {})
    moe = d.get("moe_dev", {})
    checks = d.get("tile_checks", {})
    return FlashInferRelease(
        version=version,
        cutlass=parse_version(d["cutlass"]),
        sm120_tiles=frozenset(_tile(t) for t in d["sm120_tiles"]),
        sm120_tiles_source=d["sm120_tiles_source"],
        cutlass_source=d.get("cutlass_source", ""),
        macro_parameters=tuple(d.get("macro_parameters", ())),
        macro_parameters_source=d.get("macro_parameters_source", ""),
        sm120_cluster_max=_tile(d["sm120_cluster_max"]) if d.get("sm120_cluster_max") else None,
        sm120_cluster_max_source=d.get("sm120_cluster_max_source", ""),
        sm100_checks=tuple(d.get("sm100_checks", ())),
        sm100_checks_source=d.get("sm100_checks_source", ""),
        sm100_cluster_max=_tile(d["sm100_cluster_max"]) if d.get("sm100_cluster_max") else None,
        sm100_cluster_max_source=d.get("sm100_cluster_max_source", ""),
        cluster_shapes=tuple(_tile(t) for t in d.get("cluster_shapes", ())),
        cluster_shapes_source=d.get("cluster_shapes_source", ""),
        cluster_rules=tuple(ClusterRule(*r) for r in d.get("cluster_rules", ())),
        cluster_rules_source=d.get("cluster_rules_source", ""),
        tile_checks=tuple((k, v) for k, v in checks.items() if k != "source"),
        tile_checks_source=checks.get("source", ""),
        dispatch=tuple(
            TileDispatch(
                sm_versions=tuple(g["sm_versions"]),
                arch_tag=g["arch_tag"],
                switch=g["switch"],
                tile_config=g["tile_config"],
                when=tuple(g["when"]),
                guards=tuple(g["guards"]),
                shape_cases=tuple(
                    ShapeCase(e, *t)
                    for e, t in zip(g["shape_cases"], g["tiles_k_bytes"], strict=True)
                ),
                source=g["source"],
            )
            for g in d.get("dispatch", ())
        ),
        jit_cuda=tuple(dirs.get("cuda", ())),
        jit_arch_dirs=tuple(
            (int(k), tuple(v)) for k, v in dirs.items() if k not in ("cuda", "source")
        ),
        jit_arch_dirs_source=dirs.get("source", ""),
        moe_dev=tuple((int(k), v) for k, v in moe.items() if k != "source"),
        moe_dev_source=moe.get("source", ""),
        instantiations_dir=d.get("instantiations_dir", ""),
        instantiations_dir_source=d.get("instantiations_dir_source", ""),
        generator_archs=d.get("generator_archs", ""),
        generator_archs_source=d.get("generator_archs_source", ""),
        generators=tuple(d.get("generators", ())),
        generators_source=d.get("generators_source", ""),
        jinja_templates=tuple(d.get("jinja_templates", ())),
        jinja_templates_source=d.get("jinja_templates_source", ""),
        jit_modules=tuple(
            JitModule(
                dev=dev,
                function=m["function"],
                defines=tuple(m["defines"]),
                conditional_defines=tuple(m["conditional_defines"]),
                arch_flags=tuple(m["arch_flags"]),
                source=m["source"],
            )
            for dev, m in d.get("jit_modules", {}).items()
            if dev != "source"
        ),
        jit_modules_source=d.get("jit_modules", {}).get("source", ""),
        jit_module_compiles=d.get("jit_module_compiles", ""),
        jit_module_compiles_source=d.get("jit_module_compiles_source", ""),
        launcher_guards=tuple(
            LauncherGuard(g["launcher"], g["define"], g["source"])
            for g in d.get("launcher_guards", ())
        ),
        launcher_guards_source=d.get("launcher_guards_source", ""),
    )


class _Releases(Mapping[str, FlashInferRelease]):
    """version -> release, oldest first. The table is large (every release, every source), so an
    entry is parsed when it is first asked for: its tables are one run of lines of the generated
    file, from its `[versions."X"]` header to the next release's (derive_releases writes each
    release's sub-tables and `[[versions."X".dispatch]]` entries after its header; a test holds
    the file to that)."""

    def __init__(self, text: str) -> None:
        heads = [(m.start() + 1, m[1]) for m in _RELEASE_HEADER.finditer(text)]
        ends = [start for start, _ in heads[1:]] + [len(text)]
        chunks = {v: text[start:end] for (start, v), end in zip(heads, ends, strict=True)}
        self._text = {v: chunks[v] for v in sorted(chunks, key=version_key)}
        self._parsed: dict[str, FlashInferRelease] = {}

    def __getitem__(self, version: str) -> FlashInferRelease:
        if version not in self._parsed:
            entry = tables.loads(self._text[version])["versions"][version]
            self._parsed[version] = _release(version, entry)
        return self._parsed[version]

    def __contains__(self, version: object) -> bool:
        return version in self._text

    def __iter__(self) -> Iterator[str]:
        return iter(self._text)

    def __len__(self) -> int:
        return len(self._text)


# A release's own header line. Anchored on the newline, not `^` with re.MULTILINE, which
# defeats the engine's literal search (10 ms against 1 ms on the 1.1 MB table).
_RELEASE_HEADER = re.compile(r'\n\[versions\."([^"]+)"\]\n')


@cache
def flashinfer_releases() -> Mapping[str, FlashInferRelease]:
    """version -> release, oldest first (parsed as asked for)."""
    text = tables.data_file("cutlint.producers.flashinfer", "releases.toml")
    return _Releases(text.read_text(encoding="utf-8"))


def release_for(version: str) -> tuple[FlashInferRelease, str]:
    """The release to judge `version` by, and a sentence saying which and why when it is not
    `version` itself ("" when it is): the newest known release not newer than `version`, or the
    oldest known when `version` is older than all."""
    releases = flashinfer_releases()
    if version in releases:
        return releases[version], ""
    key = version_key(version)
    for known in releases:
        if version_key(known) == key:  # 0.7.0 asked, 0.7 known (or the reverse)
            return releases[known], ""
    older = [v for v in releases if version_key(v) < key]
    newest = list(releases)[-1]
    if older:
        used = releases[older[-1]]
        why = (
            f"it is newer than every release cutlint knows (newest {newest})"
            if used.version == newest
            else "it lies between two known releases and the older one is used"
        )
    else:
        used = releases[next(iter(releases))]
        why = "it is older than every release cutlint knows"
    return used, (
        f"FlashInfer {version} is not in cutlint's release table; judged as FlashInfer "
        f"{used.version} because {why}."
    )


def known_release(version: str | None) -> tuple[FlashInferRelease | None, str]:
    """release_for, where `version` may be absent or not a version at all: (None, why) then."""
    if not version:
        return None, ""
    try:
        return release_for(version)
    except ValueError:
        return None, f"{version!r} is not a FlashInfer version; no release's data applies."


def macro_parameters(version: str) -> tuple[str, ...]:
    """The parameter names of INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM in `version` (or the
    nearest known release, as release_for picks it), in order, as the `#define` spells them."""
    return release_for(version)[0].macro_parameters


def _load_releases() -> dict[str, Any]:
    """The whole table as TOML (slow: the tests read it so; check time uses flashinfer_releases)."""
    import tomllib

    with tables.data_file("cutlint.producers.flashinfer", "releases.toml").open("rb") as f:
        return tomllib.load(f)
