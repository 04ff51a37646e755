"""The SM120 SVDQuant `svdquant_linear` runners of a flashinfer-python wheel, for
derive_runner_tactics: what each numbers, and the autotuner ops it is tuned under.

`svdquant_linear(..., backend="cutlass-sm120")` tunes two runners
(gemm/svdquant_sm120_cutlass.py, `_sm120_linear_runners`):

- `Sm120CutlassLinearRunner` quantizes and projects LoRA-down with separate launches, then runs
  `module.nvfp4_svdquant_gemm(..., tactic)`: its ids are the SVDQuant module's runtime tactic
  rows, numbered as `Nvfp4SvdquantGemmRunner` numbers them (both take
  `_nvfp4_svdquant_valid_tactics`).
- `Sm120FusedLinearRunner` packs a tactic as `row | variant << SM120_PRODUCER_SHIFT`
  (svdquant_sm120_routes.py `sm120_pack_tactic`): `row` is the same consumer row, whose CUTLASS
  kernel `nvfp4_svdquant_linear_sm120` runs through `nvfp4_svdquant_gemm_impl(..., k3_row)`;
  `variant` indexes `sm120_producer_variants(m, k, rank)`, the fused quantize + LoRA-down
  producer (custom CUDA kernels and a cuBLASLt GEMM, no CUTLASS kernel).

Both are tuned under `_sm120_linear_op_name`: `svdquant_linear_sm120_routes_v<R>_tactics_v<T>`,
`_pdl` appended when PDL is on; R is per shape (`sm120_linear_route_abi_version`). Everything is
read from the wheel (its Python parsed with `ast`, never run) and checked against the code that
uses it, so a release that changes the scheme stops the derivation instead of being misread.
"""

from __future__ import annotations

import ast
import re

from cutlint.producers.flashinfer.derive.cpp import DeriveError
from cutlint.producers.flashinfer.derive.toml_out import TomlTable
from cutlint.producers.flashinfer.derive.wheel import WheelTree

CUTLASS_PY = "flashinfer/gemm/svdquant_sm120_cutlass.py"
ROUTES = "flashinfer/gemm/svdquant_sm120_routes.py"
CSRC = "flashinfer/data/csrc/nvfp4_svdquant_gemm_cutlass_sm120.cu"

CUTLASS_LINEAR = "Sm120CutlassLinearRunner"
FUSED_LINEAR = "Sm120FusedLinearRunner"


def has_linear_runners(tree: WheelTree) -> bool:
    return CUTLASS_PY in tree.names() and f"class {FUSED_LINEAR}(" in tree.read(CUTLASS_PY)


class _Module:
    """One Python file of the wheel, parsed: its top-level functions and literal constants."""

    def __init__(self, tree: WheelTree, path: str) -> None:
        self.path = path
        self.text = tree.read(path)
        self.version = tree.version
        self.ast = ast.parse(self.text)
        self.functions = {
            n.name: n for n in ast.walk(self.ast) if isinstance(n, ast.FunctionDef | ast.ClassDef)
        }

    def source(self, name: str) -> tuple[str, int]:
        node = self.functions.get(name)
        if node is None:
            raise DeriveError(f"{self.path}: no {name}")
        return ast.get_source_segment(self.text, node) or "", node.lineno

    def require(self, name: str, *snippets: str) -> int:
        """The line of `name`, after checking its code says each snippet (spaces ignored)."""
        code, line = self.source(name)
        flat = re.sub(r"\s+", "", code)
        for s in snippets:
            if re.sub(r"\s+", "", s) not in flat:
                raise DeriveError(f"{self.path}:{line}: {name} no longer has `{s}`")
        return line

    def constant(self, name: str) -> tuple[object, int]:
        for node in self.ast.body:
            if isinstance(node, ast.AnnAssign):
                target: ast.expr = node.target
                value = node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            else:
                continue
            if not (isinstance(target, ast.Name) and target.id == name) or value is None:
                continue
            # MappingProxyType({...}) wraps a literal dict.
            if isinstance(value, ast.Call) and value.args:
                value = value.args[0]
            return ast.literal_eval(value), node.lineno
        raise DeriveError(f"{self.path}: no constant {name}")

    def int_constant(self, name: str) -> tuple[int, int]:
        value, line = self.constant(name)
        if not isinstance(value, int):
            raise DeriveError(f"{self.path}:{line}: {name} is not an integer")
        return value, line

    def tuple_constant(self, name: str) -> tuple[tuple[object, ...], int]:
        value, line = self.constant(name)
        if not isinstance(value, tuple):
            raise DeriveError(f"{self.path}:{line}: {name} is not a tuple")
        return value, line

    def at(self, line: int) -> str:
        return f"{self.path}:{line}"


