// Class 20: a store into another CTA's shared memory in every trip of a
// loop in which that CTA reads the memory, while nothing in the loop comes
// back from the reader to the storing CTA (no arrival of the reader on a
// barrier of the storer, no cluster barrier): a later trip's store may
// overwrite what the reader has not read yet. A warning (a race: it shows
// when the storer runs a lap ahead). Where the reader frees the slot on its
// own barrier of the group that the storer waits on before its store (the
// remote view left out), the warning is at that arrival. The correct shapes
// are ThunderKittens' cluster rings (the reader arrives on the sender's
// empty barrier: tma::cluster::arrive(bar, dst_cta)) and a cluster barrier
// per step (cute's cluster_sync()).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The receiver frees its own empty[b] instead of the sender's: a warning at
// that arrival, a note at the store.
gpu.module @release_on_own_slot {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %last = scf.for %s = %i0 to %n step %i1 iter_args(%v = %tid) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i32 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x i32>
      mbarrier.wait %empty[%b], %pph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-note @+1 {{the store into CTA 1's memory}}
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = llvm.load %mine : !llvm.ptr<3> -> i32
      // expected-warning @+1 {{frees the slot on CTA 1's own barrier after CTA 1 read it, but CTA 0, which stores into it (@inbox), waits on its own barrier of this group before the store: this arrival never reaches CTA 0, and nothing else in the loop comes back from CTA 1 to CTA 0, so a later trip's store may overwrite what CTA 1 has not read yet (arrive on the storing CTA's barrier, through a remote view of the group)}}
      mbarrier.arrive %empty[%b] : !mbarrier.group<2>
      scf.yield %got : i32
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// ThunderKittens' ring: the receiver frees the sender's empty[b] through a
// remote view. Silent.
gpu.module @release_on_senders_slot {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %last = scf.for %s = %i0 to %n step %i1 iter_args(%v = %tid) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i32 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x i32>
      mbarrier.wait %empty[%b], %pph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = llvm.load %mine : !llvm.ptr<3> -> i32
      mbarrier.arrive %prev_empty[%b] : !mbarrier.remote<2>
      scf.yield %got : i32
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// No empty barriers in the loop at all: the sender never hears from the
// receiver. A warning at the store.
gpu.module @no_release_at_all {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    // expected-note @+1 {{the loop}}
    %last = scf.for %s = %i0 to %n step %i1 iter_args(%v = %tid) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i32 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x i32>

      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-warning @+1 {{stores into CTA 1's shared memory (@inbox) from CTA 0 in every trip of a loop in which CTA 1 reads it, but nothing in the loop comes back from CTA 1 to CTA 0 (no arrival of CTA 1 on a barrier of CTA 0, no cluster barrier): a later trip's store may overwrite what CTA 1 has not read yet (free the slot by arriving on the sender's barrier, through a remote view of it)}}
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = llvm.load %mine : !llvm.ptr<3> -> i32

      scf.yield %got : i32
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A cluster barrier at every step (cute's cluster_sync() after the read).
// Silent.
gpu.module @cluster_barrier_every_step {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %last = scf.for %s = %i0 to %n step %i1 iter_args(%v = %tid) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i32 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x i32>

      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = llvm.load %mine : !llvm.ptr<3> -> i32
      nvvm.cluster.arrive
      nvvm.cluster.wait
      scf.yield %got : i32
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The receiver reads only after the loop (each trip overwrites the sender's
// own earlier store). Silent.
gpu.module @read_after_the_loop {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %last = scf.for %s = %i0 to %n step %i1 iter_args(%v = %tid) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i32 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x i32>

      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = arith.addi %v, %i1 : i32

      scf.yield %got : i32
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
