#!/usr/bin/env python3
"""The cost of the synchronization checker (mbarrier-check-sync) against the
size of the kernel: generated kernels of about 10^2, 10^3 and 10^4 ops, the
GEMM of examples/gemm.py (both cluster forms) and, with `--examples`, every
configuration of examples/gemm.py and examples/attention.py.

    python -m bench.compile.check_sync_cost [--runs 5] [--sizes 100 1000 10000] [--json FILE]
                                    [--dataflow] [--nested] [--examples] [--only REGEX]

Two generated shapes, each checked silent (no diagnostic) before it is timed:

- ring: a warp-specialized producer/consumer ring of 4 stages (4 full, 4
  empty barriers), its main loop an scf.for whose body is `units` unrolled
  hand-offs (the producer waits on the empty barrier and arrives on the
  full one, the consumer warps wait on the full barrier and their lane 0
  arrives on the empty one), each with a thread-dependent condition.
- groups: `units` independent hand-offs in straight-line code, each on its
  own barrier group (thread 0 initializes, a CTA barrier, warp 1 arrives,
  every thread waits): the number of barriers grows with the kernel.

`--examples` times every configuration that bench/gemm/build.py and
bench/attention/build.py build (their CONFIGS: the examples' configurations
that the GPU benchmarks run), named `gemm:NAME` and `attention:NAME`, and
prints the slowest of each.

`--nested` adds the inputs that bound the checker's walks rather than its
size: `loops_D`, D nested scf.for of 60 constant trips around a bar.sync of
the whole CTA (60^D trips: the protocol model stops at its work budget, with
a remark, instead of unrolling the product); `rtloops_D`, D nested scf.for
of a run-time trip count (a kernel parameter) around a bar.sync (the path
analyses walk a loop's body until its state repeats); and `ifs_D`, D nested
scf.if on the thread id each holding a bar.sync of its warps' count. These
may draw the budget remark and nothing else.

Each kernel is lowered by mbarrier-lower-pipes first (the checker sees
pipes so in mbarrier-to-ptx), then mbarrier-check-sync runs in this process
(the mbarrier_dialect bindings, MLIR's threading off) on a fresh parse:
`cpu` is the CPU time of this thread during the pass, `wall` its wall
time, each the minimum over `runs` (the run least disturbed by other work
on the machine). `ops` counts the ops the
checker sees (generic form). Any diagnostic fails the run.

`--dataflow` adds the cost of MLIR's integer range analysis on the same
kernel (docs/checker.md, "The analysis"): upstream's
`int-range-optimizations` on each gpu.func, which runs a DataFlowSolver
with DeadCodeAnalysis, SparseConstantPropagation and IntegerRangeAnalysis
and then folds what the ranges decide (an upper bound of the solver's own
cost), timed the same way, and its ratio to the checker's time.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings

import mbarrier_dialect

BLOCK = 128  # warp 0: the producer; warps 1-3: consumers
DEPTH = 4


def ring_kernel(units: int) -> str:
    """The ring shape with `units` hand-offs per trip (a multiple of 2 *
    DEPTH, so that each barrier completes an even number of phases per
    trip and the constant parities repeat)."""
    lines = [
        "gpu.module @m {",
        f"  gpu.func @k(%n: index) kernel attributes {{known_block_size = array<i32: {BLOCK}, 1, 1>}} {{",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %zero = arith.constant 0 : i32",
        "    %one = arith.constant 1 : i32",
        "    %three = arith.constant 3 : i32",
        "    %c32 = arith.constant 32 : i32",
        "    %tid = gpu.thread_id x",
        "    %t = arith.index_cast %tid : index to i32",
        "    %leader = arith.cmpi eq, %t, %zero : i32",
        "    %warp = arith.divui %t, %c32 : i32",
        "    %lane = arith.remui %t, %c32 : i32",
        "    %lane0 = arith.cmpi eq, %lane, %zero : i32",
        "    %producer = arith.cmpi eq, %warp, %zero : i32",
        "    %consumer = arith.cmpi ne, %warp, %zero : i32",
        f"    %g = mbarrier.alloc : !mbarrier.group<{2 * DEPTH}>",
        "    scf.if %leader {",
    ]
    for i in range(2 * DEPTH):
        count = "%one" if i < DEPTH else "%three"
        lines += [f"      %i{i} = arith.constant {i} : index",
                  f"      mbarrier.init %g[%i{i}], {count} : !mbarrier.group<{2 * DEPTH}>"]
    lines += ["    }", "    nvvm.barrier0",
              "    scf.for %it = %c0 to %n step %c1 {"]
    group = f"!mbarrier.group<{2 * DEPTH}>"
    for u in range(units):
        stage, phase = u % DEPTH, (u // DEPTH) % 2
        # The producer waits for the consumers' release (offset 1: the first
        # round passes on a fresh barrier), then fills the stage.
        lines += [
            f"      %s{u} = arith.constant {stage} : index",
            f"      %e{u} = arith.constant {stage + DEPTH} : index",
            f"      %p{u} = arith.constant {phase} : i32",
            f"      %w{u} = arith.addi %warp, %p{u} : i32",
            f"      %q{u} = arith.cmpi uge, %w{u}, %p{u} : i32",
            f"      %go{u} = arith.andi %q{u}, %producer : i1",
            f"      scf.if %go{u} {{",
            f"        mbarrier.wait %g[%e{u}], %p{u} {{phase_offset = 1 : i32}} : {group}",
            f"        mbarrier.arrive %g[%s{u}] if %lane0 : {group}",
            "      }",
            f"      scf.if %consumer {{",
            f"        mbarrier.wait %g[%s{u}], %p{u} : {group}",
            f"        mbarrier.arrive %g[%e{u}] if %lane0 : {group}",
            "      }",
        ]
    lines += ["    }", "    gpu.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def groups_kernel(units: int) -> str:
    """The groups shape: `units` hand-offs, each on its own group."""
    lines = [
        "gpu.module @m {",
        f"  gpu.func @k() kernel attributes {{known_block_size = array<i32: {BLOCK}, 1, 1>}} {{",
        "    %c0 = arith.constant 0 : index",
        "    %zero = arith.constant 0 : i32",
        "    %c32 = arith.constant 32 : i32",
        "    %tid = gpu.thread_id x",
        "    %t = arith.index_cast %tid : index to i32",
        "    %leader = arith.cmpi eq, %t, %zero : i32",
        "    %warp = arith.divui %t, %c32 : i32",
    ]
    for u in range(units):
        lines += [
            f"    %g{u} = mbarrier.alloc : !mbarrier.group<1>",
            f"    scf.if %leader {{",
            f"      mbarrier.init %g{u}[%c0], %c32 : !mbarrier.group<1>",
            "    }",
            "    nvvm.barrier0",
            f"    %w{u} = arith.constant {1 + u % 3} : i32",
            f"    %mine{u} = arith.cmpi eq, %warp, %w{u} : i32",
            f"    scf.if %mine{u} {{",
            f"      mbarrier.arrive %g{u}[%c0] : !mbarrier.group<1>",
            "    }",
            f"    mbarrier.wait %g{u}[%c0], %zero : !mbarrier.group<1>",
        ]
    lines += ["    gpu.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def gemm_kernel(cluster: int) -> str:
    from examples import gemm  # examples/gemm.py (the examples package)
    return module_text(gemm.build, gemm.Config(bn=256, cluster=cluster))


def module_text(build, cfg) -> str:
    """The module an example's `build(cfg=...)` makes, as text (the
    checker's warnings of its own compile() are not asked for here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(build(cfg=cfg).module)


