"""The recorded vLLM 0.34.0 TU kernels (tests/data/nvcc_tu_vllm_truth.json) as a read of their
TU gives them, for tests that need real kernels with neither libclang nor a compiler: the builders
clang resolved, nvcc's numbers as the measurement, an include directory of the recorded CUTLASS
release (whose `cutlass/version.h` the family claims read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cutlint.tu_records import CallSite, CompileCommand, TuBuilt, TuKernel, TuRead

TRUTH = Path(__file__).resolve().parents[1] / "data" / "nvcc_tu_vllm_truth.json"


def truth() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TRUTH.read_text())
    return data


def truth_read(entry: dict[str, Any], include: Path, version: str | None = None) -> TuRead:
    """One recorded TU's kernels as a read; `version` defaults to the recorded CUTLASS."""
    data = truth()
    version = version or data["cutlass"].split()[0]
    (include / "cutlass").mkdir(parents=True, exist_ok=True)
    major, minor, patch = version.split(".")
    (include / "cutlass" / "version.h").write_text(
        f"#define CUTLASS_MAJOR {major}\n#define CUTLASS_MINOR {minor}\n"
        f"#define CUTLASS_PATCH {patch}\n"
    )
    kernels = tuple(
        TuKernel(
            paths=_paths(entry["file"], k),
            type_expr=k["type_expr"],
            kernel_type=k["type_expr"],
            shared_storage=k["nvcc"]["shared_storage"],
            stages=k["nvcc"]["stages"],
            tile=k["tile"],
            cluster=k["cluster"],
            dispatch_policy=None,
            elements=k["elements"],
            max_threads=None,
            built=TuBuilt.model_validate(k["built"]) if k.get("built") else None,
        )
        for k in entry["kernels"]
    )
    command = CompileCommand(file=entry["file"], args=(f"-I{include}",), arches=(), origin="flags")
    arch = "sm_" + entry["arch"].replace(".", "")
    return TuRead(command=command, arch=arch, kernels=kernels, missing_headers=(), seconds=0.0)


def _paths(file: str, k: dict[str, Any]) -> tuple[tuple[CallSite, ...], ...]:
    """The recorded dispatch paths (one site each: the line that chose the kernel, under the
    path's conditions); rows recorded without them get one path at line 1."""
    line = k.get("line", 1)
    conditions = k.get("dispatch") or [[]]
    return tuple(
        (CallSite(path=file, line=line, call="f<G>()", conditions=tuple(c)),) for c in conditions
    )


def entry_for(name: str) -> dict[str, Any]:
    """The recorded TU whose file name is `name`."""
    return next(f for f in truth()["files"] if Path(f["file"]).name == name)
