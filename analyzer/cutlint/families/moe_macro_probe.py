"""What `cutlint verify` builds for the three families of TensorRT-LLM's TMA warp-specialized MoE
macro (`tma-ws-moe-launcher`: sm120-blockscaled-grouped, sm90- and sm100-tma-ws-grouped): the
probe copy of FlashInfer's launcher `.inl`, the real file patched at four anchors.

Everything up to ``using GemmGrouped = ...;`` is kept byte for byte; the run-time part after it
becomes a call that prints the kernel's compile-time numbers; each macro expansion also registers
a static object that calls the launcher once at program start (cutlint.verify.nvcc_probe has the
reasons and runs it). The C++ that does the printing is data/probe_print.hpp and
data/moe_macro_probe_helpers.hpp. The registry maps the three families' probe to this module
(registry.SHARED_PROBES); it imports no `cutlint.verify`, and its errors are PatchError.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from cutlint.families.probe import PRINT_HPP, PatchError, require
from cutlint.families.probe import absolutize_includes as _absolutize_includes
from cutlint.producers.trtllm.moe_macro import MACRO as MACRO_NAME

# C++ appended to the end of the patched launcher. Macro bodies are looked up where the macro
# is expanded (the generated file, after this include), so helpers at the end are visible there.
# Its bytes are part of the cache's probe method hash (cutlint.verify.cache): an edit, even to a
# comment, invalidates every cached result.
PROBE_HELPERS_CPP = (
    "\n"
    + PRINT_HPP
    + (  # the newline: a blank line after the launcher's text
        resources.files("cutlint.families")
        .joinpath("data", "moe_macro_probe_helpers.hpp")
        .read_text(encoding="utf-8")
    )
)


# Patch anchors, in the order they must appear inside the macro body.
# 2: the function the macro defines; its ##-pasted name is reused for the static registrar.
ANCHOR_LAUNCHER_NAME = re.compile(
    r"static\s+void\s*(?:\\\s*)?"
    r"(tma_warp_specialized_generic_moe_gemm_kernelLauncher_[\w#]+)\s*\("
)
# 3: the last type definition; kept, with everything before it, byte for byte.
ANCHOR_GEMM_GROUPED = re.compile(r"using\s+GemmGrouped\s*=[^;]*;[^\n]*\n")
# 4: the end of the run-time part; kept, with everything after it.
ANCHOR_FAST_BUILD_ELSE = re.compile(
    r"^[ \t]*\}\s*else\s*\{\s*\\\s*\n\s*"
    r'TLLM_THROW\(\s*"Configuration was disabled by FAST_BUILD"\s*\)\s*;',
    flags=re.MULTILINE,
)


def _macro_span(text: str, launcher: Path) -> tuple[int, int]:
    """Offsets of the #define of the macro up to the end of its last continuation line."""
    m = require(
        re.search(rf"^[ \t]*#[ \t]*define[ \t]+{MACRO_NAME}[ \t]*\(", text, flags=re.MULTILINE),
        f"#define {MACRO_NAME}(",
        launcher,
    )
    pos = m.start()
    while True:
        eol = text.find("\n", pos)
        if eol < 0:
            return m.start(), len(text)
        if not text[pos:eol].rstrip().endswith("\\"):
            return m.start(), eol
        pos = eol + 1


def _macro_params(body: str, launcher: Path) -> list[str]:
    m = require(
        re.search(rf"{MACRO_NAME}\s*\(([^)]*)\)", body), f"{MACRO_NAME} parameter list", launcher
    )
    params = [p.strip() for p in m.group(1).replace("\\", " ").split(",")]
    if not all(re.fullmatch(r"\w+", p) for p in params):
        raise PatchError(f"unexpected {MACRO_NAME} parameter list in {launcher}: {params}")
    return params


def _probe_lines(params: Sequence[str]) -> list[str]:
    """Macro-body lines (without trailing backslash) that report the kernel's numbers."""
    arg_list = ", ".join(f"#{p}" for p in params)
    return [
        "      /* cutlint probe: the run-time part of the launcher is replaced by this report */",
        f"      static const char* const cutlint_probe_args[] = {{{arg_list}}};",
        "      ::cutlint_probe::report<GemmKernel, CollectiveMainloop, CollectiveEpilogue>(",
        f"          __LINE__, cutlint_probe_args, {len(params)});",
    ]


