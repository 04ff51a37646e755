"""FlashInfer's JIT-rendered GEMM modules (SM100/SM103, SM120), written the way its JIT writes them.

Besides the fused-MoE instantiations (`generate_kernels.py`), FlashInfer's JIT renders jinja
templates of the wheel (`flashinfer/data/csrc/*.jinja`) into `generated/gen_gemm_sm1xx*/` when a
model first calls one of these GEMMs. The functions that do it are `gen_gemm_sm100_module*`,
`gen_gemm_sm103_module*` and `gen_gemm_sm120_module*` in `flashinfer/jit/gemm/core.py` (and, since
0.7.4, `gen_gemm_sm120_module_cutlass_nvfp4_svdquant` in `flashinfer/jit/gemm/svdquant_sm120.py`);
they choose the template, the tile and dtype lists and the file names, and differ between releases
(0.6.11.post2's MXFP8 list has 256x128 and 128x256 tiles that 0.7.x removed, flashinfer#4013).

So cutlint does not copy those lists: it runs the release's own functions, those a device of the
given arch calls (`GEN_PREFIXES`). They need torch only for dtype objects used as dictionary keys
(`jit/utils.py`) and the JIT's build helpers only to return a `JitSpec`; both are replaced by
stand-ins here, and nothing of torch or of the package `__init__`s runs. The templates use real
jinja (loops, filters, `{% set %}`, whitespace control), rendered by jinja2, as the JIT does.

The cache layout is `FLASHINFER_CACHE_DIR / <version> / <arch> / "generated"` (jit/env.py
`_get_workspace_dir_name`, `FLASHINFER_GEN_SRC_DIR`); `<arch>` is `120f` for a 12.0 part on CUDA
>= 12.9, `121a` for 12.1 (0.6.11.post2 on) and `100a`, `103a` for 10.0 and 10.3
(compilation_context.py `_normalize_cuda_arch`: "SM 10+ -> 'a' suffix").
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cutlint.producers.flashinfer.jit_build import write_build_ninja

# The modules that hold the gen functions, relative to the wheel's `flashinfer/jit/gemm`.
_GEN_MODULES = ("core", "svdquant_sm120")

GEN_PREFIXES: dict[int, tuple[str, ...]] = {
    90: ("gen_gemm_sm90",),
    100: ("gen_gemm_sm100", "gen_tgv_gemm"),
    103: ("gen_gemm_sm100", "gen_gemm_sm103", "gen_tgv_gemm"),
    110: ("gen_gemm_sm100",),
    120: ("gen_gemm_sm120",),
    121: ("gen_gemm_sm120",),
}
"""The gen functions whose modules a device of each arch builds: gemm/gemm_base.py calls
`gen_gemm_sm90_module` (the segment GEMM, `SegmentGEMMWrapper(backend="sm90")`) on 9.0, the
`gen_gemm_sm100_module*` ones on every SM10x part (their nvcc flags take majors 10 and 11), and
`gen_gemm_sm103_module_cutlass_fp4` beside them on 10.3 (`get_gemm_sm103_module_cutlass_fp4`);
the SM120 ones on 12.x. `gen_tgv_gemm_sm10x_module` (the TGV GEMM: `tgv_gemm_sm100`, `mm_bf16(..., backend="tgv")`)
on 10.0 and 10.3 only: gemm_base.py `_tgv_gemm_requirement` is
`@supported_compute_capability([100, 103, 107])` (10.7 has no cache directory here). A Jetson Thor (11.0) calls the `gen_gemm_sm100_module*` ones too
(gemm_base.py `get_cutlass_fp4_gemm_module` / `get_cutlass_mxfp8_gemm_module`: `sm_major in
[10, 11]`); those whose nvcc flags leave out major 11 cannot build there (`render_jit_specs`)."""

GEN_REPLACED: dict[int, frozenset[str]] = {103: frozenset({"gen_gemm_sm100_module_cutlass_fp4"})}
"""Gen functions of GEN_PREFIXES that an arch does not call: gemm_base.py
`get_cutlass_fp4_gemm_module` takes the SM103 FP4 module on 10.3, the SM100 one on 10.x else."""
GEN_CALLS: dict[str, tuple[tuple[str, bool] | tuple[()], ...]] = {
    "gen_tgv_gemm_sm10x_module": (("bfloat16", True), ("float16", True)),
}
"""The calls of gen functions that take arguments, as (torch dtype, use_sm_100f); every other one
is called with its defaults. gemm/gemm_base.py's TGV runners call
`get_tgv_gemm_sm10x_module(a.dtype, is_sm100f_supported(a.device))` for bf16 and fp16 inputs
(`gen_tgv_gemm_sm10x_module` raises for any other dtype); `is_sm100f_supported` is True for
10.x on CUDA >= 12.9, the toolchain the arch directories here assume (`arch_dir_for`). Each call
writes its own module directory (`gen_tgv_gemm_bf16`, `gen_tgv_gemm_fp16`)."""
# Modules of the wheel that are replaced by stand-ins (they import torch, CUDA or the network).
_STUBBED = ("flashinfer.artifacts", "flashinfer.jit.cubin_loader")

DEFAULT_ARCH_DIR = "120f"
"""`_normalize_cuda_arch(12, 0)` on CUDA >= 12.9: the arch directory of a 12.0 part."""


class JitRenderError(Exception):
    """The release's JIT functions could not be loaded or run; says why."""