def example_configs():
    """(name, build, cfg) for every configuration of examples/gemm.py and
    examples/attention.py that the GPU benchmarks build."""
    from examples import attention
    from examples import gemm
    from bench.attention.build import CONFIGS as ATTENTION
    from bench.gemm.build import CONFIGS as GEMM
    for name, cfg in GEMM.items():
        yield f"gemm:{name}", gemm.build, cfg
    for name, cfg in ATTENTION.items():
        yield f"attention:{name}", attention.build, cfg


def nested_loops_kernel(depth: int, trips: int = 60) -> str:
    """`depth` nested loops of `trips` constant trips around a bar.sync of
    the whole CTA (64 threads)."""
    lines = ["mbarrier.named_barrier @b id 3",
             "func.func @k() attributes {known_block_size = array<i32: 64, 1, 1>} {",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             f"  %cn = arith.constant {trips} : index"]
    for d in range(depth):
        lines.append("  " * (d + 1) + f"scf.for %i{d} = %c0 to %cn step %c1 {{")
    lines.append("  " * (depth + 1) + "mbarrier.bar_sync @b threads 64")
    for d in reversed(range(depth)):
        lines.append("  " * (d + 1) + "}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def nested_ifs_kernel(depth: int) -> str:
    """`depth` nested scf.if, level d taken by the threads below
    1024 - 32 d, each level's warps meeting on its own named barrier."""
    lines = [f"mbarrier.named_barrier @b{d}" for d in range(depth)]
    lines += ["func.func @k() attributes {known_block_size = array<i32: 1024, 1, 1>} {",
              "  %tid = gpu.thread_id x"]
    for d in range(depth):
        bound = 1024 - 32 * d
        pad = "  " * (d + 1)
        lines += [f"{pad}%b{d} = arith.constant {bound} : index",
                  f"{pad}%p{d} = arith.cmpi ult, %tid, %b{d} : index",
                  f"{pad}scf.if %p{d} {{"]
    for d in reversed(range(depth)):
        pad = "  " * (d + 2)
        lines.append(f"{pad}mbarrier.bar_sync @b{d} threads {1024 - 32 * d}")
        lines.append("  " * (d + 1) + "}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def runtime_loops_kernel(depth: int) -> str:
    """`depth` nested loops of `%n` trips (a kernel parameter) around a
    bar.sync of the whole CTA (64 threads)."""
    return nested_loops_kernel(depth).replace("func.func @k()", "func.func @k(%n: index)") \
        .replace("to %cn step", "to %n step")


def lowered(text: str) -> str:
    """The module after mbarrier-lower-pipes (what the checker sees in
    mbarrier-to-ptx), as generic text."""
    from mlir import ir
    from mlir.passmanager import PassManager
    ctx = ir.Context()
    mbarrier_dialect.register_dialect(ctx)
    module = ir.Module.parse(text, context=ctx)
    PassManager.parse("builtin.module(mbarrier-attach-target{chip=sm_90a},mbarrier-lower-pipes)",
                      context=ctx).run(module.operation)
    return module.operation.get_asm(print_generic_op_form=True)


def timed(generic: str, pipeline: str, runs: int, name: str,
          allow_remarks: bool = False) -> tuple[float, float]:
    """The minimum CPU and wall time of `pipeline` on fresh parses of
    `generic` (MLIR's threading off); fails on any diagnostic (but the
    work budget's remark where `allow_remarks`)."""
    from mlir import ir
    from mlir.passmanager import PassManager
    cpu, wall = [], []
    for _ in range(runs):
        ctx = ir.Context()
        ctx.enable_multithreading(False)
        mbarrier_dialect.register_dialect(ctx)
        module = ir.Module.parse(generic, context=ctx)
        pm = PassManager.parse(pipeline, context=ctx)
        diagnostics = []
        handler = ctx.attach_diagnostic_handler(lambda d: diagnostics.append(str(d)) or True)
        t0, c0 = time.perf_counter(), time.thread_time()
        pm.run(module.operation)
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
        handler.detach()
        if allow_remarks:
            diagnostics = [d for d in diagnostics if "work budget" not in d]
        if diagnostics:
            raise RuntimeError(f"{pipeline} is not silent on {name}: {diagnostics}")
    return min(cpu), min(wall)


def measure(name: str, text: str, runs: int, dataflow: bool = False,
            allow_remarks: bool = False) -> dict:
    """The checker on `text`, in this process with MLIR's threading off: the
    CPU time of this thread during PassManager.run and its wall time, the
    minimum of `runs`, each on a fresh parse.
    Fails on any diagnostic (the kernels are correct)."""
    generic = lowered(text)
    ops = sum(1 for line in generic.splitlines() if '"(' in line
              and line.lstrip().startswith(('"', "%")))
    seconds, wall = timed(generic, "builtin.module(mbarrier-check-sync)", runs, name,
                          allow_remarks)
    row = {"kernel": name, "ops": ops, "cpu_s": seconds, "wall_s": wall,
           "cpu_us_per_op": 1e6 * seconds / ops}
    if dataflow:
        row["ranges_cpu_s"], _ = timed(
            generic, "builtin.module(gpu.module(gpu.func(int-range-optimizations)))",
            runs, name)
    return row

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000],
                        help="target op counts of the generated kernels")
    parser.add_argument("--json", default=None, help="write the rows here")
    parser.add_argument("--dataflow", action="store_true",
                        help="also time MLIR's integer range analysis on each kernel")
    parser.add_argument("--nested", action="store_true",
                        help="also time nested loops and conditions")
    parser.add_argument("--examples", action="store_true",
                        help="also time every configuration of the GEMM and attention examples")
    parser.add_argument("--only", default=None,
                        help="time only the kernels whose name matches this regex")
    args = parser.parse_args()
    wanted = (lambda name: re.search(args.only, name)) if args.only else (lambda name: True)
    kernels = []  # (name, text or a function that makes it, budget remark allowed)
    for size in args.sizes:
        # ~15 ops per ring unit, units a multiple of 2 * DEPTH; ~11 per group.
        units = max(2 * DEPTH, round(size / 15 / (2 * DEPTH)) * 2 * DEPTH)
        kernels.append((f"ring_{size}", lambda units=units: ring_kernel(units), False))
        kernels.append((f"groups_{size}", lambda size=size: groups_kernel(max(1, round(size / 11))),
                        False))
    for cluster in (1, 2):
        kernels.append((f"gemm_cluster{cluster}", lambda c=cluster: gemm_kernel(c), False))
    if args.nested:
        for depth in (2, 3, 5):
            kernels.append((f"loops_{depth}", lambda d=depth: nested_loops_kernel(d), True))
        for depth in (8, 16, 20):
            kernels.append((f"rtloops_{depth}", lambda d=depth: runtime_loops_kernel(d), True))
        for depth in (8, 24):
            kernels.append((f"ifs_{depth}", lambda d=depth: nested_ifs_kernel(d), True))
    if args.examples:
        for name, build, cfg in example_configs():
            kernels.append((name, lambda b=build, c=cfg: module_text(b, c), False))
    rows = []
    for name, make, allow_remarks in kernels:
        if wanted(name):
            rows.append(measure(name, make(), args.runs, args.dataflow and not allow_remarks,
                                allow_remarks))
    extra = f" {'ranges (s)':>10} {'ratio':>6}" if args.dataflow else ""
    width = max([16] + [len(row["kernel"]) for row in rows])
    print(f"{'kernel':>{width}} {'ops':>8} {'cpu (s)':>9} {'cpu us/op':>10} {'wall (s)':>9}{extra}")
    for row in rows:
        extra = ""
        if "ranges_cpu_s" in row:
            extra = f" {row['ranges_cpu_s']:>10.4f} {row['ranges_cpu_s'] / row['cpu_s']:>6.2f}"
        print(f"{row['kernel']:>{width}} {row['ops']:>8} {row['cpu_s']:>9.4f} "
              f"{row['cpu_us_per_op']:>10.1f} {row['wall_s']:>9.4f}{extra}")
    for example in ("gemm", "attention"):
        mine = [row for row in rows if row["kernel"].startswith(example + ":")]
        if mine:
            worst = max(mine, key=lambda row: row["cpu_s"])
            print(f"{example}: {len(mine)} configurations, the slowest {worst['kernel']} "
                  f"({worst['cpu_s']:.4f} s CPU)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
