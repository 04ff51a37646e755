"""Read one translation unit as its build compiles it: every CUTLASS kernel it instantiates.

1. Stub the headers the TU includes that are not here (`headers.py`).
2. Parse the TU with libclang as CUDA host code, with the build's include directories and
   defines, and walk its dispatch from the entry points (`chain.py`).
3. Parse it again with the candidates appended (`probe.py`): clang decides which are kernels and
   lays out their `SharedStorage`. The libraries' headers are a precompiled header of their own
   (bodies skipped), the TU's own files the precompiled preamble of the first parse: the second
   parse reuses both, so clang reads and instantiates the TU once.
"""

from __future__ import annotations

import functools
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cutlint.parse.tu import builders, cache, headers
from cutlint.parse.tu.arch_macros import supported_macros
from cutlint.parse.tu.chain import Candidate, Index, Resolver, walk
from cutlint.parse.tu.probe import SUGAR, TYPES, VALUES, VISITOR_2X, ProbeLine, probe_text
from cutlint.parse.tu.toolkit import find_cuda_path
from cutlint.tu_records import CallSite, CompileCommand, TuBuilt, TuKernel, TuRead

_NOT_FOUND = re.compile(r"'(.+)' file not found")
_INT = re.compile(r"C<(-?\d+)>")


class FrontEndError(Exception):
    """libclang could not be loaded or produced no translation unit."""


def clang_args(command: CompileCommand, arch: str, stub_dir: Path, cuda: Path | None) -> list[str]:
    args = ["-x", "cuda", "--cuda-host-only", f"--cuda-gpu-arch={_clang_arch(arch)}"]
    # No error limit: a stubbed header's errors must not end the parse before the probe. No
    # access control: a layout does not depend on it, and clang checks protected members of
    # dependent bases more strictly than the g++ host compiler nvcc uses (vLLM's epilogues).
    args += ["-Wno-unknown-cuda-version", "-ferror-limit=0", "-fno-access-control"]
    if cuda is not None:
        args.append(f"--cuda-path={cuda}")
        args += nvcc_macros(cuda)
    if not any(a.startswith("-std") for a in command.args):
        args.append("-std=c++17")
    version = _toolkit_version(cuda) if cuda is not None else None
    if version is not None:  # before the build's own flags, so that its -U / -D win
        args += supported_macros(headers.include_dirs(command.args), *version)
    args += list(command.args)
    if cuda is not None and (cuda / "include" / "cccl").is_dir():
        args += ["-isystem", str(cuda / "include" / "cccl")]  # nvcc adds the toolkit's CCCL
    args += ["-idirafter", str(stub_dir)]  # searched last: a stub never hides a real header
    return args


_CUDA_VERSION = re.compile(r"#define\s+CUDA_VERSION\s+(\d+)")


def nvcc_macros(cuda: Path) -> list[str]:
    """The macros nvcc defines in the host pass and clang does not: the toolkit's version.

    CUTLASS keys whole builders on them: `sm90_gmma_builder.inl` defines
    `CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED` only `#if (__CUDACC_VER_MAJOR__ >= 12)` and
    otherwise `static_assert`s "Unsupported Toolkit for SM90 Collective Builder". The version is
    the toolkit's own (`CUDA_VERSION` in `include/cuda.h`: 13000 is 13.0).
    """
    try:
        m = _CUDA_VERSION.search((cuda / "include" / "cuda.h").read_text(errors="replace"))
    except OSError:
        return []
    if m is None:
        return []
    major, minor = _version(int(m.group(1)))
    return [
        "-D__NVCC__",
        f"-D__CUDACC_VER_MAJOR__={major}",
        f"-D__CUDACC_VER_MINOR__={minor}",
        "-D__CUDACC_VER_BUILD__=0",
    ]


def _version(cuda_version: int) -> tuple[int, int]:
    """`CUDA_VERSION` 13000 -> (13, 0)."""
    return cuda_version // 1000, (cuda_version % 1000) // 10


