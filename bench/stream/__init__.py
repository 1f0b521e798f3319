"""The pipeline benchmarks: TMA streaming and multicast, ours vs CUDA."""
