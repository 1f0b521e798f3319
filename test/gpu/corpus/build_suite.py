"""Build the GPU suite: compile every kernel of the corpus's kernels.py to a cubin and
write a manifest (kernel, launch shape, inputs, expected outputs) that
run_manifest.py executes on the GPU machine with its own Python. The
manifest writer is mbarrier_dialect.manifest.

    python test/gpu/corpus/build_suite.py OUT_DIR [--suite full|sanitize|stress]

from the repository root, no PYTHONPATH: the script's folder (the corpus it
builds) is first on its path, and kernels.py loads the `examples` package,
whose ``case()`` it runs, by path (pytest imports all of it through
pyproject.toml's ``pythonpath``).
"""
from __future__ import annotations

import argparse

from mbarrier_dialect import manifest

import kernels  # test/gpu/corpus, this script's folder
import order_store_kernels  # issue 22's kernels (test/gpu/corpus)


def build(out_dir: str, suite: str = "full") -> dict:
    """Compile every kernel of `suite` into `out_dir` with its manifest."""
    builders = kernels.SUITES[suite] + order_store_kernels.SUITES.get(suite, [])
    return manifest.write([b() for b in builders], out_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--suite", choices=sorted(kernels.SUITES), default="full")
    args = parser.parse_args()
    written = build(args.out_dir, args.suite)
    for entry in written["kernels"]:
        print(f"built {entry['name']}: grid {entry['grid']} cluster {entry['cluster']}")


if __name__ == "__main__":
    main()
