"""The cost of debug waits in the latency, stream, GEMM and attention runners, and
the probes of what an mbarrier's state reads as (probe/)."""
