"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

Each macro expands into an inline function whose kernel types are local. The probe copies of
group_gemm_{nvfp4,mxfp4}_groupwise_sm120.cuh keep that function up to
`using Gemm = ...GemmUniversalAdapter<GemmKernel>;`, report `GemmKernel` and return; the rest of
the macro (the run-time part and the launcher specialization) becomes a static object that calls
the function once at program start (num_groups = 1, k = n = 0: past the early return, through the
divisibility checks). The macros of 0.6.8rc1 - 0.6.10.post1 have no SwapAB parameter: the
inserted tail names the function and the arguments without it there.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

_NAME = (
    "##TileM##_##TileN##_##TileK##_##SwapAB##_##DTypeInAName##_##DTypeInBName##_##DTypeSFAName"
    "##_##DTypeSFBName##_##DTypeOutName"
)
_ARGS = (
    "{#TileM, #TileN, #TileK, #SwapAB, #DTypeInA, #DTypeInB, #DTypeSFA, #DTypeSFB, #DTypeOut, "
    "#DTypeInAName, #DTypeInBName, #DTypeSFAName, #DTypeSFBName, #DTypeOutName}"
)


def _patch(kind: str, call_args: str) -> HeaderPatch:
    def insert(groups: dict[str, str]) -> str:
        name, args = _NAME, _ARGS
        if "SwapAB" not in groups["params"]:  # the 13-parameter macro of 0.6.8rc1 - 0.6.10.post1
            name, args = name.replace("SwapAB##_##", ""), args.replace("#SwapAB, ", "")
        fn = f"Cutlass{kind}GroupwiseScaledGroupGEMMSM120_{name}"
        return (
            '    ::cutlint_jit_probe::report<GemmKernel>("default", __FILE__, __LINE__,  \\\n'
            f"        {args});                                                            \\\n"
            "    return cudaSuccess;                                                     \\\n"
            "  }                                                                          \\\n"
            f"  static const bool cutlint_probe_{kind}{name} =                           \\\n"
            f"      ({fn}({call_args}), true);\n"
        )

    return HeaderPatch(
        header=f"flashinfer/gemm/group_gemm_{kind.lower()}_groupwise_sm120.cuh",
        keep_through=re.compile(
            rf"#define\s+INSTANTIATE_GROUP_GEMM_{kind}_GROUPWISE_SM120\((?P<params>[^)]*)\).*?"
            r"using\s+Gemm\s*=\s*cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;[^\n]*\n",
            re.S,
        ),
        insert=insert,
    )


PATCHES = (
    # (int_buffer, size, float_buffer, size, A, B, SFA, SFB, D, [alpha,] m_indptr, n, k,
    #  num_groups, stream, device_id)
    _patch(
        "NVFP4",
        "nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 1, nullptr, 0",
    ),
    _patch(
        "MXFP4",
        "nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 1, nullptr, 0",
    ),
)

MODULE = "gemm_sm120"
INSTANTIATIONS = frozenset(
    {"INSTANTIATE_GROUP_GEMM_NVFP4_GROUPWISE_SM120", "INSTANTIATE_GROUP_GEMM_MXFP4_GROUPWISE_SM120"}
)


def claims_file(path: Path) -> bool:
    return path.name.startswith(
        ("group_gemm_nvfp4_groupwise_", "group_gemm_mxfp4_groupwise_")
    ) and (path.name.count("_") > 4)


def tu_key(path: Path) -> str:
    """The NVFP4 and MXFP4 headers both define `safe_inc_ptr` in an unnamed namespace: in the
    real build they are separate translation units, and so are their probes."""
    return "nvfp4" if "nvfp4" in path.name else "mxfp4"
