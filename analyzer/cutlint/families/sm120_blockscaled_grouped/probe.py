"""What `cutlint verify` builds for this family: the TMA warp-specialized MoE launcher probe the
three families of that macro share (cutlint.families.moe_macro_probe)."""

from cutlint.families.moe_macro_probe import (
    ANCHOR_FAST_BUILD_ELSE,
    ANCHOR_GEMM_GROUPED,
    ANCHOR_LAUNCHER_NAME,
    MACRO_NAME,
    PROBE_HELPERS_CPP,
    patch_launcher,
)

__all__ = [
    "ANCHOR_FAST_BUILD_ELSE",
    "ANCHOR_GEMM_GROUPED",
    "ANCHOR_LAUNCHER_NAME",
    "MACRO_NAME",
    "PROBE_HELPERS_CPP",
    "patch_launcher",
]
