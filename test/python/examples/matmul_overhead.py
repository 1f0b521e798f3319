#!/usr/bin/env python3
"""The host cost of one ``matmul`` call (examples/gemm_parts/api.py) with
the same tensors as the call before, on the CPU: the fake tensors and the
stand-in driver of test_gemm_matmul.py beside it (its launch a Python
call), so what is timed is matmul's own Python path. It sits with the test
doubles it uses (the test layer, above examples/). From the repository
root, no PYTHONPATH:

    python test/python/examples/matmul_overhead.py [--calls 20000]

(its folder is first on its path, not the repository root: the `examples`
package is loaded by path, before the test module that imports it).
"""
import argparse
import importlib
import importlib.util
import pathlib
import sys
import tempfile
import time

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


def _examples_package():
    """The repository's `examples` package, loaded by path (once)."""
    if "examples" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "examples", EXAMPLES / "__init__.py", submodule_search_locations=[str(EXAMPLES)])
        sys.modules["examples"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["examples"])


_examples_package()
import test_gemm_matmul as t  # noqa: E402  (beside this script: its folder is sys.path[0])
from examples.gemm_parts import api  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    rt = t._load_runtime("mbarrier_runtime_overhead")
    driver = t.TmaDriver()
    rt._driver = lambda: driver
    rt.atexit.register = lambda fn: None
    api.use_runtime(rt)
    M = N = K = 1024
    a = t.FakeTensor((M, K))
    b = t.FakeTensor((N, K), ptr=0x7f0000200000).t()
    out = t.FakeTensor((M, N), ptr=0x7f0000300000)
    cache = t._prefilled(pathlib.Path(tempfile.mkdtemp()),
                         api.config_for_layout(M, N, K, "K", "K", 132))
    api.matmul(a, b, out, cache=cache)
    t0 = time.perf_counter()
    for _ in range(args.calls):
        api.matmul(a, b, out, cache=cache)
    print(f"{(time.perf_counter() - t0) / args.calls * 1e6:.1f} us per call "
          f"(stand-in driver, {args.calls} calls)")


if __name__ == "__main__":
    main()
