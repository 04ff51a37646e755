"""MoeGemmRunner's CUTLASS 2.x grouped tactics on SM8x/SM12x: tactics.py (ids), model.py (shared memory)."""
