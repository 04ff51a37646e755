"""Facts of a release's C++: its CUTLASS version, the fused-MoE macro, the launcher's dispatch.

Sources (paths inside the wheel):
- `flashinfer/data/cutlass/include/cutlass/version.h`: CUTLASS_MAJOR / MINOR / PATCH.
- the header that `#define`s INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM (searched for; in every
  release so far `.../moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl`).
- `.../moe_gemm/moe_gemm_template_dispatch_tma_ws.h`: `are_tile_shapes_supported_sm120` (the
  SM120 tiles, in elements), `are_tile_shapes_supported_sm100` (its checks),
  `are_tile_shapes_supported` (which check each arch tag gets; the cluster rules of the others),
  `dispatchMoeGemmSelectClusterShapeTmaWarpSpecialized` (the cluster shapes dispatched) and
  `dispatchMoeGemmSelectTileShapeTmaWarpSpecialized` (the tile cases per `sm_version`).

The tile cases name K in bytes of A: `SHAPE_CASE(120, 128, 128, 64)` is the enumerator
`CtaShape128x128x64B` of `CutlassTileConfigSM120`, and the macro makes the CUTLASS tile
`Shape<_128, _128, Int<64 * 8 / sizeof_bits<A>>>`: K = 128 elements for FP4, 64 for FP8, 32 for
16-bit A. The data keeps the enumerator and (M, N, K bytes); releases.py converts.
"""

from __future__ import annotations

import re

from cutlint.producers.flashinfer.derive import SM_VERSIONS
from cutlint.producers.flashinfer.derive.cpp import (
    Block,
    CppSource,
    DeriveError,
    describe_path,
    evaluate,
    head_condition,
    path_conditions,
    reachable,
    split_top,
    squash,
)
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, TomlValue
from cutlint.producers.flashinfer.derive.wheel import WheelTree

VERSION_H = "flashinfer/data/cutlass/include/cutlass/version.h"
CSRC = "flashinfer/data/csrc/"
MACRO = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"
DISPATCH = "/moe_gemm/moe_gemm_template_dispatch_tma_ws.h"
SM_VERSION = "gemm_config.sm_version"
ARCH_CC = "Arch::kMinComputeCapability"
_CLUSTER_DIM = re.compile(r"cute::size<(\d)>\(ClusterShape\{\}\)\s*(!=|>)\s*(\d+)")
_TILE = re.compile(
    r"\(\s*TileM\s*==\s*(\d+)\s*&&\s*TileN\s*==\s*(\d+)\s*&&\s*TileK\s*==\s*(\d+)\s*\)"
)
_CGA = re.compile(r"(cga_m|cga_n)\s*==\s*_(\d+)\{\}|(cta_m|cta_n)\s*>=\s*_(\d+)\{\}")


def cutlass_version(tree: WheelTree) -> TomlTable:
    text = tree.read(VERSION_H)
    parts: list[str] = []
    lines: list[int] = []
    for k in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^[ \t]*#[ \t]*define[ \t]+CUTLASS_{k}[ \t]+(\d+)", text, re.M)
        if not m:
            raise DeriveError(f"{tree.version}: no CUTLASS_{k} in {VERSION_H}")
        parts.append(m[1])
        lines.append(text.count("\n", 0, m.start()) + 1)
    return {
        "cutlass": ".".join(parts),
        "cutlass_source": f"{VERSION_H}:{lines[0]}-{lines[-1]} CUTLASS_MAJOR, CUTLASS_MINOR, "
        "CUTLASS_PATCH",
    }


def _csrc_headers(tree: WheelTree) -> list[str]:
    return [
        n
        for n in tree.names()
        if n.startswith(CSRC) and n.endswith((".h", ".hpp", ".cuh", ".inl", ".cu", ".cpp"))
    ]


