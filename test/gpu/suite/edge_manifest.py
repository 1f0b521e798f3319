"""Bad input at the runtime's edges, as a manifest the GPU machine runs:
each entry must end as ERROR with a clear one-line reason (never a
traceback), and run_manifest.py must exit non-zero.

    python test/gpu/suite/edge_manifest.py SUITE_DIR OUT_DIR   # SUITE_DIR: a built full suite
    python3 test/gpu/suite/run_manifest.py OUT_DIR             # on the GPU machine
"""
import json
import os
import shutil
import sys

# entry name -> (how the entry is broken, the words its ERROR line must carry)
EXPECTED = {
    "missing_kernel_name": ("entry names no kernel of the cubin", "not found in the cubin"),
    "cluster_of_17": ("cluster larger than the 16 CTAs a cluster can have",
                      "exceeds the limit of 16"),
    "grid_not_multiple": ("grid 3 with cluster 2", "not a multiple of cluster"),
    "not_a_cubin": ("a text file where the cubin goes", "ELF"),
}


def build(suite_dir: str, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    manifest = json.load(open(os.path.join(suite_dir, "manifest.json")))
    base = next(k for k in manifest["kernels"] if k["name"] == "pingpong_2cta")
    shutil.copy(os.path.join(suite_dir, base["cubin"]), out_dir)
    with open(os.path.join(out_dir, "not_a_cubin.cubin"), "w") as f:
        f.write("this is not an ELF file\n")
    kernels = []
    for name in EXPECTED:
        entry = json.loads(json.dumps(base))
        entry["name"] = name
        entry["timeout_s"] = 60
        entry["expect"] = {}  # each must fail before any output exists
        if name == "missing_kernel_name":
            entry["entry"] = "no_such_kernel"
        elif name == "cluster_of_17":
            entry["grid"], entry["cluster"] = [17, 1, 1], [17, 1, 1]
        elif name == "grid_not_multiple":
            entry["grid"] = [3, 1, 1]
        elif name == "not_a_cubin":
            entry["cubin"] = "not_a_cubin.cubin"
        kernels.append(entry)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"kernels": kernels}, f, indent=1)


def check(log_text: str) -> list[str]:
    """The problems in run_manifest.py's output for this manifest."""
    problems = ["a traceback"] if "Traceback" in log_text else []
    for name, (_, words) in EXPECTED.items():
        lines = [l for l in log_text.splitlines() if l.startswith(f"ERROR {name}")]
        if not lines or words not in lines[0]:
            problems.append(f"{name}: expected an ERROR line with {words!r}")
    return problems


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        problems = check(open(sys.argv[2]).read())
        print("edge cases:", "all clear errors" if not problems else "; ".join(problems))
        sys.exit(1 if problems else 0)
    build(sys.argv[1], sys.argv[2])
