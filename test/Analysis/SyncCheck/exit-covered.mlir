// Class 2, where the target CTA's own wait keeps it alive: in a kernel that
// declares its cluster, a remote access whose every target CTA waits on the barrier it reaches, in a wait that may
// come after it (later in program order, in a loop around both, or by other
// threads than the accessing ones: CUTLASS's producer_tail waits on the empty
// barriers the peers release, the consumers on the full barriers the
// multicast copies complete on) may be drained by that wait. Which phases the
// wait covers is not followed, so the model cannot decide: silence (issue 20;
// the corpus kernels cutlass-tma-async-multicast, deepgemm-multicast,
// pipe-cutlass-2x1). Where a target does not wait on that barrier at all,
// or only before the access, or where the kernel declares no cluster (no
// target evaluates: own-cta.mlir), the class 2 diagnostic stays (exit.mlir).
// A load or store of another CTA's shared memory (nvvm.mapa) reaches no
// barrier; it is covered where the same threads then arrive (release) on a
// barrier of the CTA they accessed, at every point, and that arrival is
// covered: the target's wait for it keeps the target alive until the stores
// have landed (ThunderKittens' cluster sends, FA3's split-KV combine over
// DSMEM). An arrival on another CTA than the store's, or before the store,
// does not cover it; a store whose target never waits keeps its diagnostic
// (exit-dsmem-only.mlir).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Each CTA arrives on its peer's barrier, then waits for the peer's arrival
// on its own: the peer cannot exit before this arrival has landed.
gpu.module @target_waits_after_the_arrival {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Warp-specialized: warp 1 releases the peer's barrier, warp 0 waits on its
// own, earlier in program order but in other threads (no thread executes
// both), as a producer's tail waits for the consumers' releases.
gpu.module @other_threads_wait_earlier_in_program_order {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %producer {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    } else {
      %lane = arith.remui %t, %c32 : i32
      %lane0 = arith.cmpi eq, %lane, %zero : i32
      scf.if %lane0 {
        mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      }
    }
    gpu.return
  }
}

// -----

// Buggy: the waiting thread waits before it arrives on the peer, and waits
// for nothing after: the peer's last wait precedes this arrival in every
// thread that executes both. A warning (a wait in the kernel may still drain
// it through another hand-off).
gpu.module @target_waits_only_before_the_arrival {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    gpu.return
  }
}

// -----

// Buggy: only CTA 0 waits; CTA 0's arrival on CTA 1's barrier is drained by
// nothing in CTA 1.
gpu.module @one_target_does_not_wait {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    scf.if %first {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// Every CTA but rank 0 stores into rank 0's inbox and then arrives on rank
// 0's barrier; rank 0 waits for all of them before it reads and exits (a
// ThunderKittens cluster send, FA3's split-KV combine): silent.
gpu.module @dsmem_store_then_arrival_on_its_target {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %true = arith.constant true
    %not_root = arith.xori %is_root, %true : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    %count = arith.constant 96 : i32
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %mine = llvm.getelementptr %inbox[0, %t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x f32>
    scf.if %not_root {
      %theirs = nvvm.mapa %mine, %zero : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %theirs : f32, !llvm.ptr<7>
      %root = mbarrier.remote_view %g, %zero : !mbarrier.group<1>
      mbarrier.arrive %root[%c0] : !mbarrier.remote<1>
    }
    scf.if %is_root {
      mbarrier.wait %g[%c0], %zero {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %x = llvm.load %mine : !llvm.ptr<3> -> f32
    }
    gpu.return
  }
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x f32>
}

// -----

// The store after the arrival: the wait may return before it lands, and
// rank 0 exit under it.
gpu.module @dsmem_store_after_the_arrival {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %true = arith.constant true
    %not_root = arith.xori %is_root, %true : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    %count = arith.constant 96 : i32
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %mine = llvm.getelementptr %inbox[0, %t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x f32>
    scf.if %not_root {
      %root = mbarrier.remote_view %g, %zero : !mbarrier.group<1>
      mbarrier.arrive %root[%c0] : !mbarrier.remote<1>
      %theirs = nvvm.mapa %mine, %zero : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      llvm.store %v, %theirs : f32, !llvm.ptr<7>
    }
    scf.if %is_root {
      mbarrier.wait %g[%c0], %zero {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %x = llvm.load %mine : !llvm.ptr<3> -> f32
    }
    gpu.return
  }
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x f32>
}

// -----

// Ranks 1 to 3 store into the next CTA's inbox (rank 3 into rank 0's) but
// arrive on rank 0's barrier: ranks 2 and 3, whose inboxes receive, never
// wait for those stores.
gpu.module @dsmem_store_to_another_cta_than_the_arrival {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %true = arith.constant true
    %not_root = arith.xori %is_root, %true : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    %count = arith.constant 96 : i32
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %mine = llvm.getelementptr %inbox[0, %t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x f32>
    %four = arith.constant 4 : i32
    %n1 = arith.addi %rank, %one : i32
    %next = arith.remui %n1, %four : i32
    scf.if %not_root {
      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      llvm.store %v, %theirs : f32, !llvm.ptr<7>
      %root = mbarrier.remote_view %g, %zero : !mbarrier.group<1>
      mbarrier.arrive %root[%c0] : !mbarrier.remote<1>
    }
    scf.if %is_root {
      mbarrier.wait %g[%c0], %zero {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %x = llvm.load %mine : !llvm.ptr<3> -> f32
    }
    gpu.return
  }
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x f32>
}

// -----

// The store and the arrival on its target's barrier, but no CTA waits on
// that barrier: nothing keeps rank 0 alive.
gpu.module @dsmem_store_then_arrival_nobody_waits_for {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %true = arith.constant true
    %not_root = arith.xori %is_root, %true : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    %count = arith.constant 96 : i32
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %mine = llvm.getelementptr %inbox[0, %t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x f32>
    scf.if %not_root {
      %theirs = nvvm.mapa %mine, %zero : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier}}
      llvm.store %v, %theirs : f32, !llvm.ptr<7>
      %root = mbarrier.remote_view %g, %zero : !mbarrier.group<1>
      // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier}}
      mbarrier.arrive %root[%c0] : !mbarrier.remote<1>
    }
    gpu.return
  }
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x f32>
}
