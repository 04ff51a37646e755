"""The CUTLASS 2.x BLAS-3 kernels as cutlass_library writes them (`device::Trmm`, `Symm`, `RankK`,
`Rank2K`). See model.py and docs/families/cutlass2-blas3.md."""

from cutlint.families.cutlass2_blas3.family import FAMILY

__all__ = ["FAMILY"]
