"""vLLM as a producer of hand-written CUTLASS kernels: its source distribution (`sdist.py`)."""
