"""What a CUTLASS 3.x kernel's demangled name says of its instantiation.

`cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<ProblemShape, CollectiveMma<
DispatchPolicy<Stages, ...>, TileShape, ...>, CollectiveEpilogue<Policy, TileShape, EpilogueTile,
ElementC, StrideC, ElementD, StrideD, ...>, TileScheduler>>` (include/cutlass/gemm/kernel/
gemm_universal.hpp, gemm/collective/collective_mma_decl.hpp, epilogue/collective/
collective_epilogue.hpp): the mainloop's stage count is the dispatch policy's first argument
(`MainloopSm120TmaWarpSpecializedBlockScaled<Stages, SchedulerPipelineStageCount, ClusterShape,
KernelSchedule>` and the SM90 policies alike), the CTA tile the collective's second, and the
output's element type and major-ness are the epilogue's ElementD (or ElementC where D is void, as
in FlashInfer's finalize fusion, which scatters through the fusion) and StrideD/StrideC:
`tuple<long, C<1>, ...>` is row-major (unit stride along N), `tuple<C<1>, long, ...>` column-major,
as SwapAB kernels write D transposed."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    args: tuple[Node, ...]

    def text(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}<{', '.join(a.text() for a in self.args)}>"


def parse_type(text: str) -> Node:
    """A C++ type as c++filt prints it, as a tree of template-ids (a minimal reader: names,
    `<...>` argument lists split on top-level commas, `(...)` kept in the name)."""
    pos = 0

    def node() -> Node:
        nonlocal pos
        start = pos
        depth = 0
        while pos < len(text):
            c = text[pos]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif depth == 0 and c in "<>,":
                break
            pos += 1
        name = text[start:pos].strip()
        args: list[Node] = []
        if pos < len(text) and text[pos] == "<":
            pos += 1
            while True:
                args.append(node())
                if pos >= len(text):
                    break
                if text[pos] == ",":
                    pos += 1
                    continue
                if text[pos] == ">":
                    pos += 1
                    # what follows a template-id in the same argument (`>*`, `>::Params`)
                    tail_start = pos
                    while pos < len(text) and text[pos] not in "<>,":
                        if text[pos] == "(":
                            break
                        pos += 1
                    name += ""  # the suffix is kept on the last arg-free node below
                    suffix = text[tail_start:pos].strip()
                    if suffix:
                        return Node(name, (*args, Node(suffix, ())))
                    break
        return Node(name, tuple(args))

    return node()


_KERNEL = re.compile(r"^void cutlass::device_kernel<(.*)>\(.*\)$", re.S)


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


def _find(node: Node, short: str) -> Node | None:
    if _short(node.name) == short:
        return node
    for a in node.args:
        found = _find(a, short)
        if found is not None:
            return found
    return None


def _int(node: Node) -> int | None:
    """`cute::C<256>` or `256` -> 256."""
    if _short(node.name) == "C" and len(node.args) == 1:
        return _int(node.args[0])
    return int(node.name) if re.fullmatch(r"-?\d+", node.name) else None


def _shape(node: Node) -> tuple[int, ...] | None:
    if _short(node.name) != "tuple":
        return None
    values = [_int(a) for a in node.args]
    return None if any(v is None for v in values) else tuple(v for v in values if v is not None)


def _major(stride: Node) -> str | None:
    s = stride.args[0] if stride.name.endswith("*") is False and stride.args else None
    del s
    core = stride
    if _short(core.name) != "tuple" or len(core.args) < 2:
        return None
    first, second = _int(core.args[0]), _int(core.args[1])
    if second == 1 and first is None:
        return "row"
    if first == 1 and second is None:
        return "column"
    return None


ELEMENTS = {
    "half_t": "f16",
    "bfloat16_t": "bf16",
    "float": "f32",
    "float_e4m3_t": "e4m3",
    "float_e5m2_t": "e5m2",
}


@dataclass(frozen=True, slots=True)
class KernelFeatures:
    """What the name says, each None where it does not say it plainly."""

    stages: int | None
    tile: tuple[int, int, int] | None
    output: str | None
    """The output element (`bf16`), in ElementType's words."""
    output_major: str | None
    """`row` or `column`."""


NOTHING = KernelFeatures(None, None, None, None)


def features(demangled: str | None) -> KernelFeatures:
    """The features of a `cutlass::device_kernel<GemmUniversal<...>>`; NOTHING for any other."""
    if demangled is None:
        return NOTHING
    m = _KERNEL.match(demangled)
    if m is None:
        return NOTHING
    root = parse_type(m[1])
    mma = _find(root, "CollectiveMma")
    stages = tile = None
    if mma is not None and len(mma.args) >= 2:
        policy = mma.args[0]
        stages = _int(policy.args[0]) if policy.args else None
        shape = _shape(mma.args[1])
        tile = shape if shape is not None and len(shape) == 3 else None
    epi = _find(root, "CollectiveEpilogue")
    output = major = None
    if epi is not None and len(epi.args) >= 7:
        element_c, stride_c, element_d, stride_d = epi.args[3:7]
        d_void = element_d.name == "void"
        chosen = element_c if d_void else element_d
        output = ELEMENTS.get(_short(chosen.name)) if not chosen.args else None
        stride = stride_c if d_void else stride_d
        major = _major(stride.args[0] if stride.name == "" and stride.args else stride)
    return KernelFeatures(
        stages, tile if tile is None else (tile[0], tile[1], tile[2]), output, major
    )
