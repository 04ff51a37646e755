"""Every tactic id of MoeGemmRunner's CUTLASS 2.x grouped runners on one arch, judged: what pregen
lists and blocks, and what explain reads a logged tactic id against.

For each runner kind the arch uses these kernels for (FP8 x FP8 through `cutlass::arch::Sm89`,
f16 and bf16 through `Sm80`), each id of the autotuner's profile list (tactics.py) gets:
- the unfused kernel's verdict (MoeFCGemm, "GroupedGEMM kernel"): GEMM 2, and GEMM 1 without a
  fused gated activation;
- for 16-bit GEMM 1, the fused kernel's (Fused_Moe_Kernel_sm80, "fused_moe kernel"), which runs
  for Swiglu/Geglu when gemm_n and gemm_k are multiples of 64;
- what the release's occupancy pre-filter does with it (0.7.x; none in 0.6.x).
The kernel's output type (f16 or bf16) changes only the epilogue, never the larger member: the
worse of the two is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.records import ArchLimits
from cutlint.runners.sm8x_grouped import model
from cutlint.runners.sm8x_grouped.tactics import (
    RunnerKind,
    RunnerTactic,
    runner_tactics,
    supported_sms,
    table,
)

KIND_LABELS = {
    RunnerKind.FP8: "FP8 x FP8 (e4m3, cutlass::arch::Sm89)",
    RunnerKind.F16: "f16 x f16 (cutlass::arch::Sm80)",
    RunnerKind.BF16: "bf16 x bf16 (cutlass::arch::Sm80)",
}
SOURCE = (
    "cutlass_heuristic.cpp get_candidate_configs; moe_gemm_template_dispatch.h getConfigs, "
    "genericMoeGemmKernelLauncher::call; flashinfer_cutlass_fused_moe_binding.cu mAllProfiles "
    "(runners/sm8x_grouped/data/tactics.toml)"
)


@dataclass(frozen=True)
class TacticReport:
    kind: RunnerKind
    tactic: RunnerTactic
    custom_op: str
    """The autotuned op of its GEMM (`trtllm::fused_moe::gemm1`)."""
    unfused: model.Verdict
    """The GroupedGEMM kernel, on either output type (the worse)."""
    fused: model.Verdict | None
    """The fused_moe kernel (16-bit GEMM 1 with a gated activation); None where it never runs."""
    prefilter: str | None
    """What the release's pre-filter does with the id, in words; None: no pre-filter."""

    @property
    def status(self) -> str:
        """`fails` (on every path it can take), `partly` (on one path), `runs`."""
        fails = [not self.unfused.fits] + ([not self.fused.fits] if self.fused else [])
        return "fails" if all(fails) else ("partly" if any(fails) else "runs")

    @property
    def reason(self) -> str:
        """The failure as the runner reports it, with the bytes, for each path that fails."""
        parts = []
        if not self.unfused.fits:
            parts.append(
                f"F: GroupedGEMM kernel needs {self.unfused.smem:,} B > {self.unfused.limit:,} B "
                f"({self.unfused.message})"
            )
        if self.fused is not None and not self.fused.fits:
            parts.append(
                f"F: fused_moe kernel (gated activation) needs {self.fused.smem:,} B > "
                f"{self.fused.limit:,} B ({self.fused.message})"
            )
        return "; ".join(parts)

    def verdict_text(self) -> str:
        def one(v: model.Verdict) -> str:
            return f"{'fits' if v.fits else 'fails'} ({v.smem:,} B)"

        text = f"GroupedGEMM {one(self.unfused)}"
        if self.fused is not None:
            text += f"; fused_moe (Swiglu/Geglu) {one(self.fused)}"
        return text


def kinds_on(sm: int) -> tuple[RunnerKind, ...]:
    """The runner kinds that use these kernels on device `sm`."""
    return tuple(k for k in RunnerKind if sm in supported_sms(k))


def known(version: str) -> bool:
    return version in table()["versions"]


def _worse(a: model.Verdict, b: model.Verdict) -> model.Verdict:
    return a if (not a.fits, a.smem) >= (not b.fits, b.smem) else b


def _prefilter(version: str, kind: RunnerKind, unfused_fits: bool) -> str | None:
    if not table()["versions"][version]["prefilter"]:
        return None
    if kind is RunnerKind.FP8:
        return "reports 0 (FP8 alpha check throws); the all-zero fallback keeps it"
    return "keeps it" if unfused_fits else "filters it out"


def reports(version: str, arch: ArchLimits, kind: RunnerKind) -> list[TacticReport]:
    """Every id of `kind`'s profile list on `arch`, judged. `version` must be `known`."""
    ops = table()["profiles"]["custom_ops"]
    out: list[TacticReport] = []
    for t in runner_tactics(arch.sm, kind):
        verdicts = [model.verdict(version, t, kind, o, arch) for o in model.Output]
        unfused = _worse(verdicts[0].run, verdicts[1].run)
        fused = None
        if kind is not RunnerKind.FP8 and t.gemm == int(table()["fused"]["gemm"]):
            fused = model.verdict(version, t, kind, model.Output.F16, arch, True).run
        prefilter = _prefilter(version, kind, unfused.fits)
        out.append(TacticReport(kind, t, ops[t.gemm - 1], unfused, fused, prefilter))
    return out


def by_id(version: str, arch: ArchLimits, tactic: int) -> list[TacticReport]:
    """What `tactic` names in each runner kind on `arch` (none where the id is beyond a list)."""
    found: list[TacticReport] = []
    for kind in kinds_on(arch.sm):
        found += [r for r in reports(version, arch, kind) if r.tactic.tactic == tactic]
    return found
