"""Parts of examples/attention.py: the wgmma forms it needs (`mma`), the
online softmax on accumulator fragments (`softmax`), and the shapes and
launch geometry the kernel can do (`shapes`, MLIR-free: bench/attention/run.py
loads it on the GPU machine)."""