def _toolkit_version(cuda: Path) -> tuple[int, int] | None:
    try:
        m = _CUDA_VERSION.search((cuda / "include" / "cuda.h").read_text(errors="replace"))
    except OSError:
        return None
    return None if m is None else _version(int(m.group(1)))


def _clang_arch(arch: str) -> str:
    """clang knows `sm_120a`; a family target (`sm_120f`) is parsed as its `a` variant, whose host
    pass is the same."""
    return arch[:-1] + "a" if arch.endswith("f") else arch


def _own(command: CompileCommand) -> Callable[[str], bool]:
    """The TU's own files: not CUTLASS's, not the toolkit's, not the system's, not a stub."""
    roots = [d.resolve() for d in headers.include_dirs(command.args) if _is_library(d)]
    roots += [Path("/usr"), *headers.system_dirs()]

    @functools.cache  # asked once a declaration: the same few hundred files
    def own(name: str) -> bool:
        p = Path(name)
        # GCC's C++ headers as a pip-installed libclang finds them: `/../lib/gcc/<triple>/12/
        # ../../../../include/c++/12/...`, under no system directory by name
        return (
            not any(p.is_relative_to(r) for r in roots)
            and "cutlint-tu-stubs" not in name
            and "/lib/gcc/" not in name
        )

    return own


def _is_library(d: Path) -> bool:
    return (
        (d / "cutlass" / "cutlass.h").is_file()
        or (d / "cute" / "tensor.hpp").is_file()
        or (d / "cuda_runtime.h").is_file()
    )


def read_tu(command: CompileCommand, arch: str | None = None, use_cache: bool = True) -> TuRead:
    """Every CUTLASS kernel the TU instantiates, for one device target; answered from the cache
    when neither the flags nor any file the TU read has changed since (`cache.py`)."""
    target = arch or (command.arches[0] if command.arches else "sm_90a")
    key = cache.key(command, target)
    if use_cache:
        hit = cache.load(key)
        if hit is not None:
            return hit
    read, deps = _read(command, target)
    if use_cache:
        cache.store(key, read, deps)
    return read


def _read(command: CompileCommand, target: str) -> tuple[TuRead, list[str]]:
    try:
        from clang import cindex  # type: ignore[import-untyped]
    except ImportError as err:
        raise FrontEndError(f"libclang is not installed: {err}") from err
    t0 = time.monotonic()
    main = Path(command.file)
    cuda = find_cuda_path()
    with tempfile.TemporaryDirectory(prefix="cutlint-tu-stubs-") as tmp:
        stub_dir = Path(tmp)
        extra = [cuda / "include"] if cuda is not None else []
        missing = headers.missing_headers(main, headers.include_dirs(command.args), extra)
        headers.write_stubs(missing, stub_dir)
        args = clang_args(command, target, stub_dir, cuda)
        index = cindex.Index.create()
        options = (
            cindex.TranslationUnit.PARSE_INCOMPLETE
            | cindex.TranslationUnit.PARSE_PRECOMPILED_PREAMBLE
            | 0x100  # CXTranslationUnit_CreatePreambleOnFirstParse
        )
        text = main.read_text(errors="replace")
        unsaved = {str(main): text}
        parsed = probed_file = str(main)
        library = headers.library_includes(main, headers.include_dirs(command.args), extra)
        if missing:  # a stub includes these (headers.write_stubs)
            library = list(dict.fromkeys([*library, *(f"<{h}>" for h in headers.STUB_STD)]))
        if main.is_absolute():
            synthetic = stub_dir / "cutlint-tu-main.cu"  # on disk: clang keeps no precompiled
            parsed = probed_file = str(synthetic)  # preamble for a main file that is not
            pch = _libraries_pch(index, cindex, library, args, missing, stub_dir)
            if pch is not None or not library:
                args += ["-include-pch", str(pch)] if pch is not None else []
                synthetic.write_text(_tu_preamble(main))
            else:  # the libraries' preamble, the TU after it (walked, then parsed again)
                synthetic.write_text(_library_preamble(library, main))
                options |= SKIP_FUNCTION_BODIES | LIMIT_SKIP_FUNCTION_BODIES_TO_PREAMBLE
                probed_file = str(main)
        tu = _parse(index, cindex, parsed, unsaved, args, options, missing, stub_dir)
        idx = Index(tu, _own(command), str(main))
        candidates, unresolved = walk(idx, Resolver(tu))
        exprs = list(dict.fromkeys(c.type_expr for c in candidates))
        base = unsaved.get(probed_file) or Path(probed_file).read_text(errors="replace")
        probed, lines = probe_text(base, exprs)
        unsaved[probed_file] = probed
        tu.reparse(unsaved_files=list(unsaved.items()), options=0)
        kernels = _kernels(tu, cindex, probed_file, candidates, exprs, lines, main.name)
        deps = [str(i.include.name) for i in tu.get_includes() if i.include is not None]
    deps = [d for d in dict.fromkeys([str(main), *deps]) if not d.startswith(tmp)]
    read = TuRead(
        command=command,
        arch=target,
        kernels=tuple(kernels),
        missing_headers=tuple(missing),
        unresolved=tuple(dict.fromkeys(unresolved)),
        seconds=round(time.monotonic() - t0, 2),
    )
    return read, deps


