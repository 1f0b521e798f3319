"""The checker's diagnostics over every lit input of test/Analysis/SyncCheck,
as the driver runs it, in one text file: run it with two builds and diff
the files to see that a change kept every result.

    python -m bench.compile.check_sync_diagnostics --opt .venv/bin/mbarrier-opt out.txt

Each file is checked whole and, where it has `// -----` separators, split
(`--split-input-file`); the output holds, per file and mode, the exit status
and the diagnostics (stderr), with the file's path relative to the repo.
"""
import argparse
import concurrent.futures
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
PASSES = ["--mbarrier-lower-pipes", "--mbarrier-allocate-named-barriers",
          "--mbarrier-check-sync"]


def check(opt: str, path: pathlib.Path, split: bool) -> str:
    args = [opt, *PASSES, *(["--split-input-file"] if split else []), str(path),
            "-o", "/dev/null"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600)
    name = path.relative_to(ROOT)
    stderr = run.stderr.replace(str(path), str(name))
    return f"=== {name}{' (split)' if split else ''}: exit {run.returncode}\n{stderr}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt", default="mbarrier-opt", help="the mbarrier-opt to run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("out", help="write the diagnostics here")
    args = parser.parse_args()
    files = sorted((ROOT / "test" / "Analysis" / "SyncCheck").rglob("*.mlir"))
    runs = [(f, False) for f in files]
    runs += [(f, True) for f in files if "// -----" in f.read_text()]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        texts = list(pool.map(lambda r: check(args.opt, *r), runs))
    pathlib.Path(args.out).write_text("".join(texts))
    print(f"{len(runs)} runs over {len(files)} files: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