@dataclass(frozen=True)
class RenderedModule:
    """One `gen_gemm_sm1xx*` function's output: what its `gen_jit_spec` call was given."""

    function: str
    """The FlashInfer function that wrote it, e.g. `gen_gemm_sm100_module_cutlass_fp8`."""
    name: str
    """The JIT module name passed to `gen_jit_spec` (`mxfp8_gemm_cutlass_sm120`)."""
    generated: tuple[Path, ...]
    """Files it wrote under `generated/` (rendered templates and copied sources), in its order."""
    cuda_flags: tuple[str, ...]
    """`extra_cuda_cflags` beyond the arch flags, e.g. `-DENABLE_BF16 -DENABLE_FP4`."""
    arch_flags: tuple[str, ...] = ()
    """The `-gencode` flags `current_compilation_context.get_nvcc_flags_list(...)` gives the
    device (`-gencode=arch=compute_110a,code=sm_110a` on a Jetson Thor)."""


def arch_dir_for(sm: int) -> str:
    """compilation_context.py `_normalize_cuda_arch` on CUDA >= 12.9: `120f` for 12.0, `<sm>a`
    for 12.1 and every other arch from 9.0 on (`100a`, `103a`: the JIT's cache directory for one
    device)."""
    return "120f" if sm == 120 else f"{sm}a"


def device_target(arch_dir: str) -> tuple[int, str]:
    """The (major, minor) pair of `CompilationContext.TARGET_CUDA_ARCHS` for the device whose
    cache directory is `arch_dir` (`110a` -> (11, "0a"), `120f` -> (12, "0f"))."""
    digits = arch_dir.rstrip("af")
    return int(digits[:-1]), digits[-1] + arch_dir[len(digits) :]


class NotBuiltHere(Exception):
    """A module's nvcc flags leave out the device's major version: FlashInfer's
    `get_nvcc_flags_list` raises "No supported CUDA architectures found" and the module is not
    built (compilation_context.py)."""


def gen_src_dir(out_base: Path, version: str, arch_dir: str = DEFAULT_ARCH_DIR) -> Path:
    """`<base>/flashinfer/<version>/<arch>/generated`: jit/env.py FLASHINFER_GEN_SRC_DIR with
    FLASHINFER_CACHE_DIR = `<base>/flashinfer`."""
    return out_base / "flashinfer" / version / arch_dir / "generated"


def render_modules(
    root: Path,
    version: str,
    out_base: Path,
    sm: int = 120,
    arch_dir: str | None = None,
    not_built: list[str] | None = None,
) -> list[Path]:
    """Run every gen function of the wheel unpacked at `root` (the directory that holds
    `flashinfer/`) that a device of arch `sm` calls (GEN_PREFIXES), with its default arguments,
    writing into FlashInfer's cache layout under `out_base` (arch directory `arch_dir_for(sm)`
    unless given). Returns the files written, module by module, in the order the JIT writes
    them."""
    specs = render_jit_specs(root, version, out_base, sm, arch_dir, not_built)
    return [p for m in specs for p in m.generated]


