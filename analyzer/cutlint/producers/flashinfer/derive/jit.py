"""Facts of a release's Python JIT: where its cache goes and what its generator is asked for.

Sources (paths inside the wheel):
- `flashinfer/compilation_context.py`: `CompilationContext()` decides TARGET_CUDA_ARCHS from the
  device's compute capability (through `_normalize_cuda_arch` from 0.6.7 on) and, for some
  arches, from the CUDA version (`flashinfer.jit.cpp_ext.is_cuda_version_at_least`);
  `flashinfer/jit/env.py: _get_workspace_dir_name` joins them into the arch directory of
  `~/.cache/flashinfer/<version>/<arch>/`. The class is run here, once per (capability, CUDA), with
  stand-ins for torch (one device of that capability), for `is_cuda_version_at_least` and for
  `os.environ` (no FLASHINFER_CUDA_ARCH_LIST), and nothing else of FlashInfer imported.
- `flashinfer/fused_moe/core.py: get_cutlass_fused_moe_module(backend)`, backend being
  `f"{major * 10 + minor}"` of the device, picks a `gen_cutlass_fused_moe_sm*_module`;
  `flashinfer/jit/fused_moe.py` gives each its `<dev>` (`gen_cutlass_fused_moe_module(flags,
  "<dev>")`), the directory the generator writes (`output_dir`) and the arch string it is given.
These are read with `ast`, not run.
"""

from __future__ import annotations

import ast
import builtins
import re
import types
from collections.abc import Callable
from typing import Any

from cutlint.producers.flashinfer.derive import SM_VERSIONS
from cutlint.producers.flashinfer.derive.cpp import DeriveError
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, TomlValue
from cutlint.producers.flashinfer.derive.wheel import WheelTree
from cutlint.producers.flashinfer.releases import version_key

CONTEXT = "flashinfer/compilation_context.py"
ENV = "flashinfer/jit/env.py"
CORE = "flashinfer/fused_moe/core.py"
JIT_MOE = "flashinfer/jit/fused_moe.py"
GENERATORS = "flashinfer/jit/gemm/cutlass/"
CUDA_VERSIONS = ("12.8", "12.9", "13.0")
"""CUDA toolkits the arch directory is worked out for (12.8 is the first with sm_120); any version
the release's code compares against is added."""


def arch_dirs(tree: WheelTree) -> TomlTable:
    text = tree.read(CONTEXT)
    code = compile(text, CONTEXT, "exec")
    named = re.findall(r"is_cuda_version_at_least\(\s*['\"]([\d.]+)['\"]", text)
    cudas = sorted(set(CUDA_VERSIONS) | set(named), key=version_key)
    _check_workspace_dir(tree)
    table: dict[str, TomlValue] = {"cuda": list(cudas)}
    for sm in SM_VERSIONS:
        table[str(sm)] = [_arch_dir(code, divmod(sm, 10), cuda) for cuda in cudas]
    table["source"] = (
        f"{CONTEXT}: CompilationContext().TARGET_CUDA_ARCHS for one device of each capability "
        f"(run); {ENV}: _get_workspace_dir_name joins f'{{major}}{{minor}}' of them with '_'"
    )
    return {"jit_arch_dirs": table}


def _check_workspace_dir(tree: WheelTree) -> None:
    fn = _function(ast.parse(tree.read(ENV)), "_get_workspace_dir_name", ENV)
    text = "".join(ast.unparse(fn).split())
    for part in ("'_'.join(", "f'{major}{minor}'", "sorted(compilation_context.TARGET_CUDA_ARCHS)"):
        if part not in text:
            raise DeriveError(f"{tree.version}: {ENV} _get_workspace_dir_name has no {part}")


def _arch_dir(code: types.CodeType, capability: tuple[int, int], cuda: str) -> str:
    """The arch directory `CompilationContext` gives one device of `capability` under CUDA
    `cuda`; "" when it gives none (it raised, logged a warning and left TARGET_CUDA_ARCHS empty:
    the JIT then has no arch to build for)."""
    warnings: list[str] = []
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        device_count=lambda: 1,
        get_device_capability=lambda device=0: capability,
        is_available=lambda: True,
    )
    cpp_ext = types.ModuleType("flashinfer.jit.cpp_ext")
    cpp_ext.is_cuda_version_at_least = (  # type: ignore[attr-defined]
        lambda v: version_key(cuda) >= version_key(v)
    )
    logger = types.SimpleNamespace(
        warning=lambda msg, *a, **k: warnings.append(str(msg) % a if a else str(msg)),
        info=lambda *a, **k: None,
        debug=lambda *a, **k: None,
    )
    stubs: dict[str, Any] = {
        "torch": torch,
        "flashinfer.jit.cpp_ext": cpp_ext,
        "os": types.SimpleNamespace(environ={}, path=__import__("os").path),
        "logging": types.SimpleNamespace(getLogger=lambda name=None: logger),
    }
    ns: dict[str, Any] = {
        "__name__": "flashinfer.compilation_context",
        "__builtins__": {**vars(builtins), "__import__": _importer(stubs)},
    }
    exec(code, ns)
    archs = ns["CompilationContext"]().TARGET_CUDA_ARCHS
    return "_".join(f"{major}{minor}" for major, minor in sorted(archs))


