// The pipe verifier's cost stays linear in the function's size: each pipe
// op's verifier looks back only to the nearest pipe op to know whether it is
// the function's first (the one that checks linearity), so 20,000 other ops
// before the first pipe op are looked at once, not once per pipe op. A
// quadratic look took 115 s on this input (15,001 pipe ops after 20,000
// constants), the linear one about 1 s; the limit leaves a wide margin on a
// loaded machine.
// RUN: %python -c "import sys; n, pre = 5000, 20000; \
// RUN:   print('func.func @f(%%p: !mbarrier.pipe<4, arrive>) {'); \
// RUN:   [print(f'  %%k{i} = arith.constant {i} : i32') for i in range(pre)]; \
// RUN:   print('  %%s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>'); \
// RUN:   [print(f'  %%slot{i}, %%s{i+1} = mbarrier.pipe.acquire %%p, %%s{i} : !mbarrier.pipe<4, arrive>\n' \
// RUN:          f'  %%ix{i} = mbarrier.pipe.stage %%slot{i} : !mbarrier.slot<producer>\n' \
// RUN:          f'  mbarrier.pipe.commit %%p[%%slot{i}] : !mbarrier.pipe<4, arrive>') for i in range(n)]; \
// RUN:   print('  return'); print('}')" > %t.mlir
// RUN: %python -c "import subprocess, sys, time; start = time.monotonic(); \
// RUN:   subprocess.run(['mbarrier-opt', sys.argv[1], '-o', '/dev/null'], check=True); \
// RUN:   took = time.monotonic() - start; print(f'verified in {took:.1f} s'); assert took < 30, took" %t.mlir | FileCheck %s
// CHECK: verified in