def _linear_ops(py: _Module, routes: _Module) -> tuple[list[str], str]:
    """Every name `_sm120_linear_op_name` can give: each route version x the tactic ABI x PDL."""
    op_line = py.require(
        "_sm120_linear_op_name",
        'f"svdquant_linear_sm120_routes_v{_sm120_linear_route_abi_version(m,k,rank)}"',
        'f"_tactics_v{_sm120_tactic_abi_version(m,k)}"',
        'returnf"{name}_pdl"ifenable_pdlelsename',
    )
    route_line = routes.require(
        "sm120_linear_route_abi_version",
        "return SM120_RANK64_FUSED_ROUTE_ABI_VERSION",
        "return SM120_PACKED_SMALL_M_ROUTE_ABI_VERSION",
        "SM120_LINEAR_ROUTE_ABI_OVERRIDES.get((m, k, rank), SM120_LINEAR_ROUTE_ABI_VERSION)",
    )
    routes.require("sm120_tactic_abi_version", "return SM120_TACTIC_ABI_VERSION")
    named = [
        routes.int_constant(n)[0]
        for n in (
            "SM120_LINEAR_ROUTE_ABI_VERSION",
            "SM120_PACKED_SMALL_M_ROUTE_ABI_VERSION",
            "SM120_RANK64_FUSED_ROUTE_ABI_VERSION",
        )
    ]
    overrides, _ = routes.constant("SM120_LINEAR_ROUTE_ABI_OVERRIDES")
    if not isinstance(overrides, dict):
        raise DeriveError(f"{routes.path}: SM120_LINEAR_ROUTE_ABI_OVERRIDES is not a dict")
    versions = sorted({*named, *(int(v) for v in overrides.values())})
    tactic_abi, _ = routes.int_constant("SM120_TACTIC_ABI_VERSION")
    ops = [
        f"svdquant_linear_sm120_routes_v{r}_tactics_v{tactic_abi}{pdl}"
        for r in versions
        for pdl in ("", "_pdl")
    ]
    source = (
        f"{py.at(op_line)} of the {py.version} wheel: svdquant_linear: tuner.choose_one("
        f"_sm120_linear_op_name(m, k, rank, enable_pdl)) = svdquant_linear_sm120_routes_v<R>"
        f"_tactics_v{tactic_abi}[_pdl]; {routes.at(route_line)}: sm120_linear_route_abi_version "
        f"gives R in {{{', '.join(map(str, versions))}}} (SM120_LINEAR_ROUTE_ABI_VERSION, its "
        "overrides, the packed small-M and rank-64 versions); SM120_TACTIC_ABI_VERSION = "
        f"{tactic_abi}"
    )
    return ops, source


def _producer_bound(routes: _Module) -> tuple[int, int, str]:
    """(the shift, the most producer variants any shape has, source): the bound follows
    `sm120_producer_variants`' own sums of its ladders, held to its code."""
    line = routes.require(
        "sm120_producer_variants",
        "for geometry in geometries",
        "for policy in SM120_ADDRESS_POLICIES",
        "for tiling in SM120_SMALL_M_TILING_LADDER",
        "if rank == 64: return large + small",
        "native = large + small + m537",
        "cublaslt = ((SM120_FAMILY_CUBLASLT, (0, 0, 0), 0),) if native else ()",
        "tuple((SM120_FAMILY_SMALL_M_PACKED, tiling, 0) for _, tiling, _ in small)",
        "return native + cublaslt + packed_small",
    )
    pack_line = routes.require(
        "sm120_pack_tactic", "return k3_row | (producer_variant << SM120_PRODUCER_SHIFT)"
    )
    shift, _ = routes.int_constant("SM120_PRODUCER_SHIFT")
    sizes = {
        n: len(routes.tuple_constant(n)[0])
        for n in (
            "SM120_PRODUCER_GEOMETRY_LADDER",
            "SM120_RANK64_PRODUCER_GEOMETRY_LADDER",
            "SM120_SMALL_M_TILING_LADDER",
            "SM120_ADDRESS_POLICIES",
        )
    }
    policies = sizes["SM120_ADDRESS_POLICIES"]
    small = sizes["SM120_SMALL_M_TILING_LADDER"]
    rank32 = sizes["SM120_PRODUCER_GEOMETRY_LADDER"] * policies + small + 1 + 1 + small
    rank64 = sizes["SM120_RANK64_PRODUCER_GEOMETRY_LADDER"] * policies + small
    source = (
        f"{routes.at(pack_line)} of the {routes.version} wheel: sm120_pack_tactic = k3_row | "
        f"producer_variant << SM120_PRODUCER_SHIFT ({shift}); {routes.at(line)}: "
        "sm120_producer_variants(m, k, rank) has at most "
        f"{sizes['SM120_PRODUCER_GEOMETRY_LADDER']} geometries x {policies} address policies "
        f"(large-M) + {small} small-M tilings + 1 M537 + 1 cuBLASLt + {small} packed small-M "
        f"= {rank32} variants at rank 32, "
        f"{sizes['SM120_RANK64_PRODUCER_GEOMETRY_LADDER']} x {policies} + {small} = {rank64} at "
        "rank 64; a shape offers those its launch guards admit"
    )
    return shift, max(rank32, rank64), source


