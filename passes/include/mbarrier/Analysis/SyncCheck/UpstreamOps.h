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
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir::mbarrier::checksync {

/// The smallest box a tensor store reads (PTX ISA: the box's inner extent in
/// bytes is a multiple of 16): the bytes of a tensor store's source known to
/// be read when its tensor map is not in sight.
constexpr int64_t kMinBoxBytes = 16;

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

/// Where a value without operands comes from (the uniformity taint of
/// SyncUniform.cpp and the CTA-uniform indices of CheckInit.cpp).
enum class PointSource {
  None,   // not an id or special register: follow the operands
  Launch, // the same at every point of the cluster (a launch dimension,
          // the cluster's id)
  CTA,    // the same in a CTA (a CTA id or rank)
  Thread, // may differ between threads (tid, laneid, elect.sync, clock,
          // any other special register or gpu id op)
};
PointSource pointSourceOf(Operation *op);
/// Whether `op` reads the cluster's id in the grid (`%clusterid.x/y/z`,
/// gpu.cluster_id): a launch value to pointSourceOf (the same in every CTA
/// of the cluster), which differs from one cluster to the next.
bool isClusterIndex(Operation *op);
/// Whether `v` is the same for every thread of a CTA: built, by ops without
/// side effects (divisions included), from constants, kernel parameters,
/// launch dimensions, CTA ids and the induction variables of scf.for loops
/// whose bounds are; through at most 64 values (`*work` counts them).
bool uniformInCTA(Value v, unsigned *work);

/// The ids that the SPMD interpreter evaluates per (rank, thread) point:
/// thread and lane ids (gpu and nvvm), the CTA's rank and id in the cluster,
/// elect.sync.
bool readsPoint(Operation *op);

/// A clock or timer register (`%clock`, `%clock64`, `%globaltimer`): it
/// changes from one read to the next.
bool readsClock(Operation *op);

/// A CTA-wide barrier: `bar.sync` (nvvm.barrier0, nvvm.barrier,
/// gpu.barrier).
bool isCTABarrier(Operation *op);

/// Ops that may order the threads of a CTA or a warp: a CTA barrier,
/// `bar.arrive` (nvvm.barrier.arrive), `bar.warp.sync`.
bool isThreadBarrier(Operation *op);
/// The member mask of a `bar.warp.sync` (nvvm.bar.warp.sync), or null for
/// any other op.
Value barWarpSyncMask(Operation *op);

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

/// `fence.proxy.async` (all state spaces, or `.shared::cta`): orders the
/// thread's generic-proxy accesses of shared memory with later accesses by
/// the async proxy (wgmma operands, bulk copies); NVVM ops or inline PTX.
bool isAsyncProxySharedFence(Operation *op);
/// The operands through which an async-proxy op reads shared memory: a
/// wgmma's two matrix descriptors, a bulk store's source; none for another
/// op.
SmallVector<Value, 2> asyncProxySharedReads(Operation *op);

/// An access that may order threads through memory: an atomic
/// (llvm.atomicrmw, cmpxchg), or a load or store that is atomic or
/// volatile.
bool isOrderedMemoryAccess(Operation *op);

/// A store to memory: llvm.store, nvvm.stmatrix, or an op of the memref or
/// vector dialect with a write effect on its memref.
bool isStore(Operation *op);

/// A loop: scf.for, scf.while, scf.parallel, scf.forall or any
/// LoopLikeOpInterface op.
bool isLoop(Operation *op);
/// `scf.for`.
bool isForLoop(Operation *op);
/// The `scf.for` whose induction variable `v` is, or null.
Operation *inductionLoopOf(Value v);
/// `scf.while`.
bool isWhileLoop(Operation *op);
/// A spin loop `scf.while` with no loop-carried values and no results,
/// whose condition region goes on while `!done`, for an i1 `done` computed
/// in that region (`arith.xori %done, true`, `arith.cmpi eq %done, false`
/// or `ne %done, true`): the value the loop polls until it holds (a
/// test_wait / try_wait result), or null for any other op.
Value spinLoopExitValue(Operation *op);
/// `scf.if`, `scf.index_switch`, `scf.execute_region`.
bool isIfOp(Operation *op);
/// The condition of an `scf.if`, or null for another op.
Value ifCondition(Operation *op);
bool isIndexSwitch(Operation *op);
bool isExecuteRegion(Operation *op);

/// A `cp.async.bulk` op of the NVVM dialect (any direction or form).
bool isBulkCopy(Operation *op);

/// Bulk stores and their async-groups (PTX ISA, "cp.async.bulk.tensor",
/// "cp.async.bulk.commit_group", "cp.async.bulk.wait_group"): the
/// `.shared::cta` source of a bulk copy to global memory (tensor, plain or
/// reduction), or null; a commit of the thread's open bulk async-group; a
/// wait until at most `groups` of the newest groups are pending (`read`:
/// pending reading their sources).
Value bulkStoreSource(Operation *op);
bool isBulkCommitGroup(Operation *op);
/// The byte count of a plain (non-tensor) bulk store, or null.
Value bulkStoreSize(Operation *op);
struct BulkWait {
  int64_t groups;
  bool read;
};
std::optional<BulkWait> bulkWaitGroup(Operation *op);

/// The global -> shared::cluster bulk copy that completes on an mbarrier
/// (`cp.async.bulk.shared::cluster.global`): its barrier, bytes and
/// multicast mask (null: none).
struct BulkLoad {
  Value mbar;
  Value size;
  Value multicastMask;
};
std::optional<BulkLoad> bulkLoadOf(Operation *op);

/// A store into the executing CTA's own shared memory (`.shared::cta`):
/// llvm.store through a pointer of the shared address space.
bool isLocalSharedStore(Operation *op);

/// Whether `op` accesses another CTA's shared memory through a
/// `.shared::cluster` pointer (ptr<7>): loads, stores and atomic
/// read-modify-writes (llvm.atomicrmw, llvm.cmpxchg).
bool isRemoteMemoryAccess(Operation *op);

/// A load, store or atomic (a store here) of another CTA's shared memory
/// through a `.shared::cluster` address made by `nvvm.mapa` (through GEPs and
/// address-space casts): the rank it maps to and the local address it maps.
struct ClusterAccess {
  Value rank, localAddress;
  bool store = false;
};
std::optional<ClusterAccess> clusterAccessOf(Operation *op);
/// A load of the executing CTA's own shared memory (`.shared::cta`).
bool isLocalSharedLoad(Operation *op);
/// The global (`llvm.mlir.addressof`) an address points into, through GEPs,
/// address-space casts and `nvvm.mapa`; null where it starts elsewhere.
Attribute allocationOf(Value ptr);

/// The wgmma ops (sm_90a warpgroup MMAs, PTX ISA "wgmma"): an
/// `mma_async`, a `commit_group`, and the N of a `wait_group N`.
bool isWgmmaMma(Operation *op);
bool isWgmmaCommitGroup(Operation *op);
std::optional<int64_t> wgmmaWaitGroup(Operation *op);

/// A CTA id of the grid (`%ctaid.*`, gpu.block_id).
bool isGridCtaId(Operation *op);
/// The CTAs of the grid along x that a kernel declares (gpu.func's
/// `known_grid_size`), or none.
std::optional<int64_t> declaredGridX(Operation *fn);

/// An integer cast that keeps the value it casts where it fits
/// (arith.index_cast[ui], extui, extsi, trunci).
bool isIntegerCast(Operation *op);
/// `arith.addi`.
bool isIntegerAdd(Operation *op);
/// `arith.muli`.
bool isIntegerMul(Operation *op);
/// `arith.remui` / `arith.remsi` (`isSigned`: whether it is remsi).
bool isIntegerRem(Operation *op, bool *isSigned = nullptr);
/// `arith.extui`.
bool isZeroExtend(Operation *op);
/// `arith.trunci`.
bool isIntegerTrunc(Operation *op);

/// A write to memory through an address: a store (llvm.store,
/// nvvm.stmatrix) or a bulk copy into shared memory (its destination); the
/// address and the bytes written from it (at least; 1 where unknown), or a
/// null address.
struct MemoryWrite {
  Value address;
  int64_t bytes = 1;
};
MemoryWrite memoryWriteOf(Operation *op);

/// A pointer as an allocation plus a byte offset: the allocation is a
/// global's symbol (llvm.mlir.addressof) or else the value the chain starts
/// from; the offset `constant + sum(index * scale)` over the indices of
/// llvm.getelementptr (of an integer or float element type, one index; or
/// of an array of those, the further indices into its elements) through
/// llvm.addrspacecast. None where a step is anything else.
struct Address {
  Attribute symbol;
  Value base;
  int64_t constant = 0;
  SmallVector<std::pair<Value, int64_t>, 2> scaled;
  bool sameAllocation(const Address &other) const {
    return symbol ? symbol == other.symbol : base == other.base;
  }
};
std::optional<Address> decomposeAddress(Value ptr);

/// cp.async (PTX ISA, "cp.async", "cp.async.commit_group",
/// "cp.async.wait_group", "cp.async.mbarrier.arrive"): the non-bulk copy
/// from global into the executing CTA's shared memory (its destination and
/// the bytes it writes there), the commit of the thread's open
/// cp.async-group, the N of a wait until at most N of the thread's newest
/// groups are pending, and the arrive-on that an mbarrier gets when the
/// thread's earlier cp.async copies land (`noinc`: counted in the barrier's
/// expected arrivals; without it the pending count is first incremented,
/// so the arrival is a net zero).
struct CpAsyncCopy {
  Value dst;
  int64_t bytes;
};
std::optional<CpAsyncCopy> cpAsyncCopyOf(Operation *op);
bool isCpAsyncCommitGroup(Operation *op);
std::optional<int64_t> cpAsyncWaitGroup(Operation *op);
struct CpAsyncArrive {
  Value barrier;
  bool noinc;
};
std::optional<CpAsyncArrive> cpAsyncMBarrierArriveOf(Operation *op);
/// Whether `op` is a cp.async.mbarrier.arrive on the barrier at `address`.
bool isCpAsyncArriveOn(Operation *op, Value address);

/// A read of the executing CTA's shared memory: llvm.load through a
/// pointer of the shared address space (the bytes of its type), or
/// nvvm.ldmatrix (16 bytes from each lane's row address; `lanes`: the lanes
/// whose address it reads, the first 8 per matrix). A null address for any
/// other op.
struct SharedRead {
  Value address;
  int64_t bytes = 1;
  uint32_t lanes = ~uint32_t(0);
};
SharedRead sharedReadOf(Operation *op);

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_UPSTREAMOPS_H