SKIP_FUNCTION_BODIES = 0x40
"""CXTranslationUnit_SkipFunctionBodies (clang-c/Index.h): clang keeps the bodies of `constexpr`
and deduced-return functions, which types and layouts depend on."""
LIMIT_SKIP_FUNCTION_BODIES_TO_PREAMBLE = 0x800
"""CXTranslationUnit_LimitSkipFunctionBodiesToPreamble: bodies are skipped in the precompiled
preamble only (the fallback reading, `_library_preamble`)."""


def _libraries_pch(
    index: Any,
    cindex: Any,
    library: Sequence[str],
    args: list[str],
    missing: list[str],
    stub_dir: Path,
) -> Path | None:
    """The libraries' headers the TU includes, parsed alone with their function bodies skipped
    and saved as a precompiled header; None when there are none, or when clang cannot save them
    (an error in them): then the caller reads them as the TU's preamble instead.

    Why a file of its own: the TU is then parsed with `-include-pch` of it, its own files in the
    TU's precompiled preamble with their bodies (the walk reads them), and the probe appended
    after that preamble, so the reparse that measures the candidates reuses everything the first
    parse instantiated. With the libraries as the preamble and the TU after it, clang had to
    parse the TU again for the probe: vLLM's w4a8_mm_entry.cu instantiates its ten kernels'
    classes from its own bodies, 9 s of CPU each time (docs/tu.md, Cost)."""
    if not library:
        return None
    source = stub_dir / "cutlint-tu-libraries.cu"
    source.write_text("".join(f"#include {h}\n" for h in library))
    options = cindex.TranslationUnit.PARSE_INCOMPLETE | SKIP_FUNCTION_BODIES
    libraries = _parse(index, cindex, str(source), {}, args, options, missing, stub_dir)
    pch = stub_dir / "cutlint-tu-libraries.pch"
    try:
        libraries.save(str(pch))
    except cindex.TranslationUnitSaveError:
        return None
    return pch


def _tu_preamble(main: Path) -> str:
    """A main file whose preamble is the TU (after the libraries' `-include-pch`): the probe's
    lines follow it."""
    return f'#include "{main}"\nnamespace cutlint_tu_preamble_end {{}}\n'


