"""Parts of examples/gemm.py: the epilogue (`epilogue`) and the shapes the
kernel can do (`shapes`, MLIR-free: bench/gemm/run.py loads it on the GPU
machine)."""
