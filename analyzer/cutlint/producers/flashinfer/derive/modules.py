"""What each CUTLASS fused-MoE JIT module of a release compiles, and with which defines.

Sources (paths inside the wheel), read with `ast`, not run:
- `flashinfer/jit/fused_moe.py`: each `gen_cutlass_fused_moe_sm<NN>_module()` builds its
  `nvcc_flags` (string literals, `"-DX" if <cond> else ""`, `nvcc_flags.append(...)` under an
  `if`, lists named in `flashinfer/jit/core.py` such as `sm90a_nvcc_flags`) and calls
  `gen_cutlass_fused_moe_module(nvcc_flags, "<dev>")`; that function writes the generator's
  files to `output_dir` (`cutlass_instantiations/<dev>`) and compiles every one of them
  (`output_dir.rglob("*.generated.cu")` among its `sources`).
- `current_compilation_context.get_nvcc_flags_list(...)` adds `-gencode` flags only (and the
  context's common `-DFLASHINFER_ENABLE_*`), which decide no launcher body: it is kept as text.

So a generated file under `cutlass_instantiations/<dev>/` is compiled by the module of that
`<dev>`, with that module's defines, whatever arch its own directory (`gemm/90`) names.
"""

from __future__ import annotations

import ast
import re

from cutlint.producers.flashinfer.derive.cpp import DeriveError
from cutlint.producers.flashinfer.derive.jit import JIT_MOE, _dev_of, _function
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, TomlValue
from cutlint.producers.flashinfer.derive.wheel import WheelTree

JIT_CORE = "flashinfer/jit/core.py"
_MODULE = re.compile(r"gen_cutlass_fused_moe_sm(\d+)_module")


def _lists(tree: ast.Module, path: str) -> dict[str, tuple[ast.expr, str]]:
    """Module-level `name = <expr>` of a file: name -> (expr, `path:line`)."""
    out: dict[str, tuple[ast.expr, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Name):
                out[t.id] = (node.value, f"{path}:{node.lineno}")
    return out


class _Flags:
    """The flags of one module function, each with the condition it is added under."""

    def __init__(self, names: dict[str, tuple[ast.expr, str]], where: str) -> None:
        self.names = names
        self.where = where
        self.flags: list[tuple[str, str | None]] = []
        self.named: list[str] = []
        """`name (path:line)` of each named list it uses."""
        self.arch_flags: list[str] = []

    def add(self, e: ast.expr, cond: str | None) -> None:
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            if e.value:
                self.flags.append((e.value, cond))
        elif isinstance(e, ast.IfExp):
            test = ast.unparse(e.test)
            both = f"{cond} and {test}" if cond else test
            self.add(e.body, both)
            self.add(e.orelse, f"{cond} and not {test}" if cond else f"not {test}")
        elif isinstance(e, ast.List | ast.Tuple):
            for x in e.elts:
                self.add(x.value if isinstance(x, ast.Starred) else x, cond)
        elif isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            self.add(e.left, cond)
            self.add(e.right, cond)
        elif isinstance(e, ast.Name) and e.id in self.names:
            value, at = self.names[e.id]
            self.named.append(f"{e.id} ({at})")
            self.add(value, cond)
        elif isinstance(e, ast.Call) and "get_nvcc_flags_list" in ast.unparse(e.func):
            self.arch_flags.append(ast.unparse(e))
        else:
            raise DeriveError(f"{self.where}: nvcc_flags part not read: {ast.unparse(e)}")

    def statement(self, s: ast.stmt, cond: str | None) -> None:
        """`nvcc_flags = ...`, `+= ...`, `.append(...)`, `.extend(...)`, and those under `if`."""
        if isinstance(s, ast.Assign) and _is_flags(s.targets[0]):
            self.add(s.value, cond)
        elif isinstance(s, ast.AugAssign) and _is_flags(s.target):
            self.add(s.value, cond)
        elif (
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Attribute)
            and _is_flags(s.value.func.value)
            and s.value.func.attr in ("append", "extend")
        ):
            for a in s.value.args:
                self.add(
                    ast.List(elts=[a], ctx=ast.Load()) if s.value.func.attr == "append" else a, cond
                )
        elif isinstance(s, ast.If):
            test = ast.unparse(s.test)
            for x in s.body:
                self.statement(x, f"{cond} and {test}" if cond else test)
            for x in s.orelse:
                self.statement(x, f"{cond} and not {test}" if cond else f"not {test}")


def _is_flags(e: ast.expr) -> bool:
    return isinstance(e, ast.Name) and e.id == "nvcc_flags"


def _define(flag: str) -> str:
    return flag[2:]


def modules(tree: WheelTree) -> TomlTable:
    """`jit_modules`: for each `<dev>`, the module function, its defines (`NAME` or
    `NAME=VALUE`), those added only under a condition, its arch flags, and the sources; and what
    every module compiles of the generator's output."""
    jit = ast.parse(tree.read(JIT_MOE))
    names = _lists(ast.parse(tree.read(JIT_CORE)), JIT_CORE)
    names.update(_lists(jit, JIT_MOE))
    table: dict[str, TomlValue] = {}
    for fn in sorted(
        (n for n in ast.walk(jit) if isinstance(n, ast.FunctionDef) and _MODULE.fullmatch(n.name)),
        key=lambda n: n.lineno,
    ):
        dev, call_line = _dev_of(fn)
        flags = _Flags(names, f"{JIT_MOE}:{fn.lineno} {fn.name}")
        for s in fn.body:
            flags.statement(s, None)
        defines = [_define(f) for f, c in flags.flags if c is None and f.startswith("-D")]
        if not defines:
            raise DeriveError(f"{JIT_MOE}:{fn.lineno} {fn.name}: no -D flag read")
        conditional = [
            f"{_define(f)} if {c}" for f, c in flags.flags if c is not None and f.startswith("-D")
        ]
        used = f"; {', '.join(flags.named)}" if flags.named else ""
        table[dev] = {
            "function": fn.name,
            "defines": defines,
            "conditional_defines": conditional,
            "arch_flags": flags.arch_flags
            + [f for f, c in flags.flags if f.startswith("-gencode")],
            "source": f"{JIT_MOE}:{fn.lineno} {fn.name}, nvcc_flags; "
            f"gen_cutlass_fused_moe_module(nvcc_flags, '{dev}') at line {call_line}{used}",
        }
    if not table:
        raise DeriveError(f"{JIT_MOE}: no gen_cutlass_fused_moe_sm<NN>_module")
    table["source"] = (
        f"{JIT_MOE}: each gen_cutlass_fused_moe_sm<NN>_module's nvcc_flags and "
        "gen_cutlass_fused_moe_module(nvcc_flags, '<dev>') (read with ast; each module's own source)"
    )
    return {"jit_modules": table, **_compiles(jit)}


def _compiles(jit: ast.Module) -> TomlTable:
    """Which of the generator's files gen_cutlass_fused_moe_module compiles: the `rglob` over
    `output_dir` among its sources."""
    fn = _function(jit, "gen_cutlass_fused_moe_module", JIT_MOE)
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("rglob", "glob")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "output_dir"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            return {
                "jit_module_compiles": ast.unparse(node),
                "jit_module_compiles_source": f"{JIT_MOE}:{node.lineno} "
                "gen_cutlass_fused_moe_module, sources",
            }
    raise DeriveError(f"{JIT_MOE}:{fn.lineno} gen_cutlass_fused_moe_module: no output_dir.rglob")
