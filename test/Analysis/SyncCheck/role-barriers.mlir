// Classes 13, 14 and 15 (docs/checker.md): barriers that roles share by
// mistake. A CTA-wide barrier in a role branch (TIRx-kernels#21,
// triton#11710), one named-barrier id for two roles with one count, a
// bar.warp.sync whose mask leaves out a lane that executes it
// (sgl-project/sglang#9620). Each buggy kernel before its correct twin.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Class 13: the consumer warp group meets with __syncthreads (bar.sync 0)
// after its work; the producer warps never reach a CTA barrier.
// (The CTA meets on a named barrier first: a function whose only barrier
// is bar.sync 0 is not checked.)
mbarrier.named_barrier @all id 5
func.func @syncthreads_in_the_consumer_branch() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  mbarrier.bar_sync @all threads 256
  %consumer = arith.cmpi uge, %tid, %c128 : index
  scf.if %consumer {
    // expected-warning @+1 {{a CTA-wide barrier (bar.sync 0 for every thread of the CTA) that warps 4-7 reach in a branch, while warps 0-3 never reach one: it waits for their exit, not for a barrier of the warps that reach it (use a named barrier with their thread count)}}
    nvvm.barrier0
  }
  return
}

// -----

// Its correct twin: the consumers meet on a named barrier of 128 threads.
mbarrier.named_barrier @consumers id 5
func.func @named_barrier_in_the_consumer_branch() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %consumer = arith.cmpi uge, %tid, %c128 : index
  scf.if %consumer {
    mbarrier.bar_sync @consumers threads 128
  }
  gpu.barrier
  return
}

// -----

// Class 14: each warp group meets its own 128 threads on id 6: the two
// roles' phases mix (two warps of each can complete one).
mbarrier.named_barrier @epilogue id 6
func.func @one_id_two_roles_one_count() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    // expected-note @+1 {{the other role's sync on the id}}
    mbarrier.bar_sync @epilogue threads 128
  } else {
    // expected-warning @+1 {{syncs on named barrier @epilogue (id 6) for 128 threads (warps 4-7), and warps 0-3, which share no warp with them, sync on the same id with the same count: each group alone completes a phase, so the two roles' arrivals count toward each other's phases and a phase can complete with threads of both (give each role its own named barrier)}}
    mbarrier.bar_sync @epilogue threads 128
  }
  return
}

// -----

// Its correct twin: a barrier per warp group (CUTLASS's epilogue ids).
mbarrier.named_barrier @epilogue0 id 6
mbarrier.named_barrier @epilogue1 id 7
func.func @one_id_per_role() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    mbarrier.bar_sync @epilogue0 threads 128
  } else {
    mbarrier.bar_sync @epilogue1 threads 128
  }
  return
}

// -----

// Class 14 in a loop whose trip count is loaded from memory (DeepGEMM's
// masked grouped GEMM: the blocks below masked_m[blockIdx.y]): the points
// that may run the loop are those of its branches; warp group 1 syncs once
// on the id that warp group 0 syncs on twice: reported at warp group 1's,
// the role that uses the id fewer times.
gpu.module @m {
mbarrier.named_barrier @epilogue_wg0 id 6
gpu.func @loaded_trips_one_id_two_roles(%masked_m: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = llvm.load %masked_m : !llvm.ptr<1> -> i32
  %n = arith.index_cast %m : i32 to index
  %wg1 = arith.cmpi uge, %tid, %c128 : index
  scf.for %b = %c0 to %n step %c1 {
    scf.if %wg1 {
      // expected-warning @+1 {{syncs on named barrier @epilogue_wg0 (id 6) for 128 threads (warps 4-7), and warps 0-3, which share no warp with them, sync on the same id with the same count}}
      mbarrier.bar_sync @epilogue_wg0 threads 128
    } else {
      // expected-note @+1 {{the other role's sync on the id}}
      mbarrier.bar_sync @epilogue_wg0 threads 128
      mbarrier.bar_sync @epilogue_wg0 threads 128
    }
  }
  gpu.return
}
}

// -----

// Its correct twin: each warp group on its own id, in the same loop.
gpu.module @m {
mbarrier.named_barrier @epilogue_wg0 id 6
mbarrier.named_barrier @epilogue_wg1 id 7
gpu.func @loaded_trips_one_id_per_role(%masked_m: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = llvm.load %masked_m : !llvm.ptr<1> -> i32
  %n = arith.index_cast %m : i32 to index
  %wg1 = arith.cmpi uge, %tid, %c128 : index
  scf.for %b = %c0 to %n step %c1 {
    scf.if %wg1 {
      mbarrier.bar_sync @epilogue_wg1 threads 128
    } else {
      mbarrier.bar_sync @epilogue_wg0 threads 128
      mbarrier.bar_sync @epilogue_wg0 threads 128
    }
  }
  gpu.return
}
}

// -----

// A trip count that each thread loads from its own address may differ
// between the roles: not followed (silent).
gpu.module @m {
mbarrier.named_barrier @epilogue id 6
gpu.func @per_thread_trips_not_followed(%counts: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %t = arith.index_cast %tid : index to i64
  %p = llvm.getelementptr %counts[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
  %m = llvm.load %p : !llvm.ptr<1> -> i32
  %n = arith.index_cast %m : i32 to index
  %wg1 = arith.cmpi uge, %tid, %c128 : index
  scf.for %b = %c0 to %n step %c1 {
    scf.if %wg1 {
      mbarrier.bar_sync @epilogue threads 128
    } else {
      mbarrier.bar_sync @epilogue threads 128
    }
  }
  gpu.return
}
}

// -----

// A ping-pong's shared id with the count of both groups (256) is one
// barrier of the two: silent.
mbarrier.named_barrier @turn id 6
func.func @one_id_both_groups_count() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    mbarrier.bar_sync @turn threads 256
  } else {
    mbarrier.bar_sync @turn threads 256
  }
  return
}

// -----

// Class 15: the upper half-warp syncs with the lower half's mask (the
// sglang#9620 shape: a fixed mask for a group that depends on the lane).
func.func @warp_sync_mask_leaves_out_its_lanes() attributes {known_block_size = array<i32: 32, 1, 1>} {
  %tid = gpu.thread_id x
  %c16 = arith.constant 16 : index
  %mask = arith.constant 65535 : i32
  %upper = arith.cmpi uge, %tid, %c16 : index
  scf.if %upper {
    // expected-error @+1 {{bar.warp.sync with member mask 0xFFFF is executed by thread 16 (lane 16), which the mask leaves out: the behaviour is undefined (the executing thread must be in the mask)}}
    nvvm.bar.warp.sync %mask : i32
  }
  return
}

// -----

// Its correct twin: each half syncs with its own half's mask.
func.func @warp_sync_mask_per_half() attributes {known_block_size = array<i32: 32, 1, 1>} {
  %tid = gpu.thread_id x
  %c16 = arith.constant 16 : index
  %lower = arith.constant 65535 : i32
  %upperMask = arith.constant -65536 : i32
  %upper = arith.cmpi uge, %tid, %c16 : index
  scf.if %upper {
    nvvm.bar.warp.sync %upperMask : i32
  } else {
    nvvm.bar.warp.sync %lower : i32
  }
  return
}
