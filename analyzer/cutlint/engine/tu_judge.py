"""Verdicts for the kernels a translation unit instantiates (`cutlint tu`), from the measured
numbers alone: no family model explains them, so the messages say "measured (libclang)".

No false positives: a kernel clang could not instantiate in this reading (stubbed third-party
headers, a CUTLASS release other than the build's) is "not decidable", never "does not
compile"; a kernel whose `SharedStorage` has no size is "not decidable" too.
"""

from __future__ import annotations

from cutlint.engine.loader import rules_by_id
from cutlint.model.arch import arch_for
from cutlint.tu_records import TuFinding, TuKernel, TuRead, TuVerdict

FITS = "fits"
FAILS = "fails initialize()"
UNDECIDED = "not decidable"


def _finding(rule_id: str, message: str) -> TuFinding:
    rule = rules_by_id()[rule_id]
    return TuFinding(
        rule=rule.id, name=rule.name, severity=str(rule.severity.value), message=message
    )


def judge_kernel(kernel: TuKernel, arch: str) -> TuVerdict:
    limits = arch_for(arch)
    optin = limits.smem_optin
    if kernel.compile_error is not None or kernel.shared_storage is None:
        why = kernel.compile_error or "no SharedStorage size"
        note = _finding(
            "CUT212",
            f"libclang could not instantiate the kernel in this reading ({why}): not decidable",
        )
        return TuVerdict(
            kernel=kernel, arch=arch, smem_optin=optin, verdict=UNDECIDED, findings=(note,)
        )
    if kernel.shared_storage > optin:
        over = kernel.shared_storage - optin
        msg = (
            f"needs {kernel.shared_storage:,} B of shared memory (measured, libclang); "
            f"{limits.name} allows {optin:,} B per block (+{over:,} B)"
        )
        return TuVerdict(
            kernel=kernel,
            arch=arch,
            smem_optin=optin,
            verdict=FAILS,
            findings=(_finding("CUT211", msg),),
        )
    return TuVerdict(kernel=kernel, arch=arch, smem_optin=optin, verdict=FITS)


def judge(read: TuRead) -> tuple[TuVerdict, ...]:
    """Each kernel's verdict from its measured bytes, with the model of the family that claims
    it beside them (`tu_model.py`; None: measured, not explained)."""
    from cutlint.engine.tu_model import model

    return tuple(
        judge_kernel(k, read.arch).model_copy(update={"model": m})
        for k, m in zip(read.kernels, model(read), strict=True)
    )


__all__ = ["FAILS", "FITS", "UNDECIDED", "judge", "judge_kernel"]
