// The protocol model's work budget (docs/checker.md, "Cost"): five nested
// constant loops of 60 trips around a bar.sync take 60^5 trips, past the
// budget; the function is not analyzed for class 12, with a remark, in well
// under a second instead of unrolling the product.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

mbarrier.named_barrier @b id 3
// expected-remark @+1 {{mbarrier-check-sync: the protocol model's work budget ran out on this function (2097152 ops walked); its wait-for graph (class 12) is not analyzed}}
func.func @five_nested_loops() attributes {known_block_size = array<i32: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c60 = arith.constant 60 : index
  scf.for %i = %c0 to %c60 step %c1 {
    scf.for %j = %c0 to %c60 step %c1 {
      scf.for %k = %c0 to %c60 step %c1 {
        scf.for %l = %c0 to %c60 step %c1 {
          scf.for %m = %c0 to %c60 step %c1 {
            mbarrier.bar_sync @b threads 64
          }
        }
      }
    }
  }
  return
}