def render_jit_specs(
    root: Path,
    version: str,
    out_base: Path,
    sm: int = 120,
    arch_dir: str | None = None,
    not_built: list[str] | None = None,
) -> list[RenderedModule]:
    """As `render_modules`, with what each module's `gen_jit_spec` call was given. A gen function
    whose nvcc flags leave out the device's major version (`supported_major_versions=[10]` on a
    Jetson Thor, 11.0) raises in FlashInfer before `gen_jit_spec`: that module is not built on
    the device, so its files are removed again and its name added to `not_built`."""
    prefixes = GEN_PREFIXES.get(sm)
    if prefixes is None:
        raise JitRenderError(
            f"SM{sm}: the JIT GEMM modules are rendered for {', '.join(map(str, GEN_PREFIXES))}"
        )
    arch_dir = arch_dir or arch_dir_for(sm)
    gen_dir = gen_src_dir(out_base, version, arch_dir)
    csrc = root / "flashinfer" / "data" / "csrc"
    if not csrc.is_dir():
        raise JitRenderError(f"{root} holds no flashinfer/data/csrc: not an unpacked wheel")
    specs: list[_Spec] = []
    context = _CompilationContext(device_target(arch_dir))
    with _stand_ins(root, gen_dir, csrc, specs, context):
        skipped = GEN_REPLACED.get(sm, frozenset())
        functions = [(n, f) for n, f in _gen_functions(prefixes) if n not in skipped]
        if not functions:
            raise JitRenderError(f"no {'/'.join(prefixes)}* function in {root}/flashinfer/jit/gemm")
        out: list[RenderedModule] = []
        torch = sys.modules["torch"]
        calls: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = []
        for name, fn in functions:
            for args in GEN_CALLS.get(name, ((),)):
                dtype_args = (getattr(torch, args[0]), *args[1:]) if args else ()
                calls.append((name, fn, dtype_args))
        for name, fn, args in calls:
            specs.clear()
            context.arch_flags.clear()
            before = set(gen_dir.rglob("*")) if gen_dir.exists() else set()
            try:
                fn(*args)
            except NotBuiltHere:
                _remove_new(gen_dir, before)
                if not_built is not None:
                    not_built.append(name)
                continue
            except Exception as e:  # third-party code: report, do not crash
                raise JitRenderError(f"FlashInfer {version} {name}() failed: {e}") from e
            if len(specs) != 1:
                raise JitRenderError(f"{name}() called gen_jit_spec {len(specs)} times, not once")
            spec = specs[0]
            # The JIT writes the module's build file beside generated/ (jit/core.py
            # JitSpec.write_ninja): a rendered cache is then a user's cache (cutlint.context).
            write_build_ninja(
                root,
                gen_dir.parent,
                spec.name,
                [*spec.cuda_flags, *context.arch_flags],
                [Path(p) for p in spec.sources],
            )
            out.append(
                RenderedModule(
                    function=name,
                    name=spec.name,
                    generated=tuple(
                        Path(p) for p in spec.sources if Path(p).is_relative_to(gen_dir)
                    ),
                    cuda_flags=tuple(spec.cuda_flags),
                    arch_flags=tuple(context.arch_flags),
                )
            )
    return out


def _remove_new(gen_dir: Path, before: set[Path]) -> None:
    """Remove what a gen function wrote before it raised (files, then emptied directories)."""
    if not gen_dir.exists():
        return
    new = sorted(set(gen_dir.rglob("*")) - before, key=lambda p: len(p.parts), reverse=True)
    for p in new:
        if p.is_dir():
            p.rmdir()
        else:
            p.unlink()


def _gen_functions(prefixes: tuple[str, ...]) -> list[tuple[str, Callable[[], Any]]]:
    found: dict[str, Callable[[], Any]] = {}
    for module in _GEN_MODULES:
        qualified = f"flashinfer.jit.gemm.{module}"
        try:
            mod = importlib.import_module(qualified)
        except ModuleNotFoundError as e:
            if e.name == qualified:
                continue  # not in this release (svdquant_sm120 is new in 0.7.4)
            raise JitRenderError(f"cannot load {qualified}: {e}") from e
        except Exception as e:
            raise JitRenderError(f"cannot load {qualified}: {e}") from e
        for name in sorted(vars(mod)):
            fn = getattr(mod, name)
            if (
                name.startswith(prefixes)
                and callable(fn)
                and getattr(fn, "__module__", None) == qualified
            ):
                found[name] = fn
    return sorted(found.items())


# --- stand-ins ---------------------------------------------------------------------------------