def _importer(stubs: dict[str, Any]) -> Callable[..., Any]:
    def imp(
        name: str,
        globals: Any = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> Any:
        if level == 0 and name in stubs:
            return stubs[name]
        if level > 0 or name == "flashinfer" or name.startswith(("flashinfer.", "torch")):
            raise ImportError(f"{name}: not available while deriving")
        return builtins.__import__(name, globals, locals, fromlist, level)

    return imp


def _function(tree: ast.Module, name: str, path: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise DeriveError(f"{path}: no def {name}")


def moe_dev(tree: WheelTree) -> TomlTable:
    """device_arch -> the `<dev>` of `cutlass_instantiations/<dev>` its fused-MoE module uses."""
    core = ast.parse(tree.read(CORE))
    fn = _function(core, "get_cutlass_fused_moe_module", CORE)
    backends = _backend_chain(fn)
    jit = ast.parse(tree.read(JIT_MOE))
    devs: dict[str, tuple[str, int]] = {}
    for gen in sorted(set(backends.values())):
        devs[gen] = _dev_of(_function(jit, gen, JIT_MOE))
    arch_at = _device_arch_line(core)
    table: dict[str, TomlValue] = {}
    for sm in SM_VERSIONS:
        module = backends.get(str(sm))
        if module is not None:
            table[str(sm)] = devs[module][0]
    gens = ", ".join(f"{g}:{devs[g][1]}" for g in sorted(devs))
    table["source"] = (
        f"{CORE}:{arch_at} device_arch = f'{{major * 10 + minor}}'; {CORE}:{fn.lineno} "
        f"get_cutlass_fused_moe_module; {JIT_MOE}: gen_cutlass_fused_moe_module(..., '<dev>') in "
        f"{gens}"
    )
    return {"moe_dev": table}


def _backend_chain(fn: ast.FunctionDef) -> dict[str, str]:
    """backend string -> the gen_cutlass_fused_moe_*_module its branch calls."""
    out: dict[str, str] = {}
    node: ast.stmt | None = next((s for s in fn.body if isinstance(s, ast.If)), None)
    while isinstance(node, ast.If):
        values = _backend_values(node.test)
        calls = [
            c.func.id
            for s in node.body
            for c in ast.walk(s)
            if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Name)
            and c.func.id.startswith("gen_cutlass_fused_moe")
        ]
        if not values or len(calls) != 1:
            raise DeriveError(f"{CORE}:{node.lineno} not `if backend == ...: gen_...()`")
        for v in values:
            out.setdefault(v, calls[0])
        node = node.orelse[0] if len(node.orelse) == 1 else None
    if not out:
        raise DeriveError(f"{CORE}:{fn.lineno} get_cutlass_fused_moe_module has no backend chain")
    return out


def _backend_values(test: ast.expr) -> list[str]:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return []
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant):
        return [str(right.value)]
    if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        return [str(e.value) for e in right.elts if isinstance(e, ast.Constant)]
    return []


def _dev_of(fn: ast.FunctionDef) -> tuple[str, int]:
    for c in ast.walk(fn):
        if (
            isinstance(c, ast.Call)
            and isinstance(c.func, ast.Name)
            and c.func.id == "gen_cutlass_fused_moe_module"
        ):
            arg: ast.expr | None = c.args[1] if len(c.args) > 1 else None
            arg = next((k.value for k in c.keywords if k.arg == "device_arch"), arg)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                return arg.value, c.lineno
    raise DeriveError(f"{JIT_MOE}:{fn.lineno} {fn.name} passes no literal device_arch")


def _device_arch_line(core: ast.Module) -> int:
    for node in ast.walk(core):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "device_arch" for t in node.targets)
            and "".join(ast.unparse(node.value).split()) == "f'{major*10+minor}'"
        ):
            return node.lineno
    raise DeriveError(f"{CORE}: no device_arch = f'{{major * 10 + minor}}'")


def instantiations(tree: WheelTree) -> TomlTable:
    """Where `gen_cutlass_fused_moe_module` has the generator write, and the arch string."""
    fn = _function(ast.parse(tree.read(JIT_MOE)), "gen_cutlass_fused_moe_module", JIT_MOE)
    out_dir: ast.Assign | None = None
    call: ast.Call | None = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "output_dir" for t in node.targets
        ):
            out_dir = out_dir or node
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "generate_gemm_operations"
            and len(node.args) > 1
        ):
            call = call or node
    if out_dir is None or call is None:
        raise DeriveError(f"{JIT_MOE}:{fn.lineno} no output_dir or generate_gemm_operations call")
    return {
        "instantiations_dir": ast.unparse(out_dir.value),
        "instantiations_dir_source": f"{JIT_MOE}:{out_dir.lineno} gen_cutlass_fused_moe_module, "
        "output_dir",
        "generator_archs": ast.unparse(call.args[1]),
        "generator_archs_source": f"{JIT_MOE}:{call.lineno} gen_cutlass_fused_moe_module, "
        "generate_gemm_operations(output_dir, <this>)",
    }


def files(tree: WheelTree, names: list[str]) -> TomlTable:
    generators = [
        n
        for n in names
        if n.startswith(GENERATORS) and n.endswith(".py") and not n.endswith("/__init__.py")
    ]
    jinja = [
        n.rsplit("/", 1)[1] for n in names if re.fullmatch(r"flashinfer/data/csrc/[^/]+\.jinja", n)
    ]
    return {
        "generators": generators,
        "generators_source": f"the wheel's files under {GENERATORS}",
        "jinja_templates": jinja,
        "jinja_templates_source": "the wheel's files flashinfer/data/csrc/*.jinja",
    }
