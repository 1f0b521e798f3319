"""The latency benchmark: ours vs hand-written CUDA, cycles per round."""