def _library_preamble(library: Sequence[str], main: Path) -> str:
    """A main file that includes the libraries' headers, ends its preamble, then includes the
    TU: the TU's own files stay out of the preamble (their bodies are read), its locations are
    its own (file and line)."""
    lines = [f"#include {h}" for h in library]
    lines += ["namespace cutlint_tu_preamble_end {}", f'#include "{main}"']
    return "\n".join(lines) + "\n"


def _parse(
    index: Any,
    cindex: Any,
    main: str,
    unsaved: dict[str, str],
    args: list[str],
    options: int,
    missing: list[str],
    stub_dir: Path,
) -> Any:
    """Parse, stubbing any missing header the scan did not see (a computed `#include`), a few
    times at most: each missing header is a fatal error that hides the next."""
    for _ in range(4):
        try:
            tu = index.parse(main, args, unsaved_files=list(unsaved.items()), options=options)
        except cindex.TranslationUnitLoadError as err:
            raise FrontEndError(f"libclang could not parse {main}: {err}") from err
        more = [
            m.group(1)
            for d in tu.diagnostics
            if d.severity >= cindex.Diagnostic.Fatal
            for m in [_NOT_FOUND.search(d.spelling)]
            if m and m.group(1) not in missing
        ]
        if not more:
            return tu
        missing += more
        headers.write_stubs(more, stub_dir)
    return tu


def _aliases(tu: Any, cindex: Any) -> dict[str, Any]:
    kind = cindex.CursorKind
    out: dict[str, Any] = {}
    for c in tu.cursor.get_children():
        if c.kind == kind.TYPE_ALIAS_DECL and c.spelling.startswith("cutlint_k"):
            out[c.spelling] = c
    return out


def _errors_by_line(
    tu: Any, cindex: Any, main: str, first: int, shown: str | None = None
) -> dict[int, str]:
    """An error clang reports while instantiating a probe line's types (a `static_assert` of a
    builder or kernel shell), by that probe line: found through the diagnostic's notes. The
    root cause is preferred to its echo (`use of undeclared identifier 'cutlint_k2'` after the
    alias itself failed)."""
    found: dict[int, list[str]] = {}
    for d in tu.diagnostics:
        if d.severity < cindex.Diagnostic.Error:
            continue
        lines = [d.location] + [n.location for n in d.children]
        for loc in lines:
            if loc.file is not None and loc.file.name == main and loc.line >= first:
                where = d.location
                name = Path(where.file.name).name if where.file else ""
                if where.file and where.file.name == main and shown:
                    name = shown  # the probe's lines follow the TU: named by it, not a temp file
                at = f"{name}:{where.line}: " if where.file else ""
                found.setdefault(int(loc.line), []).append(f"{at}{d.spelling}")
                break
    return {
        line: next((m for m in msgs if "cutlint_k" not in m), msgs[0])
        for line, msgs in found.items()
    }


