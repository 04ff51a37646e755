"""Text and JSON output of `cutlint verify`, and its exit code, from one shared result."""

from __future__ import annotations

import json

from cutlint.cli.commands.verify import exit_code
from cutlint.records import FormKind, Instantiation, SourceSpan
from cutlint.verify.report import render_json, render_text
from cutlint.verify.result import (
    CompilerNumbers,
    FileRun,
    Numbers,
    Status,
    Verified,
    VerifyResult,
    differences,
)

PATH = "/c/flashinfer/0.6.3/120a/generated/x.generated.cu"
COMPILER = CompilerNumbers(
    stages=3,
    smem_bytes=102400,
    mainloop_smem_bytes=83968,
    epilogue_smem_bytes=17408,
    max_threads_per_block=384,
    kernel_align=1024,
)
RIGHT = Numbers(**{f: getattr(COMPILER, f) for f in Numbers.model_fields})
WRONG = RIGHT.model_copy(update={"smem_bytes": 101376})


def inst(line: int) -> Instantiation:
    return Instantiation(
        span=SourceSpan(path=PATH, line=line, column=1, end_line=line),
        form=FormKind.MACRO_CALL,
        name="INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",
        args=("Sm120",),
    )


def verified(line: int, model: Numbers | None, status: Status, note: str | None = None) -> Verified:
    return Verified(
        instantiation=inst(line),
        flashinfer_version="0.6.3",
        status=status,
        model=model,
        compiler=COMPILER,
        differences=differences(model, COMPILER) if model else (),
        note=note,
    )


def result(*rows: Verified, error: str | None = None) -> VerifyResult:
    run = FileRun(
        path=PATH,
        flashinfer_version="0.6.3",
        headers="/h",
        instantiations=len(rows),
        compiled=True,
        seconds=27.1,
        cublas="shim",
        error=error,
    )
    return VerifyResult(instantiations=rows, files=(run,), nvcc="13.0.88", seconds=27.3)


AGREE = verified(11, RIGHT, Status.AGREE)
DISAGREE = verified(18, WRONG, Status.DISAGREE)
NOT_MODELED = verified(
    25, None, Status.NOT_MODELED, note="tile N = 64 < 128 needs CUTLASS >= 4.5.0"
)


def test_differences_name_the_field_and_sign() -> None:
    (d,) = differences(WRONG, COMPILER)
    assert (d.field, d.model, d.compiler, d.delta) == ("smem_bytes", 101376, 102400, 1024)


def test_text_shows_model_compiler_and_difference() -> None:
    text = render_text(result(AGREE, DISAGREE, NOT_MODELED))
    lines = text.splitlines()
    agree = next(ln for ln in lines if ln.lstrip().startswith("11 "))
    assert "102,400 / 102,400" in agree and agree.rstrip().endswith("agree")
    wrong = next(ln for ln in lines if ln.lstrip().startswith("18 "))
    assert "101,376 / 102,400  +1,024" in wrong and "DISAGREE: smem_bytes +1,024" in wrong
    assert "line 25: not modeled: tile N = 64" in text
    assert "1 of 2 compared instantiations agree with nvcc 13.0.88" in text
    assert "1 disagree; 1 not modeled" in text


def test_json_has_checks_fields_from_the_compiler_and_the_model_beside_them() -> None:
    data = json.loads(render_json(result(AGREE, DISAGREE, NOT_MODELED)))
    assert data["schema_version"] == 1 and data["command"] == "verify"
    a, d, n = data["instantiations"]
    assert (a["path"], a["line"], a["stages"], a["smem_bytes"]) == (PATH, 11, 3, 102400)
    assert a["agree"] is True and a["model"]["smem_bytes"] == 102400
    assert d["agree"] is False and d["model"]["smem_bytes"] == 101376 and d["smem_bytes"] == 102400
    assert d["differences"] == [
        {"field": "smem_bytes", "model": 101376, "compiler": 102400, "difference": 1024}
    ]
    assert n["agree"] is False and n["model"] is None and n["status"] == "not modeled"
    assert data["summary"]["by_status"] == {"agree": 1, "disagree": 1, "not modeled": 1}
    assert data["files"][0]["cublas"] == "shim"


def test_exit_codes() -> None:
    assert exit_code(result(AGREE, NOT_MODELED)) == 0
    assert exit_code(result(AGREE, DISAGREE)) == 1
    assert exit_code(result(AGREE, error="compiling x failed")) == 2
    error = verified(32, RIGHT, Status.ERROR, note="compiling x failed")
    assert exit_code(result(AGREE, DISAGREE, error)) == 2
    assert exit_code(result(NOT_MODELED)) == 2, "nothing compared is not a pass"
