#!/usr/bin/env python3
"""A mutation fuzzer for mbarrier-opt: parse + verify + convert-mbarrier-to-nvvm
(and, for inputs with a gpu.module, the whole mbarrier-to-ptx pipeline). Inputs
with nvgpu ops go through mbarrier-raise-nvgpu first (and mbarrier-check-sync:
the raised ops feed the checker), or mbarrier-to-ptx{raise-nvgpu=true}.

    python test/fuzz/fuzz.py --seconds 600 [--seed N] [--crash-dir DIR]
    python test/fuzz/fuzz.py --batches 40 --seed N    # a fixed, repeatable run

Seeds are the cases of the lit tests (split at `// -----`). Each batch is
`--batch-size` mutants and one pipeline target, all drawn from one
random.Random(seed): the same seed, batch count and lit tests give the same
inputs. The mutants are fed to mbarrier-opt with -split-input-file (one run
per pipeline they need), and a run that crashes is re-run case by case to
find the crasher. A crash is a signal,
an assertion, or "LLVM ERROR"/"PLEASE submit a bug report" on stderr; a clean
diagnostic and a non-zero exit are fine. Prints a summary line and exits
non-zero when it found a crash (each crasher is written to --crash-dir).
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_ROOT = os.path.dirname(HERE)
SPLIT = "// -----"
# What a crash prints (an input line echoed in a diagnostic must not match,
# so the markers are the exact forms LLVM prints).
CRASH_MARKERS = ("LLVM ERROR:", "PLEASE submit a bug report", "Assertion `", "Stack dump:")
# Crashes inside upstream MLIR that any op reaches, with or without ours: they
# are reported apart (and in RELIABILITY.md), not counted as crashes of ours.
KNOWN_UPSTREAM = {
    "only integers and floats have a bitwidth":
        "the attribute parser asserts on a dense array of `index` (array<index: ...>), "
        "whatever op carries it (arith.addi does too)",
    "mlir::scf::IndexSwitchOp::verify":
        "scf.index_switch's verifier puts its case values in a DenseSet and asserts on "
        "case 9223372036854775807 (INT64_MAX, the set's empty key), in the stock "
        "mlir-opt too with no mbarrier op",
    "mlir::scf::IndexSwitchOp::parse":
        "scf.index_switch's parser, when a case region fails to parse (an invalid type), "
        "destroys a region whose op is used before its definition outside it: LLVM ERROR "
        "'operation destroyed but still has uses', in func/arith/scf alone too",
    "OperationParser::resolveSSAUse":
        "MLIR's parser asserts in resolveSSAUse (under scf::ForOp::parse, a mutated scf.for "
        "operand list) before any of our code runs (RELIABILITY.md, run 16)",
}

OPS = ["init", "arrive", "arrive_expect_tx", "expect_tx", "wait", "try_wait", "test_wait",
       "inval", "remote_view", "ptr", "tcgen05_commit", "alloc", "view", "fence_init",
       "pipe.create", "pipe.init", "pipe.start", "pipe.advance", "pipe.acquire",
       "pipe.try_acquire", "pipe.commit", "pipe.wait", "pipe.try_wait", "pipe.release",
       "pipe.tail", "pipe.stage", "pipe.full_ptr", "pipe.cp_async_bulk",
       "pipe.cp_async_bulk_tensor", "arrive_nocomplete", "cp_async_bulk_tensor"]
# The nvgpu ops mbarrier-raise-nvgpu raises (and some it leaves), swapped
# among themselves.
NVGPU_OPS = ["mbarrier.create", "mbarrier.get", "mbarrier.init", "mbarrier.arrive",
             "mbarrier.arrive.nocomplete", "mbarrier.arrive.expect_tx", "mbarrier.test.wait",
             "mbarrier.try_wait.parity", "tma.async.load", "tma.prefetch.descriptor"]
INTS = ["0", "1", "-1", "2", "3", "7", "8", "31", "32", "1048575", "1048576", "2147483647",
        "-2147483648", "4294967295", "9223372036854775807"]
TYPES = ["!mbarrier.group<1>", "!mbarrier.group<2>", "!mbarrier.remote<1>", "!mbarrier.remote<2>",
         "!mbarrier.group<0>", "!mbarrier.group<4294967295>", "i32", "index", "i1", "!llvm.ptr<3>",
         "!llvm.ptr<7>", "!llvm.ptr", "!mbarrier.pipe<2, tma>", "!mbarrier.pipe<0, arrive>",
         "!mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 2], multicast = rowcol>",
         "!mbarrier.pipe<1, tma, cluster = [16, 1], multicast = row>",
         "!mbarrier.pipe_state<producer>", "!mbarrier.pipe_state<consumer>",
         "!mbarrier.slot<producer>", "!mbarrier.slot<consumer>",
         "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>",
         "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 0>",
         "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<global>, num_barriers = 2>",
         "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 7000>",
         "!nvgpu.mbarrier.token",
         "!nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, "
         "l2promo = none, oob = zero, interleave = none>",
         "!nvgpu.tensormap.descriptor<tensor = memref<3x5xi8, 3>, swizzle = none, "
         "l2promo = none, oob = zero, interleave = none>",
         "memref<64x8xf32, 3>", "memref<?x8xf32, 3>", "memref<64x8xf32>"]
ATTRS = ["{sem = #mbarrier.sem<relaxed>}", "{sem = #mbarrier.sem<acquire>}",
         "{scope = #mbarrier.scope<cluster>}", "{phase_offset = 1 : i32}",
         "{phase_offset = -1 : i32}", "{cta_group = 2 : i32}", "{cta_rank = 5 : i32}",
         "{operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>}"]
# Every chip the NVPTX backend knows (asked of it through the package, so a
# new LLVM brings its new chips), plus names it does not know.
try:
    from mbarrier_dialect import targets as _targets

    KNOWN_CHIPS = _targets.chips()
    PTX_VERSIONS = _targets.ptx_versions()
except ImportError:  # running without the package: a fixed sample
    KNOWN_CHIPS = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_100f",
                   "sm_103a", "sm_110", "sm_120", "sm_121"]
    PTX_VERSIONS = [70, 71, 78, 80, 86, 87, 88, 90]
CHIPS = KNOWN_CHIPS + ["sm_", "sm_91", "gfx90a"]
# Feature strings: every known +ptxNN (so below, at and above each chip's
# minimum), unknown versions, malformed and repeated ones.
FEATURES = ([""] + [f"+ptx{v}" for v in PTX_VERSIONS] +
            ["+ptx100", "+ptx7", "ptx86", "+ptx", "+sm_90", "+ptx80,+ptx86", "+ptx86,",
             "-ptx86", "+ptx86 +ptx80", "+PTX86"])


def seeds() -> list[str]:
    cases = []
    for path in sorted(glob.glob(os.path.join(TEST_ROOT, "**", "*.mlir"), recursive=True)):
        text = open(path).read()
        for case in text.split(SPLIT):
            # Comments carry no IR (and CHECK lines name crash markers).
            lines = [l for l in case.splitlines() if not l.lstrip().startswith("//")]
            case = "\n".join(lines).strip()
            if "mbarrier" in case:
                cases.append(case)
    return cases


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        choice = rng.random()
        line = lines[i]
        if choice < 0.2:  # swap an op name
            if "nvgpu." in line and rng.random() < 0.5:
                line = re.sub(r"nvgpu\.(?:mbarrier|tma)\.[\w.]+",
                              lambda m: "nvgpu." + rng.choice(NVGPU_OPS), line, count=1)
            else:
                line = re.sub(r"(?<!nvgpu\.)mbarrier\.(?:pipe\.)?\w+",
                              lambda m: "mbarrier." + rng.choice(OPS), line, count=1)
        elif choice < 0.4:  # replace an integer
            nums = list(re.finditer(r"(?<![%\w])-?\d+", line))
            if nums:
                m = rng.choice(nums)
                line = line[:m.start()] + rng.choice(INTS) + line[m.end():]
        elif choice < 0.55:  # replace a type
            line = re.sub(r"!mbarrier\.\w+<\d+>|!llvm\.ptr<\d>|\bi32\b|\bindex\b|!barriers\b|"
                          r"!desc\b|memref<[^>]*>",
                          lambda m: rng.choice(TYPES), line, count=1)
        elif choice < 0.65:  # add attributes
            if " : " in line and "{" not in line:
                line = line.replace(" : ", " " + rng.choice(ATTRS) + " : ", 1)
        elif choice < 0.72:  # change a chip
            line = re.sub(r"sm_\w+", rng.choice(CHIPS), line)
        elif choice < 0.8:  # duplicate a line
            lines.insert(i, line)
        elif choice < 0.87:  # delete a line
            line = ""
        elif choice < 0.94:  # move a line elsewhere
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            continue
        else:  # swap two SSA names
            names = re.findall(r"%\w+", line)
            if len(names) >= 2:
                a, b = rng.sample(names, 2)
                line = line.replace(a, "\0").replace(b, a).replace("\0", b)
        lines[i] = line
    return "\n".join(lines)


# Targets for the whole pipeline, one per batch: every chip, every feature
# string above, every O (a too-low or malformed target must be a diagnostic,
# never an abort in the NVPTX backend).
def pipeline_target(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return ""  # the pipeline's own defaults
    features = rng.choice(FEATURES)
    if " " in features:  # a space ends the option: quote it
        features = "'" + features + "'"
    return f"{{chip={rng.choice(CHIPS)} features={features} O={rng.randrange(4)}}}"


def pipeline_for(text: str, target: str) -> list[str]:
    nvgpu = "nvgpu." in text
    if "gpu.module" in text and "gpu.container_module" in text:
        if nvgpu:  # raise-nvgpu=true: the raise first, convert-nvgpu-to-nvvm after ours
            target = ("{raise-nvgpu=true " + target[1:]) if target else "{raise-nvgpu=true}"
        return [f"--pass-pipeline=builtin.module(mbarrier-to-ptx{target})"]
    raise_first = ["--mbarrier-raise-nvgpu"] if nvgpu else []
    if "mbarrier.pipe" in text:
        return raise_first + ["--mbarrier-lower-pipes", "--convert-mbarrier-to-nvvm"]
    return raise_first + ["--mbarrier-check-sync", "--convert-mbarrier-to-nvvm"] if nvgpu \
        else ["--convert-mbarrier-to-nvvm"]


def run_batch(opt: str, cases: list[str], args: list[str], tmp: str) -> tuple[bool, str]:
    path = os.path.join(tmp, "batch.mlir")
    with open(path, "w") as f:
        f.write(f"\n{SPLIT}\n".join(cases))
    try:
        proc = subprocess.run([opt, path, "-split-input-file", *args, "-o", os.devnull],
                              capture_output=True, text=True, timeout=120, errors="replace")
    except subprocess.TimeoutExpired:
        return True, "TIMEOUT (hang)"
    crashed = proc.returncode < 0 or any(m in proc.stderr for m in CRASH_MARKERS)
    return crashed, proc.stderr


def batches(seed: int, corpus: list[str], batch: int = 64):
    """The endless sequence of (target, mutants) batches of `seed`."""
    rng = random.Random(seed)
    while True:
        mutants = [mutate(rng.choice(corpus), rng) for _ in range(batch)]
        yield pipeline_target(rng), mutants


def fuzz(opt: str, seconds: float | None = None, seed: int = 0, crash_dir: str | None = None,
         batch: int = 64, log=print, *, num_batches: int | None = None) -> dict:
    """Fuzz for `seconds` (a time box), or for exactly `num_batches` batches
    (a fixed run: what CI does, repeatable with the same seed)."""
    if (seconds is None) == (num_batches is None):
        raise ValueError("give exactly one of seconds and num_batches")
    corpus = seeds()
    stats = {"inputs": 0, "batches": 0, "runs": 0, "crashes": [], "upstream": []}
    deadline = None if seconds is None else time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as tmp:
        for target, mutants in batches(seed, corpus, batch):
            if num_batches is not None and stats["batches"] >= num_batches:
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            stats["batches"] += 1
            groups = {}
            for m in mutants:
                groups.setdefault(tuple(pipeline_for(m, target)), []).append(m)
            for args, cases in groups.items():
                crashed, stderr = run_batch(opt, cases, list(args), tmp)
                stats["runs"] += 1
                stats["inputs"] += len(cases)
                if not crashed:
                    continue
                for case in cases:  # find the crasher(s)
                    bad, err = run_batch(opt, [case], list(args), tmp)
                    upstream = [why for sig, why in KNOWN_UPSTREAM.items() if sig in err]
                    if bad and upstream:
                        stats["upstream"].append((case, upstream[0]))
                    elif bad:
                        stats["crashes"].append((case, args, err))
                        log(f"CRASH with {' '.join(args)}:\n{case}\n---\n{err[-2000:]}")
                        if crash_dir:
                            os.makedirs(crash_dir, exist_ok=True)
                            name = os.path.join(crash_dir, f"crash-{len(stats['crashes'])}.mlir")
                            with open(name, "w") as f:
                                f.write(f"// args: {' '.join(args)}\n{case}\n")
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=None,
                        help="fuzz for this long (default 60 unless --batches)")
    budget.add_argument("--batches", type=int, default=None,
                        help="fuzz exactly this many batches (repeatable with --seed)")
    parser.add_argument("--batch-size", type=int, default=64, help="mutants per batch")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--crash-dir")
    parser.add_argument("--opt", default=None, help="mbarrier-opt executable")
    args = parser.parse_args()
    if args.batches is not None and args.batches < 1:
        parser.error("--batches must be at least 1")
    if args.batch_size < 1:
        parser.error("--batch-size must be at least 1")
    if args.batches is None and args.seconds is None:
        args.seconds = 60
    opt = args.opt
    if opt is None:
        import mbarrier_dialect
        opt = mbarrier_dialect.mbarrier_opt_path()
    if not os.access(opt, os.X_OK):
        print(f"fuzz: error: {opt} is not an executable mbarrier-opt", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    stats = fuzz(opt, args.seconds, args.seed, args.crash_dir, args.batch_size,
                 num_batches=args.batches)
    minutes = (time.monotonic() - t0) / 60
    print(f"fuzz: seed {args.seed}, {stats['inputs']} inputs in {stats['batches']} batches "
          f"({stats['runs']} mbarrier-opt runs), {minutes:.1f} min, "
          f"{len(stats['crashes'])} crashes, {len(stats['upstream'])} known upstream crashes")
    return 1 if stats["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
