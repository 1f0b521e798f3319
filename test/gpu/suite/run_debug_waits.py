#!/usr/bin/env python3
"""Run what test/gpu/corpus/debug_waits.py built on the GPU: every hang must fail
its launch within the bound + 1 s with a located line, every twin must pass.

    python3 test/gpu/suite/run_debug_waits.py DIR [--only NAME] [--log FILE]

DIR holds ``hangs/`` and ``twins/`` (run_manifest.py's format; a hang's
entry adds ``bound_ns`` and ``stuck_at``). Each kernel runs in a child
process (this script with ``--child``) under its ``timeout_s``, launched by
``runtime.launch`` (a timed-out wait raises ``WaitTimeoutError`` with the
lines of its stuck warps' records). A hang is OK when the launch failed
within bound + 1 s, a line names one of its ``stuck_at`` waits, and every
line carries the barrier's state; a twin is OK when it passed with no such
line. Needs numpy, cuda-bindings and runtime.py only.

Exit status: 0 every kernel OK, 1 otherwise, 2 bad usage, 77 no usable GPU.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import run_manifest as rm  # noqa: E402

TAG = "RUN_DEBUG_WAITS_RESULT "
MARK = rm.load_runtime().DEBUG_WAIT_MARK   # the report lines' first words
STATE = "; barrier state 0x"                 # a line whose record has the state
PARTS = ("hangs", "twins")


def child_main(rt, directory: Path, kernel: dict) -> int:
    """Run one kernel with debug-wait capture; print the result line."""
    elapsed = [None]

    def launch(function, grid, block, args, cluster, shared_mem):
        start = time.monotonic()
        try:
            rt.launch(function, grid, block, args, cluster, shared_mem)
        finally:
            elapsed[0] = time.monotonic() - start
        return elapsed[0] * 1e3

    result = {"lines": []}
    try:
        run = rm.run_kernel(rt, directory, kernel, 1, launch)
        result.update(result=run["result"], detail=run["detail"])
    except rt.WaitTimeoutError as exc:
        result.update(result="TRAPPED", lines=exc.lines, detail=exc.name)
    except rt.CudaError as exc:
        result.update(result="ERROR", detail=f"{exc.name} in {exc.what}")
    except (rm.ManifestError, LookupError, ValueError, TypeError, OSError) as exc:
        result.update(result="ERROR", detail=f"{type(exc).__name__}: {exc}")
    result["seconds"] = elapsed[0]
    print(TAG + json.dumps(result), flush=True)
    return 0


def _names(line: str, at: str) -> bool:
    """Whether a timed-out line is located at ``file.py:LINE`` `at`."""
    where = line.split(MARK, 1)[-1].split(" ", 1)[0]        # path/file.py:LINE:COL
    return os.path.basename(where.rsplit(":", 1)[0]) == at


def judge(part: str, kernel: dict, result: dict) -> tuple[bool, str]:
    """(OK, what happened) for one kernel's result."""
    lines = result.get("lines") or []
    seconds = result.get("seconds")
    took = "-" if seconds is None else f"{seconds:.3f} s"
    if part == "twins":
        ok = result["result"] == "PASS" and not lines
        return ok, f"{result['result']} in {took}" + (f", {len(lines)} timed-out lines" if lines else "")
    bound = kernel["bound_ns"] / 1e9
    located = [line for line in lines if any(_names(line, at) for at in kernel["stuck_at"])]
    with_state = [line for line in lines if STATE in line]
    failed = result["result"] in ("TRAPPED", "ERROR")
    in_time = seconds is not None and seconds <= bound + 1.0
    ok = failed and in_time and bool(located) and len(with_state) == len(lines)
    what = (f"{result['result']} after {took} (bound {bound:.3f} s), {len(lines)} lines "
            f"({len(located)} located at a stuck wait, {len(with_state)} with the barrier's state)")
    if not failed:
        what += f": {result.get('detail', '')}"
    elif not in_time:
        what += ": too late"
    elif len(with_state) != len(lines):
        what += ": a barrier state not read"
    return ok, what


def run_child(directory: Path, part: str, kernel: dict) -> dict:
    """Run one kernel in a child; its result."""
    cmd = [sys.executable, os.path.abspath(__file__), str(directory), "--only", kernel["name"],
           "--child", part]
    timeout = kernel.get("timeout_s", 60)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return {"result": "HANG", "detail": f"not finished after {timeout}s", "seconds": None}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(TAG):
            return json.loads(line[len(TAG):])
    last = (proc.stderr.strip().splitlines() or [f"child exited with status {proc.returncode}"])[-1]
    return {"result": "ERROR", "detail": last, "seconds": None}


def parent_main(directory: Path, only: str | None, log) -> int:
    def out(text: str = "") -> None:
        print(text, flush=True)
        if log:
            log.write(text + "\n")
            log.flush()

    status = rm.probe_gpu(directory / "twins", out)
    if status is not None:
        return status
    rows = []
    for part in PARTS:
        for kernel in rm.load_manifest(directory / part):
            if only and kernel["name"] != only:
                continue
            result = run_child(directory, part, kernel)
            ok, what = judge(part, kernel, result)
            rows.append((kernel["name"], part, "OK" if ok else "BAD", what))
            out(f"{'OK ' if ok else 'BAD'} {part}/{kernel['name']}: {what}")
            for line in result.get("lines") or []:
                out(f"    {line}")
    out()
    widths = [max(len(r[i]) for r in rows + [("kernel", "part", "verdict", "")]) for i in range(3)]
    out(" | ".join(h.ljust(w) for h, w in zip(("kernel", "part", "verdict"), widths)) + " | what happened")
    for row in rows:
        out(" | ".join(c.ljust(w) for c, w in zip(row[:3], widths)) + " | " + row[3])
    return 0 if rows and all(r[2] == "OK" for r in rows) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--only", metavar="NAME")
    parser.add_argument("--log", metavar="FILE")
    parser.add_argument("--child", choices=PARTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        for part in PARTS:
            rm.load_manifest(args.directory / part)
    except rm.ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.child:
        (kernel,) = [k for k in rm.load_manifest(args.directory / args.child)
                     if k["name"] == args.only]
        return child_main(rm.load_runtime(), args.directory / args.child, kernel)
    if args.log:
        with open(args.log, "w") as log:
            return parent_main(args.directory, args.only, log)
    return parent_main(args.directory, args.only, None)


if __name__ == "__main__":
    sys.exit(main())