def macro_parameters(tree: WheelTree, headers: list[str]) -> TomlTable:
    """The parameter names of `#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(...)`, in order."""
    found = []
    for path in headers:
        text = tree.read(path)
        if re.search(rf"#\s*define\s+{MACRO}\b", text):
            src = CppSource(path, text)
            found += [
                (path, d)
                for d in src.directives
                if d.kind == "define" and re.match(rf"{MACRO}\b", d.text)
            ]
    if len(found) != 1:
        where = ", ".join(p for p, _ in found) or "no header"
        raise DeriveError(f"{tree.version}: #define {MACRO} in {where}; expected exactly one")
    path, d = found[0]
    m = re.match(rf"{MACRO}\s*\(([^)]*)\)", d.text)
    if not m:
        raise DeriveError(f"{tree.version}: {path}:{d.line} #define {MACRO} has no parameter list")
    return {
        "macro_parameters": [p.strip() for p in m[1].split(",")],
        "macro_parameters_source": f"{path}:{d.line} #define {MACRO}",
    }


def dispatch_facts(tree: WheelTree, headers: list[str]) -> TomlTable:
    paths = [p for p in headers if p.endswith(DISPATCH)]
    if len(paths) != 1:
        raise DeriveError(f"{tree.version}: expected one ...{DISPATCH}, found {paths}")
    src = CppSource(paths[0], tree.read(paths[0]))
    cases = _tile_cases(src)
    tags = sorted({arch for arch, _ in cases})
    out: dict[str, TomlValue] = {}
    out.update(_sm120(src))
    out.update(_sm100(src))
    out.update(_cluster_shapes(src))
    out.update(_predicates(src, tags))
    out["dispatch"] = [group for _, group in cases]
    return out


def _sm120(src: CppSource) -> TomlTable:
    name = "are_tile_shapes_supported_sm120"
    start, end = src.function(name)
    tiles: list[TomlValue] = []
    where = ""
    for offset, expr in src.returns(start, end):
        if "TileM" not in expr:
            continue
        rest = _TILE.sub("", expr)
        if rest.replace("(", "").replace(")", "").replace("||", "").strip():
            raise DeriveError(f"{src.where(offset, name)}: not a list of tiles: {expr}")
        tiles = [[int(m[1]), int(m[2]), int(m[3])] for m in _TILE.finditer(expr)]
        where = src.where(offset, name)
    if not tiles:
        raise DeriveError(f"{src.path}: {name} returns no (TileM, TileN, TileK) list")
    bound, bound_at = _cluster_bound(src, start, end, name)
    return {
        "sm120_tiles": tiles,
        "sm120_tiles_source": where,
        "sm120_cluster_max": bound,
        "sm120_cluster_max_source": bound_at,
    }


def _cluster_bound(src: CppSource, start: int, end: int, name: str) -> tuple[list[int], str]:
    """The largest cluster a check lets through, from its `if (size<i>(ClusterShape{}) != 1 ||
    ...) return false`; [] when it has no such test."""
    for b in src.blocks(start, end):
        cond = head_condition(b.header)
        if cond is None or "ClusterShape" not in cond:
            continue
        atoms = split_top(cond, "||")
        dims = [_CLUSTER_DIM.fullmatch(a) for a in atoms]
        body = squash(src.code[b.start + 1 : b.end])
        if not all(dims) or body != "return false;":
            continue
        bound = [0, 0, 0]
        for d in dims:
            assert d is not None
            n = int(d[3])
            bound[int(d[1])] = n if d[2] == ">" else 1
        if 0 in bound:
            raise DeriveError(f"{src.where(b.start, name)}: cluster test misses a dimension")
        return bound, src.where(b.start, f"{name}, if ({cond}) return false")
    return [], ""


