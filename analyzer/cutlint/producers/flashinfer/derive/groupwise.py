"""The SM120 FP8 groupwise GEMM runner of a flashinfer-python wheel, for derive_runner_tactics.

`get_gemm_sm120_module_cutlass_fp8()` (gemm/gemm_base.py; gemm.py before 0.5.3) defines
`CutlassFp8GemmRunner(TunableRunner)`: its `get_valid_tactics` returns a literal list (`[-1]`:
one tactic), and its forward calls `module.gemm_fp8_nt_groupwise(..., scale_gran_m, scale_gran_n,
scale_gran_k, "MN")` of the JIT module gemm_sm120, whose csrc (gemm_groupwise_sm120.cu) dispatches
the scale-major mode to `ScaleMajorK` and calls `CutlassGroupwiseScaledGEMMSM120<gM, gN, gK,
ScaleMajorK>` for the input and output types (the module instantiates it for e4m3/e5m2 and
f16/bf16; family sm120_fp8_groupwise models it), a fixed 128x128x128 tile (the header's
`MmaTileShape_MNK`). The runner is tuned under the op `fp8_gemm_sm100`'s `choose_one` names.

The grouped groupwise GEMMs (`group_gemm_fp8_nt_groupwise`, `group_gemm_mxfp8_mxfp4_nt_groupwise`,
`group_gemm_nvfp4_nt_groupwise`) call the module directly, with no TunableRunner: they have no
tactics to table (`untuned_calls` lists them, for the docs and a test).

The Python is parsed with `ast`, never run; each value is checked against the code that uses it,
so a release that changes the scheme stops the derivation instead of being misread.
"""

from __future__ import annotations

import ast
import re

from cutlint.producers.flashinfer.derive.cpp import DeriveError, strip_comments
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, TomlValue
from cutlint.producers.flashinfer.derive.wheel import WheelTree

FACTORY = "get_gemm_sm120_module_cutlass_fp8"
ENTRY = "gemm_fp8_nt_groupwise"
LAUNCHER = "CutlassGroupwiseScaledGEMMSM120"
CSRC = "flashinfer/data/csrc/gemm_groupwise_sm120.cu"
HEADER = "flashinfer/data/include/flashinfer/gemm/gemm_groupwise_sm120.cuh"
GROUPED = (
    "group_gemm_fp8_nt_groupwise",
    "group_gemm_mxfp4_nt_groupwise",
    "group_gemm_nvfp4_nt_groupwise",
)
"""The SM120 module's grouped groupwise entries (gemm_sm120 / group_gemm_sm120_binding.cu)."""


def python_path(tree: WheelTree) -> str | None:
    names = set(tree.names())
    return next(
        (p for p in ("flashinfer/gemm/gemm_base.py", "flashinfer/gemm.py") if p in names), None
    )


def _functions(mod: ast.Module) -> dict[str, ast.FunctionDef]:
    return {f.name: f for f in mod.body if isinstance(f, ast.FunctionDef)}


def _calls_attr(node: ast.AST, attr: str) -> list[ast.Call]:
    return [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == attr
    ]


def _constants(fn: ast.AST) -> dict[str, object]:
    """name -> literal of the simple `name = <literal>` assignments in a function."""
    out: dict[str, object] = {}
    for a in ast.walk(fn):
        if (
            isinstance(a, ast.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name)
            and isinstance(a.value, ast.Constant)
        ):
            out.setdefault(a.targets[0].id, a.value.value)
    return out


def _method(cls: ast.ClassDef, name: str, path: str) -> ast.FunctionDef:
    m = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name), None)
    if m is None:
        raise DeriveError(f"{path}: {cls.name} has no {name}()")
    return m


def _runner(fn: ast.FunctionDef, path: str) -> ast.ClassDef:
    for c in ast.walk(fn):
        if isinstance(c, ast.ClassDef) and any(
            isinstance(b, ast.Name) and b.id == "TunableRunner" for b in c.bases
        ):
            return c
    raise DeriveError(f"{path}: {FACTORY} defines no TunableRunner")


def _valid_tactics(cls: ast.ClassDef, path: str) -> list[int]:
    m = _method(cls, "get_valid_tactics", path)
    rets = [r for r in ast.walk(m) if isinstance(r, ast.Return)]
    if len(rets) != 1 or not isinstance(rets[0].value, ast.List):
        raise DeriveError(
            f"{path}:{m.lineno}: {cls.name}.get_valid_tactics returns no literal list; the "
            "groupwise runner's tactics cannot be read"
        )
    ids = [ast.literal_eval(e) for e in rets[0].value.elts]
    if not all(isinstance(i, int) for i in ids):
        raise DeriveError(f"{path}:{m.lineno}: {cls.name}.get_valid_tactics: not int literals")
    return ids


