"""The cost of debug waits in the latency, stream and GEMM runners."""
