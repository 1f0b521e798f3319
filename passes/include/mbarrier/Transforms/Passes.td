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

    The classes, numbered as in docs/checker.md:

    1. init not visible before a cross-CTA use (fence_init + cluster
       barrier), or within the CTA before a use by other threads;
    2. a CTA that may exit while peers still reach its memory;
    3. more arrivals per phase than the init count;
    4. fewer arrivals than the init count (the phase never completes);
    5. parity misuse: the same parity in every trip, a wait after a loop
       with the parity of before it, a startup deadlock (a first wait on a
       fresh empty barrier without the phase offset), a loop that arrives
       and never waits (no back-pressure), two sides of a ring whose
       counters restart at different loop depths (one per tile, one
       carried across tiles);
    6. expected transaction bytes different from the bytes of the bulk
       copies that complete on the barrier;
    7. memory order too weak for a cross-CTA hand-off (cta-scope waits or
       arrivals on a barrier that other CTAs arrive on; a relaxed remote
       arrival after stores with no fence);
    8. a barrier used after `inval` or never initialized (per group: each
       group, pipe and ordered sequence of a pool needs its own init),
       initialized again while live, or by several threads;
    9. a target rank, computed from the CTA's rank, outside the cluster;
    10. a bulk store's staging buffer written before the store has read it;
    11. named-barrier ids and thread counts (a bar.sync that waits for more
        threads than ever use its id; the two sides of one rendezvous with
        two counts; one id of two roles);
    12. deadlock across barriers (a cycle of the wait-for graph, across
        the warps of the CTA and the CTAs of a declared cluster; a phase
        that no warp can still arrive on);
    13. a CTA-wide barrier (`__syncthreads`) reached by some warps in a
        role branch while the others reach none;
    14. one named-barrier id used by two roles with the same count;
    15. a `bar.warp.sync` member mask that leaves out a lane executing it;
    16. a target rank computed from the CTA's id in the grid (blockIdx)
        that leaves the cluster;
    17. a pipeline stage released while a wgmma that reads it may still
        run (no wgmma.wait_group that frees it);
    18. shared memory read while a cp.async group may still be writing
        it (a cp.async.wait_group N that leaves the group pending);
    19. generic-proxy stores to shared memory that an async-proxy op
        reads, handed off by an arrival with no fence.proxy.async;
    20. a store into another CTA's shared memory in every trip of a loop
        in which nothing comes back from the reader to the storer.

    The assumptions and what the analysis cannot see: docs/checker.md.
    It changes nothing; errors fail the pass (with `strict`, warnings too).
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report warnings as errors: any report fails the pass">,
  ];
}

#endif // MBARRIER_TRANSFORMS_PASSES_TD