def _scales(cls: ast.ClassDef, path: str) -> tuple[tuple[int, int, int], str, int]:
    """(gM, gN, gK), the scale-major mode and the line of forward's module.gemm_fp8_nt_groupwise."""
    fwd = _method(cls, "forward", path)
    calls = [
        c
        for c in _calls_attr(fwd, ENTRY)
        if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
    ]
    if len(calls) != 1 or len(calls[0].args) != 10:
        raise DeriveError(f"{path}: {cls.name}.forward makes no module.{ENTRY}(10 arguments) call")
    call = calls[0]
    known = _constants(fwd)
    values: list[object] = []
    for a in call.args[6:]:
        if isinstance(a, ast.Constant):
            values.append(a.value)
        elif isinstance(a, ast.Name) and a.id in known:
            values.append(known[a.id])
        else:
            raise DeriveError(
                f"{path}:{call.lineno}: {ENTRY} argument {ast.unparse(a)} is not a literal"
            )
    grans = [g for g in values[:3] if isinstance(g, int)]
    mode = values[3]
    if len(grans) != 3 or not isinstance(mode, str):
        raise DeriveError(f"{path}:{call.lineno}: {ENTRY}'s scale arguments are {values}")
    return (grans[0], grans[1], grans[2]), mode, call.lineno


def _custom_ops(mod: ast.Module, path: str) -> tuple[list[str], str]:
    """The ops under which the function that appends the runner calls tuner.choose_one."""
    funcs = _functions(mod)
    owner = next(
        (
            f
            for f in funcs.values()
            if f.name != FACTORY
            and any(
                isinstance(c.func, ast.Attribute)
                and isinstance(c.func.value, ast.Call)
                and isinstance(c.func.value.func, ast.Name)
                and c.func.value.func.id == FACTORY
                for c in _calls_attr(f, "cutlass_fp8_gemm_runner")
            )
        ),
        None,
    )
    if owner is None:
        raise DeriveError(f"{path}: no function appends {FACTORY}().cutlass_fp8_gemm_runner()")
    chooses = _calls_attr(owner, "choose_one")
    if len(chooses) != 1 or not chooses[0].args:
        raise DeriveError(f"{path}:{owner.lineno}: {owner.name} calls tuner.choose_one not once")
    first = chooses[0].args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return [first.value], (
            f'{path}:{chooses[0].lineno}: {owner.name}: tuner.choose_one("{first.value}", ...)'
        )
    if not isinstance(first, ast.Name):
        raise DeriveError(f"{path}:{chooses[0].lineno}: choose_one's op is {ast.unparse(first)}")
    # The op is a parameter: its default, and what each caller passes for it.
    args = owner.args
    params = args.args + args.kwonlyargs
    positional = [a.arg for a in args.args][len(args.args) - len(args.defaults) :]
    defaults = dict(zip(positional, args.defaults, strict=True)) | {
        a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    }
    if first.id not in {p.arg for p in params}:
        raise DeriveError(
            f"{path}:{chooses[0].lineno}: choose_one's op `{first.id}` is no parameter"
        )
    ops: list[str] = []
    default = defaults.get(first.id)
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        ops.append(default.value)
    for f in funcs.values():
        for c in ast.walk(f):
            if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name)):
                continue
            if c.func.id != owner.name:
                continue
            for kw in c.keywords:
                if kw.arg != first.id:
                    continue
                if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    ops.append(kw.value.value)
                elif isinstance(kw.value, ast.Name):
                    # the literals the caller assigns to the name it passes, in source order
                    ops += [
                        a.value.value
                        for a in ast.walk(f)
                        if isinstance(a, ast.Assign) and isinstance(a.value, ast.Constant)
                        and isinstance(a.value.value, str)
                        and any(isinstance(t, ast.Name) and t.id == kw.value.id for t in a.targets)
                    ]  # fmt: skip
    ops = list(dict.fromkeys(ops))
    if not ops:
        raise DeriveError(f"{path}:{owner.lineno}: no op name for {owner.name}'s choose_one")
    return ops, (
        f"{path}:{chooses[0].lineno}: {owner.name}: tuner.choose_one({first.id}, ...), "
        f"{first.id} = " + " or ".join(f'"{o}"' for o in ops) + " (its default and its callers')"
    )


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _csrc(tree: WheelTree, mode: str) -> tuple[str, int, int]:
    """ScaleMajorK for the mode (csrc's DISPATCH_SCALE_MAJOR_K), the line of that dispatch and
    of the launcher call."""
    text = tree.read(CSRC).replace("\\\n", "\n")
    m = re.search(
        rf'scale_major_mode\s*==\s*"{re.escape(mode)}"\s*\)\s*\{{\s*constexpr\s+bool\s+'
        r"SCALE_MAJOR_K\s*=\s*(true|false)\s*;",
        text,
    )
    call = re.search(
        rf"{LAUNCHER}<\s*SCALE_GRANULARITY_M\s*,\s*SCALE_GRANULARITY_N\s*,\s*"
        r"SCALE_GRANULARITY_K\s*,\s*SCALE_MAJOR_K\s*>",
        text,
    )
    if m is None or call is None:
        raise DeriveError(
            f'{CSRC}: no DISPATCH_SCALE_MAJOR_K case for "{mode}" or no '
            f"{LAUNCHER}<SCALE_GRANULARITY_M, ..., SCALE_MAJOR_K> call"
        )
    return m[1], _line(text, m.start()), _line(text, call.start())


