"""The examples, a package: ``python -m examples.NAME`` from the repository
root runs one (the ones of a single file, first_kernel, bulk_copy,
producer_consumer, cluster_ring and tma_pipeline, also run as
``python examples/NAME.py``). gemm.py and attention.py import their parts
relatively (``from .gemm_parts import ...``), so the benchmarks and the
tests import them as ``from examples import gemm`` with nothing but the
repository root on the path (docs/layout.md)."""
