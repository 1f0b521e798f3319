// Class 2 in a kernel without any mbarrier op: a load, store or atomic through a
// `.shared::cluster` pointer (DSMEM) followed by the kernel's exit with no
// cluster barrier. The peer may have exited, and its shared memory gone,
// before the access lands (fb/triton#1105, triton#9413). The checker runs on
// such kernels too.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Each CTA reads its peer's word after a cluster barrier, then exits.
gpu.module @dsmem_load_then_exit {
  llvm.mlir.global internal @word() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %mine = llvm.mlir.addressof @word : !llvm.ptr<3>
    llvm.store %rank, %mine : i32, !llvm.ptr<3>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) in between}}
    %v = llvm.load %theirs : !llvm.ptr<7> -> i32
    llvm.store %v, %out : i32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The correct twin (a DSMEM all-gather's shape): a cluster barrier after
// the read keeps every CTA alive until its peers are done.
gpu.module @dsmem_load_then_cluster_barrier {
  llvm.mlir.global internal @word() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %mine = llvm.mlir.addressof @word : !llvm.ptr<3>
    llvm.store %rank, %mine : i32, !llvm.ptr<3>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %v = llvm.load %theirs : !llvm.ptr<7> -> i32
    llvm.store %v, %out : i32, !llvm.ptr<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A DSMEM store on some path only (a runtime flag): a warning.
gpu.module @dsmem_store_on_some_path {
  llvm.mlir.global internal @word() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %mine = llvm.mlir.addressof @word : !llvm.ptr<3>
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %flag {
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      llvm.store %rank, %theirs : i32, !llvm.ptr<7>
    } else {
      nvvm.cluster.arrive
      nvvm.cluster.wait
    }
    gpu.return
  }
}

// -----

// A DSMEM atomic is a remote access too (CUDA's atomicAdd through
// cluster.map_shared_rank: an llvm.atomicrmw on a `.shared::cluster`
// pointer; the DSMEM histogram of the CUDA guide): followed by the exit
// with no cluster barrier, the peer may have exited before the add lands.
gpu.module @dsmem_atomic_then_exit {
  llvm.mlir.global internal @bins() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<32 x i32>
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %bins = llvm.mlir.addressof @bins : !llvm.ptr<3>
    %mine = llvm.getelementptr %bins[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x i32>
    llvm.store %zero, %mine : i32, !llvm.ptr<3>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) in between}}
    %old = llvm.atomicrmw add %theirs, %one monotonic : !llvm.ptr<7>, i32
    gpu.return
  }
}

// -----

// The correct twin: the guide's second cluster.sync() after the adds.
gpu.module @dsmem_atomic_then_cluster_barrier {
  llvm.mlir.global internal @bins() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<32 x i32>
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %bins = llvm.mlir.addressof @bins : !llvm.ptr<3>
    %mine = llvm.getelementptr %bins[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x i32>
    llvm.store %zero, %mine : i32, !llvm.ptr<3>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %old = llvm.atomicrmw add %theirs, %one monotonic : !llvm.ptr<7>, i32
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %count = llvm.load %mine : !llvm.ptr<3> -> i32
    llvm.store %count, %out : i32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// A compare-and-swap on the peer's word (atomicCAS: llvm.cmpxchg) on some
// path only, then the exit: a warning.
gpu.module @dsmem_cmpxchg_on_some_path {
  llvm.mlir.global internal @word() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %mine = llvm.mlir.addressof @word : !llvm.ptr<3>
    %theirs = nvvm.mapa %mine, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %flag {
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      %r = llvm.cmpxchg %theirs, %zero, %one acq_rel monotonic : !llvm.ptr<7>, i32
    } else {
      nvvm.cluster.arrive
      nvvm.cluster.wait
    }
    gpu.return
  }
}
