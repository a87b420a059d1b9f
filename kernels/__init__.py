"""Numba CUDA kernels for hot operators, each with a CPU twin (planned; nothing yet)."""