def _sm100(src: CppSource) -> TomlTable:
    name = "are_tile_shapes_supported_sm100"
    start, end = src.function(name)
    blocks = src.blocks(start, end)
    checks: list[TomlValue] = []
    for offset, expr in src.returns(start, end):
        guards = "".join(f"[#if {g}] " for g in src.guards_at(src.line_of(offset)))
        when = [_grouped(c) for c in describe_path(path_conditions(blocks, offset))]
        checks.append(f"{guards}{' && '.join(when) or 'otherwise'} -> return {expr}")
    bound, bound_at = _cluster_bound(src, start, end, name)
    out: dict[str, TomlValue] = {
        "sm100_checks": checks,
        "sm100_checks_source": src.where(start, f"{name}, its return statements in order"),
    }
    if bound:
        out["sm100_cluster_max"] = bound
        out["sm100_cluster_max_source"] = bound_at
    return out


def _grouped(cond: str) -> str:
    """`cond` in parentheses when it is an `||` that an `&&` beside it would regroup."""
    return f"({cond})" if len(split_top(cond, "||")) > 1 else cond


def _cluster_shapes(src: CppSource) -> TomlTable:
    name = "dispatchMoeGemmSelectClusterShapeTmaWarpSpecialized"
    start, end = src.function(name)
    body = src.code[start:end]
    calls = list(re.finditer(r"\bSHAPE_CASE\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", body))
    if not calls:
        raise DeriveError(f"{src.path}: {name} dispatches no cluster shape")
    shapes: list[TomlValue] = [[int(m[1]), int(m[2]), int(m[3])] for m in calls]
    return {
        "cluster_shapes": shapes,
        "cluster_shapes_source": src.where(
            start + calls[0].start(), f"{name}, SHAPE_CASE(M, N, K)"
        ),
    }


def _predicates(src: CppSource, tags: list[int]) -> TomlTable:
    """Which check each arch tag's tiles go through (are_tile_shapes_supported), and the cluster
    rules of the arches that get no check of their own."""
    name = "are_tile_shapes_supported"
    start, end = src.function(name)
    blocks = src.blocks(start, end)
    rets = list(src.returns(start, end))
    checks: dict[str, TomlValue] = {}
    for tag in tags:
        chosen = "cluster_rules"
        for offset, expr in rets:
            path = path_conditions(blocks, offset)
            m = re.match(r"(are_tile_shapes_supported_sm\d+)\b", expr)
            if m and path and _certain(path, tag):
                chosen = m[1]
                break
        checks[f"Sm{tag}"] = chosen
    rules: list[TomlValue] = []
    for b in blocks:
        cond = head_condition(b.header)
        if cond is None or "cga_m" not in cond:
            continue
        if squash(src.code[b.start + 1 : b.end]) != "return true;":
            continue
        row = {"cga_m": 0, "cga_n": 0, "cta_m": 0, "cta_n": 0}
        for atom in split_top(cond, "&&"):
            m = _CGA.fullmatch(atom)
            if not m:
                raise DeriveError(f"{src.where(b.start, name)}: unknown cluster rule {atom}")
            row[m[1] or m[3]] = int(m[2] or m[4])
        rules.append([row["cga_m"], row["cga_n"], row["cta_m"], row["cta_n"]])
    if not rules:
        raise DeriveError(f"{src.path}: {name} has no cluster rules")
    checks["source"] = src.where(start, f"{name}, its if constexpr on {ARCH_CC}")
    return {
        "tile_checks": checks,
        "cluster_rules": rules,
        "cluster_rules_source": src.where(
            start,
            f"{name}: (cga_m, cga_n, least cta_m, least cta_n) of each branch that returns true",
        ),
    }


def _certain(path: list[tuple[list[str], str | None]], value: int) -> bool:
    for earlier, own in path:
        if any(evaluate(e, ARCH_CC, value) is not False for e in earlier):
            return False
        if own is not None and evaluate(own, ARCH_CC, value) is not True:
            return False
    return True


