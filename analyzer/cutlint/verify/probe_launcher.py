"""The launcher the MoE-macro probe patches: the one whose `#define` check read the calls by.

check reads each macro call by the `#define` its build reaches (cutlint.context.macros: the file,
a header beside it, the compile command's include path, the producer's vendored tree). The probe
must build the calls by the same definition, or its numbers answer another question: it patches
that launcher when the definition is one (its file name), else the headers' launcher when its
parameter list is the same, and otherwise says why it cannot (the file's probe is an error).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cutlint.records import FileResult, InstantiationResult
from cutlint.verify.headers import Headers
from cutlint.verify.nvcc_probe import LAUNCHER_REL, MACRO_NAME

_DEFINE = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+{MACRO_NAME}[ \t]*\(([^)]*)\)", re.MULTILINE)


def _parameters(launcher: Path) -> tuple[str, ...] | None:
    m = _DEFINE.search(launcher.read_text(errors="replace"))
    if m is None:
        return None
    return tuple(p.strip() for p in m[1].replace("\\", " ").split(",") if p.strip())


def launcher_of(
    f: FileResult, headers: Headers, probed: Callable[[InstantiationResult], bool]
) -> tuple[Path | None, str | None]:
    """(the launcher to patch, when the file's build reaches another than the headers'; why the
    probe cannot build the calls by check's #define). check read each macro call by the #define
    its build reaches (cutlint.context.macros: the file, a header beside it, its include path),
    and the probe must build it by the same: that launcher, patched, where it is one (its
    name); else the headers' launcher, when its parameter list is the same."""
    read_by = {
        (r.instantiation.defined_at, r.instantiation.parameters)
        for r in f.instantiations
        if probed(r) and r.instantiation.defined_at and r.instantiation.parameters
    }
    if not read_by:
        return None, None  # read by the release's list (no #define in reach), as the probe
    if len(read_by) > 1:
        return None, f"its calls were read by {len(read_by)} #defines: {sorted(read_by)}"
    ((at, params),) = read_by
    assert at is not None and params is not None
    header = Path(at.rsplit(":", 1)[0])
    if header.name == Path(LAUNCHER_REL).name and header.is_file():
        # the headers' own, or a copy byte for byte (another unpacked wheel of the release):
        # the headers' is patched, so that its cache keys and include tree stay as they were
        same = header.resolve() == headers.launcher.resolve() or (
            headers.launcher.is_file() and header.read_bytes() == headers.launcher.read_bytes()
        )
        return (None if same else header), None
    if headers.launcher.is_file() and _parameters(headers.launcher) != params:
        return None, (
            f"check read its calls by the #define at {at} ({len(params)} parameters), the "
            f"launcher the probe would patch defines another ({headers.launcher}); give the "
            "build's launcher (its include path) or --headers of the release it is"
        )
    return None, None
