"""The names of the instantiation macros the producers cutlint reads define, and what is one
character away from one of them.

Text, not meaning, so it sits on the floor below the parser: the parser looks for calls of these
names spelled with one character changed, added or dropped (the `INSTANTIATE_` prefix included,
which its own search for macro calls needs intact), and `producers/forms.py` names such a call
(CUT018) when no `#define` of it is in sight.
"""

from __future__ import annotations

PRODUCER_MACROS = (
    # TensorRT-LLM's fused-MoE launcher macro, as FlashInfer's generator writes it
    # (moe_gemm_tma_ws_launcher.inl); FlashInfer's JIT-rendered GEMM modules
    # (flashinfer/data/csrc/*.jinja, gemm/*_template_sm1xx.h); TensorRT-LLM's FP4 launchers.
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",
    "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER_SM120",
    "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER",
    "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120",
    "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120",
    "INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC",
    "INSTANTIATE_TGV_GEMM_HOST_BF16_BF16",
    "INSTANTIATE_TGV_GEMM_HOST_FP16_FP16",
    "INSTANCE_BF16_GEMM_TEMPLATE_SM100",
    "INSTANCE_FP8_GEMM_TEMPLATE_SM100",
)
"""A call one character away from one of these, with no `#define` of its own in sight, is a
misspelling (CUT018)."""

TAIL = 8
"""The last characters of a name that the parser searches for. One edit lands either in them
(then the name's first 12 characters, its `INSTANTIATE_` or `INSTANCE_` prefix, are intact and
the parser's search for the prefix finds the call) or before them (then they are intact): every
name is longer than 12 + TAIL characters."""

TAILS: dict[bytes, tuple[str, ...]] = {}
"""Each name's last TAIL characters, and the names that end so."""
for _name in PRODUCER_MACROS:
    TAILS.setdefault(_name[-TAIL:].encode(), ())
    TAILS[_name[-TAIL:].encode()] += (_name,)
del _name

LENGTHS = range(min(map(len, PRODUCER_MACROS)) - 1, max(map(len, PRODUCER_MACROS)) + 2)
"""The lengths a name one edit from a producer macro can have."""


def misspelled(name: str) -> str | None:
    """The producer macro `name` is one edit (a character changed, added or dropped) away from,
    when it is not one itself; as clang's typo correction offers "did you mean"."""
    if name in PRODUCER_MACROS or len(name) not in LENGTHS:
        return None
    for known in PRODUCER_MACROS:
        if one_edit(name, known):
            return known
    return None


def one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by exactly one character changed, added or dropped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]
