//===- Passes.td - analysis-driven passes ------------------*- tablegen -*-===//
#ifndef MBARRIER_TRANSFORMS_PASSES_TD
#define MBARRIER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MBarrierCheckSync : Pass<"mbarrier-check-sync", "::mlir::ModuleOp"> {
  let summary = "Check the synchronization protocol of mbarrier kernels";
  let description = [{
    A static analysis of every function that uses mbarrier ops, as SPMD
    code: which threads and CTAs execute an op (from `known_block_size`,
    `known_cluster_size` and the scf.if conditions on thread ids, lane and
    warp ids, CTA ranks and elect.sync around it), how many arrivals each
    phase of a barrier receives and from which CTAs, and what happens on
    every path to the exit. It reports errors for what is certainly wrong
    and warnings for what is probably wrong, and says nothing where it
    cannot decide:

    1. init not made visible (fence_init + cluster barrier) before a remote
       arrival or multicast copy;
    2. a CTA that may exit while peers still arrive on its barriers;
    3. more arrivals per phase than the init count;
    4. fewer arrivals than the init count (the phase never completes);
    5. a loop that waits on the same parity in every trip;
    6. expected transaction bytes different from the bytes of the bulk
       copies that complete on the barrier;
    7. memory order too weak for a cross-CTA hand-off (cta-scope waits or
       arrivals on a barrier that other CTAs arrive on; a relaxed remote
       arrival after stores with no fence);
    8. a barrier used after `inval`, or initialized again while live.

    The assumptions and what the analysis cannot see: docs/checker.md.
    It changes nothing; errors fail the pass (with `strict`, warnings too).
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report warnings as errors: any report fails the pass">,
  ];
}

#endif // MBARRIER_TRANSFORMS_PASSES_TD
