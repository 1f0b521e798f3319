"""The benchmarks, a package per benchmark (``bench/<name>/``), above
examples/ in the layering (mbarrier_dialect <- examples <- bench <- test):
builders and runners run from the repository root as
``python -m bench.<name>.build`` and ``python3 -m bench.<name>.run``.

A builder imports an example through the ``examples`` package
(``from examples import gemm``), which ``python -m`` from the repository
root finds, as pyproject.toml's pytest ``pythonpath`` finds it for the
tests: ``python -m bench.gemm.build OUT_DIR``, no PYTHONPATH. Nothing here
changes ``sys.path``; the device-side runners import no example (they load
what they need by path)."""
