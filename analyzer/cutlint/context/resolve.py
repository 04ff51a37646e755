"""`resolve`: one file's build context, each field from the strongest evidence at hand."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path, PurePath

from cutlint.build_context import BuildContext, BuildInfo, Origin, Request, Sourced
from cutlint.context import build_files, headers, packages, sglang_jit
from cutlint.context.command import CompileCommand, parse_command
from cutlint.context.gpus import gpu_sm
from cutlint.identity import ByIdentity
from cutlint.sources import cutlass_library_files
from cutlint.sources import flashinfer_cache as cache_layout

DEFAULT_GPU = 120
"""The GPU when nothing says which: sm_120 (engine/options.py DEFAULT_ARCH), always guessed."""


def device_sm(spec: str) -> int | None:
    """`sm_120`, `sm120a`, `120`, `12.0` or a GPU name (`rtx-5090`) -> 120; None if neither."""
    import re

    m = re.fullmatch(r"(?:sm_?|compute_?)?(\d{2,3})(?:\.(\d))?[af]?", spec.strip().lower())
    if m:
        return int(m[1]) * 10 + int(m[2]) if m[2] is not None else int(m[1])
    return gpu_sm(spec)


def compile_command(path: str, build: BuildInfo | None) -> CompileCommand | None:
    """The command that compiles `path`: the user's `--compile-command`, else its entry in the
    `-p` database or in a compile_commands.json in a directory above it (as clangd looks), else
    FlashInfer's JIT build file beside its `generated/` directory."""
    if build is not None and build.command:
        return parse_command(build.command, "--compile-command", os.getcwd())
    absolute = os.path.abspath(path)
    if build is not None and build.database:
        found = build_files.from_database(Path(build.database), absolute)
        if found is not None:
            return found
    db = build_files.database_above(os.path.dirname(absolute))
    if db is not None:
        found = build_files.entry_in(db, absolute)
        if found is not None:
            return found
    return build_files.from_flashinfer_build(path)


def _gpu(path: str, request: Request, cmd: CompileCommand | None) -> Sourced[int]:
    if request.gpu is not None:
        said = _option_gpu(request.gpu)
        if said is not None:
            return said
    if cmd is not None:
        built = _command_gpu(cmd)
        if built is not None:
            return built
    sm = cache_layout.generated_for_sm(path)
    if sm is not None:
        return Sourced(value=sm, origin=Origin.LAYOUT, where="the file's path")
    return Sourced(value=DEFAULT_GPU, origin=Origin.DEFAULT, where="cutlint's default (sm_120)")


@lru_cache(maxsize=256)
def _option_gpu(spec: str) -> Sourced[int] | None:
    """The GPU `--arch` names (asked for every file of a run: read once)."""
    sm = device_sm(spec)
    return (
        Sourced(value=sm, origin=Origin.OPTION, where=f"--arch {spec}") if sm is not None else None
    )


def _command_gpu(cmd: CompileCommand) -> Sourced[int] | None:
    """The one GPU a command builds SASS for (FlashInfer's JIT builds for the device it runs
    on), if it builds for one; the files of one build share their command (one record: kept
    by its identity, since hashing a pydantic record hashes all its fields, every file)."""
    return _COMMAND_GPU.get(cmd, lambda: _sass_gpu(cmd))


def _sass_gpu(cmd: CompileCommand) -> Sourced[int] | None:
    sass = {t.sm for t in cmd.targets if not t.ptx}
    if len(sass) == 1:
        return Sourced(value=sass.pop(), origin=Origin.COMMAND, where=cmd.where)
    return None


_COMMAND_GPU: ByIdentity[Sourced[int] | None] = ByIdentity(bound=4096)


def _installed_for(
    path: str, in_path: str | None, site: tuple[str, ...], text: _Text
) -> packages.Installed | None:
    """The installed producer package that says the file's release: FlashInfer's for a file of
    its JIT cache layout whose version directory, if any, agrees with it (the JIT writes under
    its own version: a cache of another release was written by another install); TensorRT-LLM's
    for a file of its source tree (a `tensorrt_llm` directory above it); SGLang's for a source
    of its JIT (asked only where SGLang is installed: the file's text is read for it)."""
    parts = PurePath(os.path.abspath(path)).parts
    in_layout = (
        in_path is not None
        or "cutlass_instantiations" in parts
        or cache_layout.jit_module_dir(path) is not None
    )
    if in_layout:
        pkg = packages.installed_producer("flashinfer", site)
        if pkg is not None and in_path in (None, pkg.version):
            return pkg
        return None
    if "tensorrt_llm" in parts[:-1]:
        return packages.installed_producer("tensorrt_llm", site)
    sglang = packages.installed_producer("sglang", site)
    if sglang is not None and text.jit_source(path) is not None:
        return sglang
    return None


