"""The one path setting of the GPU suite's build scripts when they run as
scripts (``python test/gpu/suite/build_suite.py ...``): the corpus
(test/gpu/corpus, which build_suite.py builds) and examples/ (the corpus's
kernels.py runs the examples' ``case()``), as pyproject.toml's pytest
``pythonpath`` puts them for the tests. Import it first."""
import os as _os
import sys as _sys

_TEST_GPU = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
for _path in (_os.path.join(_TEST_GPU, "corpus"),
              _os.path.join(_TEST_GPU, "..", "..", "examples")):
    _path = _os.path.normpath(_path)
    if _path not in _sys.path:
        _sys.path.append(_path)
