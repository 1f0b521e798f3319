// A cluster-form arrival (a remote view, `on %cta`) whose target the model
// proves to be the arriving CTA itself, at every point of its executing
// set, is a local arrival: a CTA barrier after the init suffices (no
// fence_init + cluster barrier), and no peer can outlive it. In a declared
// cluster of one CTA every target is the CTA itself.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct: CUTLASS's PipelineTmaAsync in a 1x1 cluster
// (include/cutlass/pipeline/sm90_pipeline.hpp, consumer_release):
// `empty_barrier.arrive(dst_blockid = 0, is_signalling_thread)` after the
// init and `__syncthreads()` (no cluster barrier for a cluster of one).
gpu.module @cutlass_1x1_release {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %empty[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %empty[%c0] on %zero if %leader : !mbarrier.group<1>
    mbarrier.wait %empty[%c0], %zero : !mbarrier.group<1>
    %r = mbarrier.remote_view %empty, cta_rank 0 : !mbarrier.group<1>
    mbarrier.arrive %r[%c0] if %leader : !mbarrier.remote<1>
    mbarrier.wait %empty[%c0], %one : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: FlashAttention-3's O barrier in a 1-CTA cluster
// (hopper/epilogue_fwd.hpp: `for cta_id < size(ClusterShape)
// barrier_O.arrive(cta_id, lane_predicate)`): the loop over the cluster's
// CTAs targets only the CTA itself.
gpu.module @fa3_barrier_o_one_cta {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %o = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %o[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %cta = %c0 to %c1 step %c1 {
      %r = arith.index_cast %cta : index to i32
      mbarrier.arrive %o[%c0] on %r if %leader : !mbarrier.group<1>
    }
    mbarrier.wait %o[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: in a cluster of 2, each CTA arrives through the cluster form on
// its own barrier (`on %rank`, its own rank); in a cluster of one
// (@dsmem_alone), a store through distributed shared memory and a
// cluster-form arrival reach only the CTA itself, which needs no cluster
// barrier before its exit.
gpu.module @own_rank {
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<4 x i8>
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] on %rank if %leader : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  gpu.func @dsmem_alone() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    %b = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %b7 = nvvm.mapa %b, %zero : !llvm.ptr<3> -> !llvm.ptr<7>
    scf.if %leader {
      llvm.store %one, %b7 : i32, !llvm.ptr<7>
    }
    mbarrier.arrive %g[%c0] on %zero if %leader : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Buggy twin: in a cluster of 2, every CTA arrives `on 0`: CTA 1 reaches
// CTA 0's barrier, whose init a CTA barrier does not publish to CTA 1.
gpu.module @rank_zero_of_two {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster: no mbarrier.fence_init and cluster barrier}}
    mbarrier.arrive %g[%c0] on %zero if %leader : !mbarrier.group<1>
    scf.if %first {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// No declared cluster: the launch may have one CTA per cluster (then `on 0`
// is the CTA itself, and correct) or several (then CTA 1 reaches CTA 0's
// unpublished barrier): a warning, not an error.
gpu.module @undeclared_cluster {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    // expected-warning @+2 {{may reach another CTA's barrier before its mbarrier.init is visible to the cluster: in a launch with clusters of more than one CTA (the kernel declares no known_cluster_size), no mbarrier.fence_init and cluster barrier}}
    // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
    mbarrier.arrive %g[%c0] on %zero if %leader : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Class 7 is about hand-offs between CTAs: a relaxed cluster-form arrival
// on the CTA's own barrier after a store is not judged as one (a relaxed
// arrival to another CTA is: test/Analysis/SyncCheck/memory-order.mlir).
gpu.module @own_cta_memory_order {
  llvm.mlir.global internal @box() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    %box = llvm.mlir.addressof @box : !llvm.ptr<3>
    scf.if %leader {
      llvm.store %rank, %box : i32, !llvm.ptr<3>
      mbarrier.arrive %g[%c0] on %rank {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero {scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
    gpu.return
  }
}
