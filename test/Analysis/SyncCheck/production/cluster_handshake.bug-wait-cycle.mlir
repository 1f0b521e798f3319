// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of cluster_handshake.mlir): a cross-CTA wait-for cycle. CTA 0 no
// longer serves first: both CTAs wait on their own barrier before their thread 0
// arrives on the peer's, so CTA 0 waits for CTA 1's arrival while CTA 1 waits for
// CTA 0's.
// The op: the mbarrier.wait of the serving branch, moved above its arrive
// (marked // BUG); the peer's wait in the other branch closes the cycle.
// Every launch (expected: an error): %rounds >= 1 and no arrival precedes the
// first wait in either CTA; the kernel hangs in round 0.
//
// Follows the 2-CTA handshake of NVIDIA/cutlass include/cutlass/arch/barrier.h
// (ClusterBarrier::arrive(cta_id, pred) / wait(phase)) in the shape of
// deepseek-ai/DeepEP's and ThunderKittens' cluster producer/consumer turns:
// CTA 0 serves first; each round the serving CTA's thread 0 writes a token into
// the peer's @slot (st.shared::cluster) and arrives on the peer's barrier
// (release.cluster); the peer's threads wait (acquire.cluster), read it, meet on
// bar.sync, and the peer's thread 0 answers. %rounds (a parameter) rounds.
// Init made visible by fence_init + a cluster barrier; a final cluster barrier
// before exit. out[rank * 64 + t] = rounds in which thread t saw the right token.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @slot() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @cluster_handshake(%out: !llvm.ptr<1>, %rounds: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %i1 : i32
    %remote = mbarrier.remote_view %bar, %peer : !mbarrier.group<1>
    %slot = llvm.mlir.addressof @slot : !llvm.ptr<3>
    %peer_slot = nvvm.mapa %slot, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %serves = arith.cmpi eq, %rank, %i0 : i32
    %good = scf.for %r = %i0 to %rounds step %i1 iter_args(%g = %i0) -> (i32) : i32 {
      %ph = arith.andi %r, %i1 : i32
      %twice = arith.muli %r, %i2 : i32
      %sent = arith.addi %twice, %rank : i32
      %expected = arith.addi %twice, %peer : i32
      %seen = scf.if %serves -> (i32) {
        mbarrier.wait %bar[%c0], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1> // BUG
        %v = llvm.load %slot : !llvm.ptr<3> -> i32
        nvvm.barrier0
        scf.if %is_tid0 {
          llvm.store %sent, %peer_slot : i32, !llvm.ptr<7>
          mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
        }
        scf.yield %v : i32
      } else {
        mbarrier.wait %bar[%c0], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
        %v = llvm.load %slot : !llvm.ptr<3> -> i32
        nvvm.barrier0
        scf.if %is_tid0 {
          llvm.store %sent, %peer_slot : i32, !llvm.ptr<7>
          mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
        }
        scf.yield %v : i32
      }
      %ok = arith.cmpi eq, %seen, %expected : i32
      %inc = arith.extui %ok : i1 to i32
      %g2 = arith.addi %g, %inc : i32
      scf.yield %g2 : i32
    }
    %row = arith.muli %rank, %i64 : i32
    %idx = arith.addi %row, %tid : i32
    %idx64 = arith.extui %idx : i32 to i64
    %p = llvm.getelementptr %out[%idx64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    llvm.store %good, %p : i32, !llvm.ptr<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
