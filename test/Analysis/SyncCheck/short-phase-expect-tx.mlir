// Class 12's short phase where the one arrival per warp posts transaction
// bytes: the PTX ISA's cp.async.bulk with mbarrier.arrive.expect_tx, and
// NVIDIA/cutlass's SM90_BULK_COPY_G2S, have lane 0 of each warp copy its
// slice and arrive with the slice's bytes, on a barrier that counts one
// arrival per warp. Initialized with the block's threads instead (128, as
// for a barrier every thread arrives on), a phase gets 4 arrivals and the
// round's wait never returns. The elected arrival is the protocol there (it
// is the lane that issues the copy), so the count is the bug: the error is
// at the init, with notes at the wait and an arrival (where the elected
// arrival is a plain arrive, short-phase.mlir's consumers, it is at the
// arrival). Class 4's warning of a trip short of the count is the same bug
// and is not reported beside it.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

gpu.module @count_of_the_threads {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %rounds: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %t0 {
      // expected-error @+1 {{deadlock: initialized with arrival count 128, but a phase of the barrier gets 4 arrival(s): warps 0-3 arrive on it once each and then wait on it for the phase to complete (the count is more than the arrivals of a phase); each arrival is an arrive_expect_tx by the lane that posts its warp's copy bytes, one per warp, where the count is one per lane of those warps (a count of the warps was meant)}}
      mbarrier.init %bar[%c0], %i128 : !mbarrier.group<1>
    }
    gpu.barrier
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %bp = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    %soff = arith.muli %warp, %i1024 : i32
    %slice = llvm.getelementptr %tile[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    scf.for %r = %i0 to %rounds step %i1 : i32 {
      scf.if %lane0 {
        // expected-note @+1 {{an arrival on the barrier}}
        mbarrier.arrive_expect_tx %bar[%c0], %i1024 : !mbarrier.group<1>
        nvvm.cp.async.bulk.shared.cluster.global %slice, %src, %bp, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
      }
      %ph = arith.andi %r, %i1 : i32
      // expected-note @+1 {{the wait that never completes}}
      mbarrier.wait %bar[%c0], %ph : !mbarrier.group<1>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// The correct kernel: the barrier counts the 4 warps' arrivals. Silent.
gpu.module @count_of_the_warps {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %rounds: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %t0 {
      mbarrier.init %bar[%c0], %i4 : !mbarrier.group<1>
    }
    gpu.barrier
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %bp = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    %soff = arith.muli %warp, %i1024 : i32
    %slice = llvm.getelementptr %tile[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    scf.for %r = %i0 to %rounds step %i1 : i32 {
      scf.if %lane0 {
        mbarrier.arrive_expect_tx %bar[%c0], %i1024 : !mbarrier.group<1>
        nvvm.cp.async.bulk.shared.cluster.global %slice, %src, %bp, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
      }
      %ph = arith.andi %r, %i1 : i32
      mbarrier.wait %bar[%c0], %ph : !mbarrier.group<1>
      gpu.barrier
    }
    gpu.return
  }
}