def linear_runner_entries(tree: WheelTree) -> dict[str, TomlTable]:
    """runner class -> its release entry (source, custom ops; the fused one's packing)."""
    py = _Module(tree, CUTLASS_PY)
    routes = _Module(tree, ROUTES)
    csrc = tree.read(CSRC)
    for needle in ("prefix_route::k3_row_of(tactic)", "nvfp4_svdquant_gemm_impl(xq, b, a_sf"):
        if needle not in csrc:
            raise DeriveError(f"{CSRC}: nvfp4_svdquant_linear_sm120 no longer has `{needle}`")
    valid_line = py.require(
        "_nvfp4_svdquant_valid_tactics", "range(module.nvfp4_svdquant_gemm_tactic_num())"
    )
    cutlass_line = py.require(
        CUTLASS_LINEAR,
        "return _nvfp4_svdquant_valid_tactics(module, *_sm120_linear_inputs_shape(inputs), device)",
        "return _sm120_run_cutlass_linear(module, inputs, tactic=tactic, enable_pdl=enable_pdl)",
    )
    py.require("_sm120_run_cutlass_linear", "module.nvfp4_svdquant_gemm(")
    fused_line = py.require(
        FUSED_LINEAR,
        "return _sm120_linear_tactics(module, inputs)",
        "module.nvfp4_svdquant_linear_sm120(",
    )
    tactics_line = py.require(
        "_sm120_linear_tactics",
        "rows = _nvfp4_svdquant_valid_tactics(module, m, n, k, rank, inputs[0].device)",
        "return [_sm120_pack_tactic(row, v) for v in variants for row in rows]",
    )
    runners_line = py.require(
        "_sm120_linear_runners",
        "runners.append(_sm120_fused_linear_runner(enable_pdl, device, rank))",
        "runners.append(_sm120_cutlass_linear_runner(enable_pdl, device, rank))",
    )
    ops, ops_source = _linear_ops(py, routes)
    shift, variants, producer_source = _producer_bound(routes)
    rows = (
        f"the SVDQuant module's kRuntimeTacticTableSm120 rows (_nvfp4_svdquant_valid_tactics, "
        f"line {valid_line}: the ids of range(module.nvfp4_svdquant_gemm_tactic_num()) that "
        "can_implement admits), as Nvfp4SvdquantGemmRunner numbers them"
    )
    return {
        CUTLASS_LINEAR: {
            "source": (
                f"{py.at(cutlass_line)} of the {tree.version} wheel: class {CUTLASS_LINEAR}, one "
                f"of svdquant_linear's runners (_sm120_linear_runners, line {runners_line}): its "
                f"ids are {rows}; forward runs module.nvfp4_svdquant_gemm(..., tactic)"
            ),
            "custom_ops": ops,
            "custom_ops_source": ops_source,
        },
        FUSED_LINEAR: {
            "source": (
                f"{py.at(fused_line)} of the {tree.version} wheel: class {FUSED_LINEAR}, one of "
                f"svdquant_linear's runners (_sm120_linear_runners, line {runners_line}): "
                f"_sm120_linear_tactics (line {tactics_line}) packs each of {rows} with each "
                "producer variant; forward runs module.nvfp4_svdquant_linear_sm120, whose "
                "consumer half (k3_row_of(tactic)) runs the row's CUTLASS kernel through "
                "nvfp4_svdquant_gemm_impl (csrc/nvfp4_svdquant_gemm_cutlass_sm120.cu)"
            ),
            "custom_ops": ops,
            "custom_ops_source": ops_source,
            "producer_shift": shift,
            "producer_variants": variants,
            "producer_source": producer_source,
        },
    }
