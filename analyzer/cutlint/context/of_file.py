"""What the stages after `check` (verify, explain, pregen) read of a file's resolved context:
the release that wrote it and the target it is compiled for. They read the record `check` put
on the file (FileResult.context) or resolve it here, never the file's path themselves, so that a
file says the same to every stage wherever it lies.
"""

from __future__ import annotations

from functools import lru_cache

from cutlint.build_context import BuildContext, BuildInfo, Request
from cutlint.context.resolve import resolve
from cutlint.sources import flashinfer_cache as cache_layout


def context_of(
    path: str,
    build: BuildContext | None = None,
    info: BuildInfo | None = None,
    request: Request | None = None,
) -> BuildContext:
    """`build` (the record `check` resolved), else the file's context resolved now."""
    if build is not None:
        return build
    if info is None and request is None:
        return _resolved(path)
    return resolve(path, info, request)


@lru_cache(maxsize=1 << 14)
def _resolved(path: str) -> BuildContext:
    """A stage asks of one file several times (its release, its target): resolved once."""
    return resolve(path)


def release_at(path: str, build: BuildContext | None = None) -> str | None:
    """`flashinfer_release` of the file's context."""
    return flashinfer_release(context_of(path, build))


def target_at(path: str, build: BuildContext | None = None) -> tuple[int, str] | None:
    """`compile_target` of the file's context."""
    return compile_target(path, context_of(path, build))


def flashinfer_release(build: BuildContext) -> str | None:
    """The FlashInfer release that wrote the file, from whatever origin said it."""
    if build.producer is None or build.producer.value != "flashinfer" or build.release is None:
        return None
    return build.release.value


def compile_target(path: str, build: BuildContext) -> tuple[int, str] | None:
    """(sm, suffix) of the one SASS target the file is compiled for: the compile command's
    (FlashInfer's JIT builds for the device it runs on: `-gencode=arch=compute_103a,
    code=sm_103a`), else the arch directory of FlashInfer's layout (one of the command's targets,
    when it has several); None where neither says one."""
    sass = {(t.sm, t.suffix) for t in build.targets.value if not t.ptx} if build.targets else set()
    if len(sass) == 1:
        return sass.pop()
    in_path = cache_layout.compile_target(path)
    # a multi-arch build: the arch directory says which of its targets the JIT's device loads
    return in_path if not sass or in_path in sass else None
