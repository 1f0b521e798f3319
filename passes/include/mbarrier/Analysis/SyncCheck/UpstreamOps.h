//===- UpstreamOps.h - what the checker knows of upstream ops ---*- C++ -*-===//
//
// The one place where mbarrier-check-sync recognizes ops of other dialects
// (nvvm, gpu, scf, llvm) and inline PTX: special registers, CTA and cluster
// barriers, release fences, stores, loops and bulk copies. The check files
// ask these questions instead of naming ops.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_UPSTREAMOPS_H
#define MBARRIER_ANALYSIS_SYNCCHECK_UPSTREAMOPS_H

#include "mlir/IR/Operation.h"

namespace mlir::mbarrier::checksync {

/// The special registers (PTX ISA, "Special Registers") the checker reads.
enum class SpecialReg {
  None,
  TidX, TidY, TidZ,                      // %tid
  NTidX, NTidY, NTidZ,                   // %ntid
  LaneId,                                // %laneid
  WarpSize,                              // WARP_SZ
  CtaIdX, CtaIdY, CtaIdZ,                // %ctaid
  NCtaIdX, NCtaIdY, NCtaIdZ,             // %nctaid
  ClusterCtaRank, ClusterNCtaRank,       // %cluster_ctarank, %cluster_nctarank
  ClusterCtaIdX, ClusterCtaIdY, ClusterCtaIdZ,    // %cluster_ctaid
  ClusterNCtaIdX, ClusterNCtaIdY, ClusterNCtaIdZ, // %cluster_nctaid
  ClusterIdX, ClusterIdY, ClusterIdZ,    // %clusterid
  NClusterIdX, NClusterIdY, NClusterIdZ, // %nclusterid
  Other, // another special register (%warpid, %clock, %smid, ...)
};

/// Which special register an `nvvm.read.ptx.sreg.*` op reads (None for any
/// other op; the gpu dialect's id ops are not special-register ops).
SpecialReg specialRegisterOf(Operation *op);

/// `nvvm.elect.sync`.
bool isElectSync(Operation *op);

/// A CTA-wide barrier: `bar.sync` (nvvm.barrier0, nvvm.barrier,
/// gpu.barrier).
bool isCTABarrier(Operation *op);

/// An upstream op of the CTA's named barriers (bar.sync / bar.arrive /
/// bar.red): `nvvm.barrier` (with or without an id, a thread count or a
/// reduction), `nvvm.barrier0`, `nvvm.barrier.arrive`, `gpu.barrier`.
/// `id` null: barrier 0; `threads` null: every thread of the CTA.
struct UpstreamNamedBarrier {
  Value id;
  Value threads;
  bool waits; // bar.sync / bar.red, not bar.arrive
};
std::optional<UpstreamNamedBarrier> upstreamNamedBarrierOf(Operation *op);

/// Cluster-wide barriers (barrier.cluster): arrive (release unless relaxed)
/// and wait, as NVVM ops or in inline PTX.
bool isClusterArrive(Operation *op, bool *relaxed = nullptr);
bool isClusterWait(Operation *op);

/// The PTX of an inline-asm op, or "".
StringRef inlinePTX(Operation *op);

/// A fence that makes the thread's earlier stores visible at cluster scope
/// (or wider) to a later relaxed arrival: NVVM fences or inline PTX.
bool isUpstreamReleaseFence(Operation *op);

/// A store to memory: llvm.store, nvvm.stmatrix, or an op of the memref or
/// vector dialect with a write effect on its memref.
bool isStore(Operation *op);

/// A loop: scf.for, scf.while, scf.parallel, scf.forall or any
/// LoopLikeOpInterface op.
bool isLoop(Operation *op);
/// `scf.for`.
bool isForLoop(Operation *op);
/// `scf.if`, `scf.index_switch`.
bool isIfOp(Operation *op);
bool isIndexSwitch(Operation *op);

/// A `cp.async.bulk` op of the NVVM dialect (any direction or form).
bool isBulkCopy(Operation *op);

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_UPSTREAMOPS_H
