"""Reading what the probe executable printed, and pairing each record with its macro call."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cutlint.families.probe import (
    MacroCall,
    PatchError,
    find_macro_calls,
    normalize_arg,
    read_records,
)
from cutlint.producers.trtllm.moe_macro import MACRO as MACRO_NAME
from cutlint.verify.probe_records import ProbeError, ProbeRow

# Prefix of the lines the probe executable prints (put_head() in families/data/moe_macro_probe_helpers.hpp);
# anything else on stdout is ignored.
OUTPUT_TAG = "CUTLINT_PROBE "


def moe_macro_calls(source: str) -> list[MacroCall]:
    """The INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM calls of a generated file (ProbeError for
    one whose parentheses do not close)."""
    try:
        return find_macro_calls(source, MACRO_NAME)
    except PatchError as e:
        raise ProbeError(str(e)) from e


def parse_output(stdout: str) -> list[dict[str, object]]:
    try:
        return read_records(stdout, OUTPUT_TAG)
    except PatchError as e:  # malformed JSON
        raise ProbeError(str(e)) from e


def _as_int(record: dict[str, object], key: str) -> int:
    value = record.get(key)
    if not isinstance(value, int):
        raise ProbeError(f"probe record lacks integer {key!r}: {record}")
    return value


def _members(record: dict[str, object]) -> dict[str, int]:
    raw = record.get("members", {})
    if not isinstance(raw, dict):
        raise ProbeError(f"probe record has malformed members: {record}")
    return {str(k): int(v) for k, v in raw.items()}


def match_rows(
    path: Path, calls: Sequence[MacroCall], records: Sequence[dict[str, object]]
) -> list[ProbeRow]:
    """Pair each printed record with a macro call: by args, then by nearest __LINE__."""
    remaining = list(calls)
    rows: list[ProbeRow] = []
    errors: list[str] = []
    for rec in records:
        raw_args = rec.get("args")
        if not isinstance(raw_args, list):
            raise ProbeError(f"probe record lacks args: {rec}")
        args = tuple(normalize_arg(str(a)) for a in raw_args)
        printed_line = _as_int(rec, "line")
        candidates = [c for c in remaining if c.args == args]
        if not candidates:
            raise ProbeError(f"probe reported an instantiation not found in {path}: {args}")
        call = min(candidates, key=lambda c: abs(c.line - printed_line))
        remaining.remove(call)
        if rec.get("status") != "ok":
            errors.append(f"line {call.line} {', '.join(args)}: {rec.get('error')}")
            continue
        rows.append(
            ProbeRow(
                path=str(path),
                line=call.line,
                args=args,
                stages=_as_int(rec, "stages"),
                mainloop_smem=_as_int(rec, "mainloop_smem"),
                epilogue_smem=_as_int(rec, "epilogue_smem"),
                kernel_smem=_as_int(rec, "kernel_smem"),
                kernel_align=_as_int(rec, "kernel_align"),
                max_threads_per_block=_as_int(rec, "max_threads_per_block"),
                members=_members(rec),
            )
        )
    if remaining:
        # Calls under #if guards that are off in this build legitimately print nothing; every
        # generated SM120 call is guarded by ENABLE_FP4, which the SM120 flags turn on.
        missing = "; ".join(f"line {c.line}" for c in remaining)
        errors.append(f"no report for {len(remaining)} call(s): {missing}")
    if errors:
        raise ProbeError(f"probe of {path} incomplete:\n" + "\n".join(errors), rows=rows)
    rows.sort(key=lambda r: r.line)
    return rows


__all__ = ["MACRO_NAME", "OUTPUT_TAG", "match_rows", "moe_macro_calls", "parse_output"]
