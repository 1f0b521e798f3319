"""The GEMM benchmark (examples/gemm.py) and the raw ring it is compared with."""