def _kernels(
    tu: Any,
    cindex: Any,
    main: str,
    candidates: Sequence[Candidate],
    exprs: Sequence[str],
    lines: Sequence[ProbeLine],
    shown: str | None = None,
) -> list[TuKernel]:
    aliases = _aliases(tu, cindex)
    errors = _errors_by_line(tu, cindex, main, lines[0].line if lines else 1 << 30, shown)
    measured: dict[
        str, tuple[str, dict[str, int], dict[str, str | None], str | None, TuBuilt | None]
    ] = {}
    for pl, expr in zip(lines, exprs, strict=True):
        k = aliases.get(f"cutlint_k{pl.index}")
        error = errors.get(pl.line)
        if k is None and error is None:
            continue
        # An alias clang dropped: the candidate did not instantiate; which kernel it would be
        # is unknown, so it is keyed by its expression.
        kernel = str(k.underlying_typedef_type.get_canonical().spelling) if k else f"? {expr}"
        if kernel == "void" and error is None:
            continue  # not a kernel: a dtype, an epilogue, a schedule
        if error is not None and "requires template arguments" in error:
            continue  # a template's name passed on (`Epilogue_`), not a type
        values = {v: _array_size(aliases.get(f"cutlint_k{pl.index}_{v}")) for v in VALUES}
        types = {t: _spelling(aliases.get(f"cutlint_k{pl.index}_{t}")) for t in TYPES}
        built = _built(aliases, pl.index, values, types, cindex) if error is None else None
        measured[expr] = (kernel, values, types, error, built)
    paths: dict[str, list[tuple[CallSite, ...]]] = {}
    omitted: dict[str, int] = {}
    reached: dict[str, set[tuple[CallSite, ...]]] = {}  # each kernel's paths, listed or not
    taken: list[tuple[CallSite, ...]] = []  # every kernel's
    first: dict[str, Candidate] = {}
    failed = [c for c in candidates if c.type_expr in measured and measured[c.type_expr][3]]
    ok = [c for c in candidates if c.type_expr in measured and not measured[c.type_expr][3]]
    ok = [c for c in ok if not _a_part(c, ok, measured)]
    # Measured kernels first: a failed candidate on the same path (a template name passed as
    # an argument, the caller's callee) is not a kernel of its own.
    for cand in ok + failed:
        kernel = measured[cand.type_expr][0]
        # A kernel handed on down its own path (to the caller's callee, as `Gemm::GemmKernel`)
        # keeps the first site: the one that chose it.
        if any(_prefix(p, cand.path) for p in taken):
            continue
        if cand in failed and any(_prefix(cand.path, p) or p == cand.path for p in taken):
            continue
        known = reached.setdefault(kernel, set())
        if cand.path in known:
            continue
        known.add(cand.path)
        taken.append(cand.path)
        first.setdefault(kernel, cand)
        listed = paths.setdefault(kernel, [])
        if len(listed) < MAX_PATHS:
            listed.append(cand.path)
        else:
            omitted[kernel] = omitted.get(kernel, 0) + 1
    kernels: list[TuKernel] = []
    for kernel, cand in first.items():
        _, values, types, error, built = measured[cand.type_expr]
        kernels.append(
            TuKernel(
                paths=tuple(paths[kernel]),
                paths_omitted=omitted.get(kernel, 0),
                type_expr=cand.type_expr,
                kernel_type=kernel,
                shared_storage=values["smem"] or None,
                stages=values["stages"] or None,
                max_threads=values["threads"] or None,
                tile=_shape(types["tile"]),
                cluster=_shape(types["cluster"]),
                dispatch_policy=types["policy"],
                elements=_elements(types),
                compile_error=error,
                built=built,
            )
        )
    return kernels


MAX_PATHS = 32
"""Dispatch paths listed per kernel; more are counted (`TuKernel.paths_omitted`) and the
report says how many were left out. vLLM's kernels have 1 to 3."""


def _built(
    aliases: dict[str, Any],
    index: int,
    values: dict[str, int],
    types: dict[str, str | None],
    cindex: Any,
) -> TuBuilt | None:
    """The builders that made candidate `index`'s kernel (builders.py), None for a kernel that
    is not a CollectiveBuilder-built `GemmUniversal` (no mainloop of that kind)."""
    if types["mainloop"] is None:
        return _built_2x(values, types)
    names = [f"cutlint_k{index}_w", *(f"cutlint_k{index}_s{t}" for t in SUGAR)]
    starts = [aliases[n].underlying_typedef_type for n in names if n in aliases]
    found = builders.find(starts, types["mainloop"], types["epilogue"], cindex)
    scales = (values["scale_m"], values["scale_n"], values["scale_k"])
    return TuBuilt(
        mainloop_builder=found.mainloop,
        epilogue_builder=found.epilogue,
        problem_shape=types["problem_shape"],
        tile_scheduler=types["scheduler_tag"],
        scale_granularity=scales if all(scales) else None,
    )