def _tile_cases(src: CppSource) -> list[tuple[int, TomlTable]]:
    """(arch tag, entry) per `switch (gemm_config.tile_config_smNN)` of the tile dispatch."""
    name = "dispatchMoeGemmSelectTileShapeTmaWarpSpecialized"
    start, end = src.function(name)
    blocks = src.blocks(start, end)
    pattern = r"\bSHAPE_CASE\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)"
    by_switch: dict[int, list[re.Match[str]]] = {}
    for m in re.finditer(pattern, src.code[start:end]):
        sw = _innermost_switch(blocks, start + m.start())
        if sw is None:
            raise DeriveError(f"{src.where(start + m.start(), name)}: SHAPE_CASE outside a switch")
        by_switch.setdefault(sw.index, []).append(m)
    groups: list[tuple[int, TomlTable]] = []
    for index, calls in by_switch.items():
        sw = blocks[index]
        first = start + calls[0].start()
        line = src.line_of(first)
        arches = {m[1] for m in calls}
        if len(arches) != 1:
            raise DeriveError(f"{src.where(first, name)}: one switch, arch tags {sorted(arches)}")
        define = src.define_before("SHAPE_CASE", line)
        enum_of = _enumerator(define.text, src.path)
        names = [enum_of(m[1], m[2], m[3], m[4]) for m in calls]
        if len({enum for enum, _ in names}) != 1:
            raise DeriveError(f"{src.where(first, name)}: one switch, several enum classes")
        path = path_conditions(blocks, first)
        groups.append(
            (
                int(calls[0][1]),
                {
                    "sm_versions": [s for s in SM_VERSIONS if reachable(path, SM_VERSION, s)],
                    "arch_tag": f"cutlass::arch::Sm{calls[0][1]}",
                    "switch": squash(sw.header),
                    "when": describe_path(path),
                    "guards": list(src.guards_at(line)),
                    "tile_config": names[0][0],
                    "shape_cases": [n for _, n in names],
                    "tiles_k_bytes": [[int(m[2]), int(m[3]), int(m[4])] for m in calls],
                    "source": src.where(first, f"{name}, {squash(sw.header)}"),
                },
            )
        )
    if not groups:
        raise DeriveError(f"{src.path}: {name} has no SHAPE_CASE")
    return groups


def _innermost_switch(blocks: list[Block], offset: int) -> Block | None:
    inside = [b for b in blocks if b.start < offset < b.end and b.header.startswith("switch")]
    return max(inside, key=lambda b: b.start) if inside else None


def _enumerator(define: str, path: str) -> _Enum:
    """From `#define SHAPE_CASE(SMVERSION, M, N, K) case ...CutlassTileConfigSM##SMVERSION::
    CtaShape##M##x##N##x##K##B: { constexpr int KtileBytes = (K * 8) / cutlass::sizeof_bits<...`
    a function (arch, M, N, K) -> `CutlassTileConfigSM120::CtaShape128x128x64B`; checks that the
    macro turns K into elements as K * 8 / sizeof_bits of A."""
    m = re.match(r"SHAPE_CASE\s*\(([^)]*)\)\s*case\s+((?:[\w#\s]|::)+?)\s*:(?!:)", define)
    if not m:
        raise DeriveError(f"{path}: #define SHAPE_CASE is not `case <enumerator>:`")
    if not re.search(r"\(\s*K\s*\*\s*8\s*\)\s*/\s*cutlass::sizeof_bits<", define):
        raise DeriveError(f"{path}: #define SHAPE_CASE does not make K = K * 8 / sizeof_bits<A>")
    params = [p.strip() for p in m[1].split(",")]
    return _Enum(params, m[2].replace("cutlass_extensions::", ""))


class _Enum:
    def __init__(self, params: list[str], label: str) -> None:
        self.params = params
        self.label = label

    def __call__(self, *args: str) -> tuple[str, str]:
        """(enum class, enumerator): (`CutlassTileConfigSM120`, `CtaShape128x128x64B`)."""
        values = dict(zip(self.params, args, strict=True))
        text = re.sub(r"\b\w+\b", lambda t: values.get(t[0], t[0]), self.label)
        enum, _, name = re.sub(r"\s*##\s*", "", text).rpartition("::")
        return enum, name