class _Placeholder:
    """A torch dtype or a JIT helper value: named, hashable (dtype maps use dtypes as keys),
    callable and with any attribute, each answer again a placeholder."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> _Placeholder:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Placeholder(f"{self._name}.{attr}")

    def __call__(self, *args: object, **kwargs: object) -> _Placeholder:
        return _Placeholder(f"{self._name}()")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Placeholder) and other._name == self._name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return self._name


class _AnyModule(types.ModuleType):
    """A module whose every attribute is a placeholder (torch, artifacts, cubin_loader)."""

    def __getattr__(self, attr: str) -> _Placeholder:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Placeholder(f"{self.__name__}.{attr}")


@dataclass
class _Spec:
    name: str
    sources: list[str]
    cuda_flags: list[str]


class _CompilationContext:
    """jit/core.py `current_compilation_context` for one device: compilation_context.py
    `get_nvcc_flags_list` keeps the device's (major, minor) if its major is one of
    `supported_major_versions` and raises when none is left. The `-gencode` flags it would give
    are recorded in `arch_flags`, not returned: they are not part of the sources, and the
    rendered module's `cuda_flags` stay its own defines."""

    def __init__(self, device: tuple[int, str]) -> None:
        self.device = device
        self.arch_flags: list[str] = []

    def get_nvcc_flags_list(
        self, supported_major_versions: list[int] | None = None, **kwargs: object
    ) -> list[str]:
        major, minor = self.device
        if supported_major_versions and major not in supported_major_versions:
            raise NotBuiltHere(
                f"No supported CUDA architectures found for major versions "
                f"{supported_major_versions}."
            )
        self.arch_flags.append(f"-gencode=arch=compute_{major}{minor},code=sm_{major}{minor}")
        return []


def nvcc_flag_lists(root: Path) -> dict[str, list[str]]:
    """The module-level `*_nvcc_flags` lists of the wheel's `flashinfer/jit/core.py`
    (`sm90a_nvcc_flags = ["-gencode=...", "-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED"] +
    common_nvcc_flags`), read from its source (importing it needs torch), without their
    `-gencode` entries: the arch flags are not part of the sources (_CompilationContext)."""
    path = root / "flashinfer" / "jit" / "core.py"
    if not path.is_file():
        return {}
    lists: dict[str, list[str]] = {}

    def value(node: ast.expr) -> list[str] | None:
        if isinstance(node, ast.List):
            items = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            strings = [v for v in items if isinstance(v, str)]
            return strings if len(strings) == len(items) else None
        if isinstance(node, ast.Name):
            return lists.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = value(node.left), value(node.right)
            return None if left is None or right is None else left + right
        return None

    for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id.endswith("_nvcc_flags")
        ):
            got = value(stmt.value)
            if got is not None:
                lists[stmt.targets[0].id] = got
    return {k: [f for f in v if not f.startswith("-gencode")] for k, v in lists.items()}


@contextlib.contextmanager
def _stand_ins(
    root: Path, gen_dir: Path, csrc: Path, specs: list[_Spec], context: _CompilationContext
) -> Iterator[None]:
    """Import the wheel's `flashinfer.jit.gemm` modules with stand-in parents and helpers; put
    `sys.modules` back as it was afterwards."""
    owned = ("flashinfer", "torch")
    saved = {
        k: v for k, v in sys.modules.items() if any(k == o or k.startswith(o + ".") for o in owned)
    }
    for k in saved:
        del sys.modules[k]
    try:
        for name in ("flashinfer", "flashinfer.jit", "flashinfer.jit.gemm"):
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(root / name.replace(".", "/"))]
            sys.modules[name] = pkg
        sys.modules["torch"] = _AnyModule("torch")
        for name in _STUBBED:
            sys.modules[name] = _AnyModule(name)
        env = types.ModuleType("flashinfer.jit.env")
        env.FLASHINFER_GEN_SRC_DIR = gen_dir  # type: ignore[attr-defined]
        env.FLASHINFER_CSRC_DIR = csrc  # type: ignore[attr-defined]
        # the TGV module names it as an include path (jit/env.py: `<package>/data/include`)
        env.FLASHINFER_INCLUDE_DIR = csrc.parent / "include"  # type: ignore[attr-defined]
        sys.modules["flashinfer.jit.env"] = env
        sys.modules["flashinfer.jit"].env = env  # type: ignore[attr-defined]

        def gen_jit_spec(name: str, sources: list[Any], **kwargs: Any) -> _Spec:
            flags = [str(f) for f in kwargs.get("extra_cuda_cflags") or []]
            spec = _Spec(name, [str(s) for s in sources], flags)
            specs.append(spec)
            return spec

        core = _AnyModule("flashinfer.jit.core")
        for name, flags in nvcc_flag_lists(root).items():
            setattr(core, name, flags)
        core.gen_jit_spec = gen_jit_spec  # type: ignore[attr-defined]
        core.current_compilation_context = context  # type: ignore[attr-defined]
        core.JitSpec = _Spec  # type: ignore[attr-defined]
        sys.modules["flashinfer.jit.core"] = core
        yield
    finally:
        for k in [k for k in sys.modules if any(k == o or k.startswith(o + ".") for o in owned)]:
            del sys.modules[k]
        sys.modules.update(saved)
