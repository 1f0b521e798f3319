"""The benchmarks, a package per benchmark (``bench/<name>/``), above
examples/ in the layering (mbarrier_dialect <- examples <- bench <- test):
builders and runners run from the repository root as
``python -m bench.<name>.build`` and ``python3 -m bench.<name>.run``.

The examples import their parts as top-level modules (``import gemm``,
``from gemm_parts import ...``), as ``python examples/gemm.py`` runs them;
this is the one place that puts examples/ on the path, for the benchmarks
(pytest's ``pythonpath`` in pyproject.toml does it for the tests)."""
import os as _os
import sys as _sys

_EXAMPLES = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))),
                          "examples")
if _EXAMPLES not in _sys.path:
    _sys.path.append(_EXAMPLES)