def _registrar_lines(params: Sequence[str], launcher_name: str, swap_param: str) -> list[str]:
    """Macro-body lines that call the launcher once at program start."""
    arg_list = ", ".join(f"#{p}" for p in params)
    return [
        f"  static const char* const cutlint_probe_args_##{launcher_name}[] = {{{arg_list}}};",
        f"  static const bool cutlint_probe_registered_##{launcher_name} = ::cutlint_probe::run(",
        f"      &{launcher_name}, {swap_param}, __LINE__, cutlint_probe_args_##{launcher_name},",
        f"      {len(params)});",
    ]


def _continued(lines: Sequence[str]) -> str:
    return "".join(f"{line} \\\n" for line in lines)


def patch_launcher(text: str, launcher: Path) -> str:
    """Return the probe copy of the launcher .inl.

    Anchors (all inside the macro, each must be found exactly where expected):
      1. ``#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(params...)``
      2. ``static void <launcher name with ##-pasted params>(`` -- the function the macro defines
      3. ``using GemmGrouped = ...;`` after ``using GemmKernel``, ``CollectiveMainloop``,
         ``CollectiveEpilogue``: the last type definition, kept with everything before it
      4. ``} else {`` followed by ``TLLM_THROW("Configuration was disabled by FAST_BUILD");``:
         the end of the run-time part, kept with everything after it
    """
    text = _absolutize_includes(text, launcher.parent)
    start, end = _macro_span(text, launcher)
    body = text[start:end]
    params = _macro_params(body, launcher)
    swap_param = params[-1]
    if "SWAP" not in swap_param.upper():
        if any("SWAP" in p.upper() for p in params):
            raise PatchError(f"last {MACRO_NAME} parameter is not SWAP_AB in {launcher}: {params}")
        # The 14-parameter macro of FlashInfer 0.5.x has no SwapAB (nor has its
        # TmaWarpSpecializedGroupedGemmInput a swap_ab the probe could set): run it as written.
        swap_param = "false"

    name_m = require(
        ANCHOR_LAUNCHER_NAME.search(body),
        "static void tma_warp_specialized_generic_moe_gemm_kernelLauncher_##...(",
        launcher,
    )
    launcher_name = name_m.group(1)

    alias_m = require(ANCHOR_GEMM_GROUPED.search(body), "using GemmGrouped = ...;", launcher)
    for needed in ("GemmKernel", "CollectiveMainloop", "CollectiveEpilogue"):
        if not re.search(rf"using\s+{needed}\s*=", body[: alias_m.start()]):
            raise PatchError(
                f"patch anchor not found in {launcher}: using {needed} = ... before GemmGrouped"
            )

    tail_m = require(
        ANCHOR_FAST_BUILD_ELSE.search(body, alias_m.end()),
        '} else { TLLM_THROW("Configuration was disabled by FAST_BUILD");',
        launcher,
    )
    removed = body[alias_m.end() : tail_m.start()]
    if "gemm.run" not in removed and ".run(" not in removed:
        raise PatchError(f"run-time part between anchors 3 and 4 looks wrong in {launcher}")

    new_body = (
        body[: alias_m.end()]
        + _continued(_probe_lines(params))
        + body[tail_m.start() :]
        + " \\\n"
        + _continued(_registrar_lines(params, launcher_name, swap_param)[:-1])
        + _registrar_lines(params, launcher_name, swap_param)[-1]
    )
    return text[:start] + new_body + text[end:] + "\n" + PROBE_HELPERS_CPP


__all__ = [
    "ANCHOR_FAST_BUILD_ELSE",
    "ANCHOR_GEMM_GROUPED",
    "ANCHOR_LAUNCHER_NAME",
    "MACRO_NAME",
    "PROBE_HELPERS_CPP",
    "patch_launcher",
]