def _release(
    path: str, request: Request, dirs: tuple[str, ...], site: tuple[str, ...], text: _Text
) -> tuple[Sourced[str], Sourced[str]] | None:
    """(producer, release)."""
    if request.release is not None:
        where = "--flashinfer-version"
        return (
            Sourced(value="flashinfer", origin=Origin.OPTION, where=where),
            Sourced(value=request.release, origin=Origin.OPTION, where=where),
        )
    # the producer's version file above the file's directory or an include directory
    found = headers.producer_release((os.path.dirname(os.path.abspath(path)), *dirs))
    if found is not None:
        producer, version, where = found
        return (
            Sourced(value=producer, origin=Origin.HEADER, where=where),
            Sourced(value=version, origin=Origin.HEADER, where=where),
        )
    in_path = cache_layout.flashinfer_version(path)
    pkg = _installed_for(path, in_path, site, text)
    if pkg is not None:
        return (
            Sourced(value=pkg.producer, origin=Origin.PACKAGE, where=pkg.where),
            Sourced(value=pkg.version, origin=Origin.PACKAGE, where=pkg.where),
        )
    if in_path is not None:
        # The JIT cache directory is named by the release that wrote it (flashinfer/jit/env.py:
        # FLASHINFER_CACHE_DIR / <version>), so it outranks an installed package here.
        where = "the file's path (FlashInfer's JIT cache layout)"
        return (
            Sourced(value="flashinfer", origin=Origin.LAYOUT, where=where),
            Sourced(value=in_path, origin=Origin.LAYOUT, where=where),
        )
    return None


def _cutlass(
    path: str,
    request: Request,
    dirs: tuple[str, ...],
    producer: str | None,
    release: Sourced[str] | None = None,
    site: tuple[str, ...] = (),
) -> tuple[Sourced[str], Sourced[str] | None] | None:
    """(CUTLASS version, include dir) from the flag, the include path, the package the file
    lies in, or the installed nvidia-cutlass for a cutlass_library build; None: the producer's
    release data decides (the engine's table of vendored versions)."""
    if request.cutlass_version is not None:
        where = "--cutlass-version"
        if build_files.is_dir(Path(request.cutlass_version)):
            on = headers.cutlass_on_path([request.cutlass_version])
            if on is not None:
                inc: Sourced[str] = Sourced(value=on[1], origin=Origin.OPTION, where=where)
                return Sourced(value=on[0], origin=Origin.OPTION, where=where), inc
        return Sourced(value=request.cutlass_version, origin=Origin.OPTION, where=where), None
    on = headers.cutlass_on_path(dirs) or headers.cutlass_in_package(path)
    if on is not None:
        where = str(Path(on[1]) / "cutlass" / "version.h")
        return (
            Sourced(value=on[0], origin=Origin.HEADER, where=where),
            Sourced(value=on[1], origin=Origin.HEADER, where=where),
        )
    if release is not None and release.origin is Origin.PACKAGE and producer is not None:
        pkg = packages.installed_producer(producer, site)
        if pkg is not None and pkg.cutlass is not None:
            vendored, include = pkg.cutlass
            where = str(Path(include) / "cutlass" / "version.h")
            return (
                Sourced(value=vendored, origin=Origin.PACKAGE, where=where),
                Sourced(value=include, origin=Origin.PACKAGE, where=where),
            )
    if producer == "sglang":
        # SGLang's JIT takes CUTLASS from the installed FlashInfer (its `cutlass` dependency:
        # sglang/kernels/jit/utils/deps.py get_cutlass_include_paths).
        fi = packages.installed_producer("flashinfer", site)
        if fi is not None and fi.cutlass is not None:
            vendored, include = fi.cutlass
            where = f"{Path(include) / 'cutlass' / 'version.h'} (SGLang's JIT's cutlass dependency)"
            return (
                Sourced(value=vendored, origin=Origin.PACKAGE, where=where),
                Sourced(value=include, origin=Origin.PACKAGE, where=where),
            )
    if producer == "cutlass_library":
        v = packages.installed("nvidia-cutlass", site)
        if v is not None:
            where = f"nvidia-cutlass {v} (installed)"
            version = packages.cutlass_of_nvidia_cutlass(v)
            return Sourced(value=version, origin=Origin.PACKAGE, where=where), None
    return None