_ELEMENTS_2X = {"signed char": "int8_t", "unsigned char": "uint8_t", "int": "int32_t"}


def _built_2x(values: dict[str, int], types: dict[str, str | None]) -> TuBuilt | None:
    """A CUTLASS 2.x kernel with an epilogue visitor, its parts written as DefaultGemmUniversal's
    20 arguments (what the 2.x universal family reads) and its EpilogueVisitor; None for any
    other kernel. The epilogue's output op is written `LinearCombination<ElementC, kAlignmentC,
    ...>`: the output element and access width the visitor's OutputTileIterator (the base
    epilogue's) was built with, all its shared memory depends on."""
    parts = {t: types.get(t) for t in VISITOR_2X}
    if any(v is None for v in parts.values()) or not values.get("stages2x"):
        return None
    e = {k: _ELEMENTS_2X.get(v, v) for k, v in parts.items() if v is not None}
    none = "cutlass::ComplexTransform::kNone"
    args = (
        *(e["ea2x"], e["la2x"], none, str(values["align_a2x"])),
        *(e["eb2x"], e["lb2x"], none, str(values["align_b2x"])),
        *(e["ec2x"], e["lc2x"], e["acc2x"], e["opclass2x"], e["arch2x"]),
        *(e["tb2x"], e["warp2x"], e["inst2x"]),
        f"cutlass::epilogue::thread::LinearCombination<{e['ec2x']}, {values['align_c2x']}>",
        *(e["swizzle2x"], str(values["stages2x"]), e["mathop2x"], e["visitor2x"]),
    )
    return TuBuilt(
        mainloop_builder=None,
        epilogue_builder=None,
        problem_shape=None,
        tile_scheduler=None,
        visitor_kernel=args,
    )


def _a_part(cand: Candidate, ok: Sequence[Candidate], measured: dict[str, Any]) -> bool:
    """A kernel type written in the same function only to build another kernel from its parts:
    SGLang's convrot_int8 takes `typename GemmKernel_::Mma` and `GemmKernel_::Epilogue` of a
    CUTLASS 2.x `DefaultGemm<...>::GemmKernel` into the `GemmWithEpilogueVisitor` it launches.
    The other kernel's expression holds this one's, on a path from the same call."""
    if len(cand.path) < 2:
        return False  # named at namespace scope: the user's own choice of kernel
    own = re.compile(re.escape(cand.type_expr.removeprefix("typename ")) + r"(?!\w)")
    kernel = measured[cand.type_expr][0]
    return any(
        o is not cand
        and o.path[:-1] == cand.path[:-1]
        and measured[o.type_expr][0] != kernel
        and own.search(o.type_expr) is not None
        for o in ok
    )


def _prefix(shorter: Sequence[Any], longer: Sequence[Any]) -> bool:
    return len(shorter) < len(longer) and tuple(longer[: len(shorter)]) == tuple(shorter)


def _array_size(alias: Any) -> int:
    if alias is None:
        return 0
    size = int(alias.underlying_typedef_type.get_canonical().get_size())
    return max(size - 1, 0)


def _spelling(alias: Any) -> str | None:
    if alias is None:
        return None
    s = str(alias.underlying_typedef_type.get_canonical().spelling)
    return None if s == "void" else s


def _shape(spelling: str | None) -> str | None:
    """`cute::tuple<cute::C<128>, cute::C<64>, cute::C<128>>` -> `128x64x128`."""
    if spelling is None:
        return None
    ints = _INT.findall(spelling)
    return "x".join(ints) if ints else spelling


def _elements(types: dict[str, str | None]) -> str | None:
    a, b, d = types["element_a"], types["element_b"], types["element_d"]
    if a is None:
        return None
    short = [str(x).split("::")[-1] if x else "?" for x in (a, b, d)]
    return f"{short[0]} x {short[1]} -> {short[2]}"


__all__ = ["FrontEndError", "clang_args", "read_tu"]