def _tile(tree: WheelTree) -> tuple[tuple[int, int, int], int]:
    text = strip_comments(tree.read(HEADER))
    found = re.findall(r"MmaTileShape_MNK\s*=\s*Shape<_(\d+),\s*_(\d+),\s*_(\d+)>", text)
    if len(found) != 1:
        raise DeriveError(f"{HEADER}: not one MmaTileShape_MNK = Shape<_M, _N, _K>")
    at = re.search(r"MmaTileShape_MNK\s*=", text)
    assert at is not None
    m, n, k = (int(x) for x in found[0])
    return (m, n, k), _line(text, at.start())


def entry(tree: WheelTree) -> TomlTable | None:
    """The runner's entry for one release, or None when the wheel has no SM120 groupwise runner."""
    path = python_path(tree)
    if path is None or CSRC not in tree.names():
        return None
    text = tree.read(path)
    mod = ast.parse(text)
    fn = _functions(mod).get(FACTORY)
    if fn is None:
        return None
    cls = _runner(fn, path)
    ids = _valid_tactics(cls, path)
    (gm, gn, gk), mode, call_line = _scales(cls, path)
    major_k, mode_line, launcher_line = _csrc(tree, mode)
    (m, n, k), tile_line = _tile(tree)
    ops, ops_source = _custom_ops(mod, path)
    short = path.removeprefix("flashinfer/")
    csrc = CSRC.removeprefix("flashinfer/data/")
    header = HEADER.removeprefix("flashinfer/data/")
    config = f"Groupwise{gm}x{gn}x{gk}{'K' if major_k == 'true' else 'MN'}"
    tactics: list[dict[str, TomlValue]] = [
        {"id": i, "config": config, "tile": [m, n, k], "swap_ab": False, "kernel": "default"}
        for i in ids
    ]
    return {
        "source": (
            f"{short}:{fn.lineno} of the {tree.version} wheel: {FACTORY}: class {cls.name}"
            f"(TunableRunner), get_valid_tactics returns {ids} (line "
            f"{_method(cls, 'get_valid_tactics', path).lineno}); forward calls module.{ENTRY}(..., "
            f'{gm}, {gn}, {gk}, "{mode}") (line {call_line}); {csrc}:{mode_line}: "{mode}" is '
            f"ScaleMajorK {major_k}, line {launcher_line}: {LAUNCHER}<{gm}, {gn}, {gk}, {major_k}, "
            f"in, out>; {header}:{tile_line}: MmaTileShape_MNK = Shape<_{m}, _{n}, _{k}> (the one tile)"
        ),
        "args": [str(gm), str(gn), str(gk), major_k, "{input}", "{output}"],
        "args_source": f"{csrc}:{launcher_line}: {LAUNCHER}<SCALE_GRANULARITY_M, SCALE_GRANULARITY_N, SCALE_GRANULARITY_K, SCALE_MAJOR_K>(cutlass_t_in* A, ..., cutlass_t_out* C) as the runner's arguments fill them",
        "custom_ops": ops,
        "custom_ops_source": re.sub(
            rf"^{re.escape(path)}:(\d+)", rf"{short}:\1 of the {tree.version} wheel", ops_source
        ),
        "tactics": tactics,
    }


def untuned_calls(tree: WheelTree) -> dict[str, str]:
    """The grouped groupwise entries the wheel's Python calls on the SM120 module -> `path:line
    function` of the call: none is inside a TunableRunner (they have no tactics)."""
    path = python_path(tree)
    if path is None:
        return {}
    mod = ast.parse(tree.read(path))
    out: dict[str, str] = {}
    for f in _functions(mod).values():
        runners = [
            c
            for c in ast.walk(f)
            if isinstance(c, ast.ClassDef)
            and any(isinstance(b, ast.Name) and b.id == "TunableRunner" for b in c.bases)
        ]
        for name in GROUPED:
            for c in _calls_attr(f, name):
                v = c.func.value if isinstance(c.func, ast.Attribute) else None
                on_sm120 = isinstance(v, ast.Call) and "sm120" in ast.unparse(v.func)
                if not on_sm120:
                    continue
                if any(c in set(ast.walk(r)) for r in runners):
                    raise DeriveError(f"{path}:{c.lineno}: {name} is called in a TunableRunner")
                out.setdefault(name, f"{path.removeprefix('flashinfer/')}:{c.lineno} {f.name}()")
    return out
