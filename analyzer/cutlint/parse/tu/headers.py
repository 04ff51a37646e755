"""Headers a translation unit includes that the checker does not have (torch, for vLLM).

A missing `#include` is a fatal error in clang: nothing after it is instantiated. So before the
parse, the TU's own files are scanned for their includes, and each one that no include directory
holds gets an empty stub on a directory searched last. What the stub leaves undeclared (the
`torch::Tensor` of a signature) becomes an ordinary error in a function body, which the kernel
types do not depend on; the front end reads those types from the template patterns and asks clang
for them on their own (`probe.py`). The output names every stubbed header.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)

# The compiler's own headers (C and C++ standard library): never stubbed, never scanned.
_SYSTEM_GLOBS = (
    "/usr/include",
    "/usr/local/include",
    "/usr/include/c++/*",
    "/usr/include/x86_64-linux-gnu",
    "/usr/include/x86_64-linux-gnu/c++/*",
    "/usr/include/aarch64-linux-gnu",
    "/usr/include/aarch64-linux-gnu/c++/*",
    "/usr/lib/gcc/*/*/include",
)


def system_dirs() -> list[Path]:
    return [Path(p) for g in _SYSTEM_GLOBS for p in sorted(glob.glob(g))]


def include_dirs(args: Sequence[str]) -> list[Path]:
    """-I, -isystem, -iquote and -idirafter directories, in order."""
    out: list[Path] = []
    it = iter(args)
    for a in it:
        if a in ("-I", "-isystem", "-iquote", "-idirafter"):
            out.append(Path(next(it, "")))
        elif a.startswith("-I") and len(a) > 2:
            out.append(Path(a[2:]))
    return out


def _is_vendor(directory: Path) -> bool:
    """A directory of a complete library (CUTLASS, CUDA): its own includes are not scanned."""
    return (directory / "cutlass" / "cutlass.h").is_file() or (
        directory / "cuda_runtime.h"
    ).is_file()


def missing_headers(main: Path, dirs: Sequence[Path], extra: Iterable[Path] = ()) -> list[str]:
    """The include names, in first-seen order, that neither the including file's directory nor
    `dirs`, `extra` or the system holds; only the TU's own files (not CUTLASS's or CUDA's) are
    followed, since those libraries are complete."""
    search = [*dirs, *extra]
    vendor = [d.resolve() for d in search if _is_vendor(d)]
    system = system_dirs()
    seen: set[Path] = set()
    missing: dict[str, None] = {}
    todo = [main.resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_bytes()
        except OSError:
            continue
        for m in _INCLUDE.finditer(text):
            name = m.group(2).decode("utf-8", "replace").strip()
            local = [path.parent] if m.group(1) == b'"' else []
            found = next((d / name for d in [*local, *search] if (d / name).is_file()), None)
            if found is None:
                if not any((d / name).is_file() for d in system):
                    missing[name] = None
                continue
            resolved = found.resolve()
            if not any(resolved.is_relative_to(v) for v in vendor):
                todo.append(resolved)
    return list(missing)


def library_includes(main: Path, dirs: Sequence[Path], extra: Iterable[Path] = ()) -> list[str]:
    """The CUTLASS, CUDA and standard headers the TU's own files include, in the order a
    preprocessor first meets them (depth first from `main`), each as an `#include` operand: what
    `front.py` parses ahead of the TU's own files, as its precompiled preamble. A library header
    is named by its resolved path; a system one by its name (`<optional>`), so that its
    `#include_next` searches as it would."""
    search = [*dirs, *extra]
    vendor = [d.resolve() for d in search if _is_vendor(d)]
    system = system_dirs()
    seen: set[Path] = set()
    out: dict[str, None] = {}

    def visit(path: Path) -> None:
        seen.add(path)
        try:
            text = path.read_bytes()
        except OSError:
            return
        for m in _INCLUDE.finditer(text):
            name = m.group(2).decode("utf-8", "replace").strip()
            local = [path.parent] if m.group(1) == b'"' else []
            found = next((d / name for d in [*local, *search] if (d / name).is_file()), None)
            if found is None:
                if m.group(1) == b"<" and any((d / name).is_file() for d in system):
                    out.setdefault(f"<{name}>")
                continue
            resolved = found.resolve()
            if any(resolved.is_relative_to(v) for v in vendor):
                out.setdefault(f'"{resolved}"')
            elif resolved not in seen:
                visit(resolved)

    visit(main.resolve())
    return list(out)


# A third-party header brings the standard library with it: code that includes only torch's
# headers uses std::optional and std::vector without including them.
STUB_STD = ("optional", "vector", "string", "cstdint", "memory", "functional", "utility")

# Libraries whose stubs also declare what the TU's own headers name from them (data/).
_DECLARED = {
    "torch/": "cutlint_torch.h",
    "ATen/": "cutlint_torch.h",
    "c10/": "cutlint_torch.h",
    "cublas": "cutlint_cublas.h",
    "curand": "cutlint_curand.h",
}


def write_stubs(names: Iterable[str], stub_dir: Path) -> None:
    data = resources.files("cutlint.parse.tu").joinpath("data")
    for name in names:
        path = stub_dir / name
        if not path.resolve().is_relative_to(stub_dir.resolve()):
            continue  # `#include "../x"`: nothing to stub outside the stub directory
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["#pragma once", "/* cutlint: stub for a header the build has, not here */"]
        lines += [f"#include <{h}>" for h in STUB_STD]
        declared = next((f for p, f in _DECLARED.items() if name.startswith(p)), None)
        if declared is not None:
            shared = stub_dir / declared
            if not shared.exists():
                shared.write_text(data.joinpath(declared).read_text())
            lines.append(f'#include "{shared}"')
        path.write_text("\n".join(lines) + "\n")


__all__ = [
    "STUB_STD",
    "include_dirs",
    "library_includes",
    "missing_headers",
    "system_dirs",
    "write_stubs",
]
