"""SGLang: its JIT kernels (`sglang.kernels.jit`), how each release compiles them (jit.py)."""