def _jit_module(path: str, cmd: CompileCommand | None) -> Sourced[str] | None:
    if cmd is not None and PurePath(cmd.where).name == "build.ninja":
        return Sourced(
            value=PurePath(cmd.where).parent.name, origin=Origin.COMMAND, where=cmd.where
        )
    module = cache_layout.jit_module_dir(path)
    if module is not None:
        return Sourced(value=module, origin=Origin.LAYOUT, where="the file's path")
    return None


DIRECTORY_MEMO = True
"""Whether files of one directory built by one command share their resolution (a test turns it
off to hold the answers to a resolution of each file on its own)."""

_SHARED: dict[tuple[object, ...], BuildContext] = {}
"""(directory as given, working directory for a relative one, name if it counts, compile
command, GPU, request, site) -> the context resolved for the first such file."""

_NAMES_READ = frozenset({"generated", "cutlass_instantiations"})
"""Directory names of FlashInfer's layout that the layout reads among a path's parts
(sources/flashinfer_cache.py flashinfer_version, `_installed_for`), the file's own name with
them: a file so named keys its own resolution."""


def resolve(
    path: str, build: BuildInfo | None = None, request: Request | None = None
) -> BuildContext:
    """The build context of the file at `path`.

    What is the file's own is resolved for it: its compile command (its database entry, its
    build file's line), the GPU that command or its name says, and its text where SGLang's JIT
    is asked about. Everything else is a fact of its directory and the directories above it
    (the producer's version file, the installed packages, the CUTLASS headers, the layout's
    directory names), so files of one directory compiled by one command share one resolution
    and one record; a resolution that read the file's text is its own."""
    request = request or Request()
    cmd = compile_command(path, build)
    gpu = _gpu(path, request, cmd)
    site = build.site_packages if build is not None else ()
    if not DIRECTORY_MEMO:
        return _resolve(path, request, cmd, gpu, site, _Text())
    head, name = os.path.split(path)
    cwd = "" if os.path.isabs(head) else os.getcwd()
    named = name if name in _NAMES_READ else ""
    key: tuple[object, ...] = (head, cwd, named, cmd, gpu, request, site)
    found = _SHARED.get(key)
    if found is _BY_TEXT:  # resolved here by what each file's text says: the same, read now
        key += (sglang_jit.by_its_includes(path) is not None,)
        found = _SHARED.get(key)
    if found is None:
        text = _Text()
        found = _resolve(path, request, cmd, gpu, site, text)
        if len(_SHARED) >= 1 << 16:
            _SHARED.clear()
        if text.says is not None and len(key) == 7:
            _SHARED[key] = _BY_TEXT
            key += (text.says,)
        _SHARED[key] = found
    return found


_BY_TEXT = BuildContext()
"""Marks a key whose resolution read the file's text: each answer is kept under the key and
what the text said."""


class _Text:
    """What the resolution read of the file's own text: whether it includes SGLang's JIT
    headers, or None where it was not read (the file's directory decided)."""

    def __init__(self) -> None:
        self.says: bool | None = None

    def jit_source(self, path: str) -> sglang_jit.JitSource | None:
        found = sglang_jit.in_jit_tree(path)
        if found is None:
            found = sglang_jit.by_its_includes(path)
            self.says = found is not None
        return found


def _resolve(
    path: str,
    request: Request,
    cmd: CompileCommand | None,
    gpu: Sourced[int],
    site: tuple[str, ...],
    text: _Text,
) -> BuildContext:
    dirs = cmd.include_dirs if cmd is not None else ()
    released = _release(path, request, dirs, site, text)
    producer = released[0] if released else None
    if producer is None and cutlass_library_files.in_build(path):
        producer = Sourced(value="cutlass_library", origin=Origin.LAYOUT, where="the file's path")
    if producer is None and cmd is None:
        jit = text.jit_source(path)
        if jit is not None:  # an SGLang JIT source of no known release
            producer = Sourced(value="sglang", origin=Origin.HEADER, where=jit.why)
    cutlass = _cutlass(
        path,
        request,
        dirs,
        producer.value if producer else None,
        released[1] if released else None,
        site,
    )
    return BuildContext(
        targets=Sourced(value=cmd.targets, origin=Origin.COMMAND, where=cmd.where)
        if cmd is not None and cmd.targets
        else None,
        gpu=gpu,
        cutlass_version=cutlass[0] if cutlass else None,
        cutlass_include=cutlass[1] if cutlass else None,
        producer=producer,
        release=released[1] if released else None,
        jit_module=_jit_module(path, cmd),
        defines=Sourced(value=cmd.defines, origin=Origin.COMMAND, where=cmd.where)
        if cmd is not None
        else None,
        include_path=Sourced(value=cmd.include_dirs, origin=Origin.COMMAND, where=cmd.where)
        if cmd is not None and cmd.include_dirs
        else None,
    )
