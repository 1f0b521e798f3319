"""The benchmarks, a package per benchmark (``bench/<name>/``), above
examples/ in the layering (mbarrier_dialect <- examples <- bench <- test):
builders and runners run from the repository root as
``python -m bench.<name>.build`` and ``python3 -m bench.<name>.run``.

The examples import their parts as top-level modules (``import gemm``,
``from gemm_parts import ...``), as ``python examples/gemm.py`` runs them,
so a builder that imports an example runs with examples/ on the package
path, as pyproject.toml's pytest ``pythonpath`` puts it for the tests:
``PYTHONPATH=examples python -m bench.gemm.build OUT_DIR``. Nothing here
changes ``sys.path``; the device-side runners import no example (they load
what they need by path)."""
