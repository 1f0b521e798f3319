// The errors of mbarrier-allocate-named-barriers: no id left (located at the
// first declaration that gets none), a reserved id above 15 (the malformed
// list in general: allocate-named-barriers-bad-list.mlir).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-allocate-named-barriers="reserved=0-14"
// RUN: not mbarrier-opt %s -split-input-file --mbarrier-allocate-named-barriers="reserved=16" 2>&1 | FileCheck %s --check-prefix=BADLIST
// BADLIST: error: mbarrier-allocate-named-barriers: reserved='{{.*}}' is not a list of hardware barrier ids and ranges in 0..15 (e.g. 0,1-7)

gpu.module @ids_run_out {
  mbarrier.named_barrier @gets_15
  // expected-error @+1 {{needs a hardware barrier id, and all 16 are in use: reserved 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14; taken by other declarations or upstream nvvm.barrier ops of the module none; allocated before it 15}}
  mbarrier.named_barrier @ids_run_out
}
