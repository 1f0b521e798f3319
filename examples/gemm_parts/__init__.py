"""Parts of examples/gemm.py: the epilogue (`epilogue`), the ping-pong
consumers (`pingpong`), and, MLIR-free (bench/gemm/run.py loads them on the
GPU machine), the shapes the kernel can do (`shapes`) and the per-shape
schedule the benchmark's "auto" runs (`schedule`). The tensor-core helpers
are the package's `mbarrier_dialect.lang.wgmma`, which attention uses too."""
