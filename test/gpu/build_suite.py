"""Build the GPU suite: compile every kernel of kernels.py to a cubin and
write a manifest (kernel, launch shape, inputs, expected outputs) that
run_manifest.py executes on the GPU machine with its own Python.

    python test/gpu/build_suite.py OUT_DIR [--suite full|sanitize|stress]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


def write_case(case: kernels.Case, out_dir: str) -> dict:
    k = case.kernel
    compiled = k.compile()
    with open(os.path.join(out_dir, f"{k.name}.cubin"), "wb") as f:
        f.write(compiled.cubin)
    with open(os.path.join(out_dir, f"{k.name}.ptx"), "w") as f:
        f.write(compiled.ptx)
    args = []
    for arg in case.args:
        arg = dict(arg)
        if arg.get("kind") == "buffer" and "npy" in arg["init"]:
            name = arg["init"]["npy"].format(case=k.name)
            np.save(os.path.join(out_dir, name), case.inputs[arg["name"]])
            arg["init"] = {"npy": name}
        args.append(arg)
    expect = {}
    for name, array in case.expect.items():
        file = f"{k.name}.{name}.expect.npy"
        np.save(os.path.join(out_dir, file), np.asarray(array))
        expect[name] = {"npy": file}
    return {
        "name": k.name, "cubin": f"{k.name}.cubin", "entry": k.name,
        "grid": list(k.grid), "block": list(k.block),
        "cluster": list(k.cluster) if k.cluster else None, "shared_mem": 0,
        "timeout_s": case.timeout_s, "args": args, "expect": expect,
    }


def build(out_dir: str, suite: str = "full") -> dict:
    os.makedirs(out_dir, exist_ok=True)
    manifest = {"kernels": [write_case(b(), out_dir) for b in kernels.SUITES[suite]]}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--suite", choices=sorted(kernels.SUITES), default="full")
    args = parser.parse_args()
    manifest = build(args.out_dir, args.suite)
    for entry in manifest["kernels"]:
        print(f"built {entry['name']}: grid {entry['grid']} cluster {entry['cluster']}")


if __name__ == "__main__":
    main()
