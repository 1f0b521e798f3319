// Class 18 across warps: which synchronization orders a cp.async copy with
// a read by a thread of another warp. CTA-wide named barriers (bar.sync, and
// bar.arrive with the CTA's count) pair each thread's m-th arrival with the
// others' m-th wait; an order through an mbarrier, a named barrier of some
// warps or inline PTX is not followed (silence).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A cp.async producer warp whose stages the consumers release through
// mbarriers (the producer waits for the empty barrier before it copies,
// completes its copies with cp.async.wait_group 0 and arrives on the full
// barrier): the order is the mbarriers', which this class does not follow.
// Silent.
gpu.module @m {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  gpu.func @mbarrier_ordered(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i512 = arith.constant 512 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    %mine = arith.muli %lane, %i16 : i32
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %ph = arith.andi %k, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%c0], %pph : !mbarrier.group<1>
        %dst = llvm.getelementptr %base[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %k, %i512 : i32
        %go = arith.addi %go0, %mine : i32
        %g = llvm.getelementptr %src[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.commit.group
        nvvm.cp.async.wait.group 0
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
      }
    }
    %is_consumer = arith.cmpi eq, %warp, %i1 : i32
    scf.if %is_consumer {
      %zero = arith.constant 0.0 : f32
      %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %zero) -> (f32) : i32 {
        %ph = arith.andi %k, %i1 : i32
        mbarrier.wait %full[%c0], %ph : !mbarrier.group<1>
        %rp = llvm.getelementptr %base[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %x = llvm.load %rp : !llvm.ptr<3> -> f32
        %a1 = arith.addf %a, %x : f32
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        scf.yield %a1 : f32
      }
      %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %acc, %o : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}

// -----

// The plain missing __syncthreads(): each thread copies its chunk, waits for
// its own group and reads the chunk of a thread of the next warp. On every
// launch: an error, at the wait. The same read of a chunk of the own warp
// stays silent (__syncwarp and lockstep are not followed).
gpu.module @m {
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @wait_without_barrier(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    %dst = llvm.getelementptr %buf[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %src = llvm.getelementptr %a[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    // expected-note @+1 {{the cp.async copy the wait completes}}
    nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    // expected-error @+1 {{completes the cp.async-group of a copy that thread 0 reads, but no CTA barrier follows before the read}}
    nvvm.cp.async.wait.group 0
    %rp = llvm.getelementptr %buf[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    // expected-note @+1 {{the read of its destination}}
    %x = llvm.load %rp : !llvm.ptr<3> -> f32
    %i31 = arith.constant 31 : i32
    %lane = arith.andi %tid, %i31 : i32
    %wbase = arith.subi %tid, %lane : i32
    %l1 = arith.addi %lane, %i1 : i32
    %l2 = arith.andi %l1, %i31 : i32
    %n2 = arith.addi %wbase, %l2 : i32
    %near = arith.muli %n2, %i16 : i32
    %np = llvm.getelementptr %buf[%near] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %y = llvm.load %np : !llvm.ptr<3> -> f32
    %s = arith.addf %x, %y : f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %s, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The plain missing-barrier shape with the __syncthreads() written as inline
// PTX: the model does not see the barrier, so the pair of two warps is left
// to the rule of one warp (the reader's CTA barrier). Silent.
gpu.module @m {
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @asm_barrier(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    %dst = llvm.getelementptr %buf[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %src = llvm.getelementptr %a[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    llvm.inline_asm has_side_effects "bar.sync 0;", "~{memory}" : () -> ()
    %rp = llvm.getelementptr %buf[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %x = llvm.load %rp : !llvm.ptr<3> -> f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %x, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// A cp.async producer warp and a consumer warp handing one buffer over with
// named barriers of the whole CTA (the producer bar.arrive's `full` after
// its wait_group and bar.sync's `empty` before refilling; the consumer
// bar.sync's `full` and bar.arrive's `empty`): a thread's m-th arrival
// orders what it did before with what the others do after their m-th
// wait. Silent.
gpu.module @m {
  mbarrier.named_barrier @full id 1
  mbarrier.named_barrier @empty id 2
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<512 x i8>
  gpu.func @named_producer_consumer(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i512 = arith.constant 512 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %mine = arith.muli %lane, %i16 : i32
    %p = llvm.getelementptr %buf[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      scf.for %k = %i0 to %n step %i1 : i32 {
        %later = arith.cmpi sgt, %k, %i0 : i32
        scf.if %later {
          mbarrier.bar_sync @empty threads 64
        }
        %go0 = arith.muli %k, %i512 : i32
        %go = arith.addi %go0, %mine : i32
        %g = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %p, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.commit.group
        nvvm.cp.async.wait.group 0
        mbarrier.bar_arrive @full threads 64
      }
    } else {
      %zero = arith.constant 0.0 : f32
      %acc = scf.for %k = %i0 to %n step %i1 iter_args(%s = %zero) -> (f32) : i32 {
        mbarrier.bar_sync @full threads 64
        %x = llvm.load %p : !llvm.ptr<3> -> f32
        %s1 = arith.addf %s, %x : f32
        %k1 = arith.addi %k, %i1 : i32
        %more = arith.cmpi slt, %k1, %n : i32
        scf.if %more {
          mbarrier.bar_arrive @empty threads 64
        }
        scf.yield %s1 : f32
      }
      %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %acc, %o : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}

// -----

// The same with the producer's bar.arrive on `full` before its
// cp.async.wait_group: the consumer may read the buffer while the copy still
// writes it. A warning (the trip count is a parameter), at the read.
gpu.module @m {
  mbarrier.named_barrier @full id 1
  mbarrier.named_barrier @empty id 2
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<512 x i8>
  gpu.func @named_arrive_before_wait(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i512 = arith.constant 512 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %mine = arith.muli %lane, %i16 : i32
    %p = llvm.getelementptr %buf[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      scf.for %k = %i0 to %n step %i1 : i32 {
        %later = arith.cmpi sgt, %k, %i0 : i32
        scf.if %later {
          mbarrier.bar_sync @empty threads 64
        }
        %go0 = arith.muli %k, %i512 : i32
        %go = arith.addi %go0, %mine : i32
        %g = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-note @+1 {{the cp.async copy whose group is pending}}
        nvvm.cp.async.shared.global %p, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.commit.group
        mbarrier.bar_arrive @full threads 64
        nvvm.cp.async.wait.group 0
      }
    } else {
      %zero = arith.constant 0.0 : f32
      %acc = scf.for %k = %i0 to %n step %i1 iter_args(%s = %zero) -> (f32) : i32 {
        mbarrier.bar_sync @full threads 64
        // expected-warning @+1 {{reads shared memory that a cp.async copy (by thread 0) may still be writing on some launches: no cp.async.wait_group of the copying thread completes the copy's group before the CTA barrier that orders the read}}
        %x = llvm.load %p : !llvm.ptr<3> -> f32
        %s1 = arith.addf %s, %x : f32
        %k1 = arith.addi %k, %i1 : i32
        %more = arith.cmpi slt, %k1, %n : i32
        scf.if %more {
          mbarrier.bar_arrive @empty threads 64
        }
        scf.yield %s1 : f32
      }
      %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %acc, %o : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}

// -----

// An order through a third warp: warp 0 copies, bar.arrive's `ready` (the
// whole CTA's count), completes its copy and arrives on an mbarrier; warp 1
// waits on that mbarrier before its bar.sync on `ready`; warp 2 bar.sync's
// `ready` and reads the copy. The CTA barrier alone does not order the copy
// before the read; the mbarrier through warp 1 does, and the query does not
// follow such chains: after the writer's completion an arrival on anything
// but a CTA-wide barrier keeps the pair silent.
gpu.module @m {
  mbarrier.named_barrier @ready id 1
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<512 x i8>
  gpu.func @order_through_a_third_warp(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %done = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %done[%c0], %i32 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %mine = arith.muli %lane, %i16 : i32
    %p = llvm.getelementptr %buf[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %is_writer = arith.cmpi eq, %warp, %i0 : i32
    %is_relay = arith.cmpi eq, %warp, %i1 : i32
    %is_reader = arith.cmpi eq, %warp, %i2 : i32
    scf.if %is_writer {
      %g = llvm.getelementptr %a[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      nvvm.cp.async.shared.global %p, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      mbarrier.bar_arrive @ready threads 96
      nvvm.cp.async.wait.group 0
      mbarrier.arrive %done[%c0] : !mbarrier.group<1>
    }
    scf.if %is_relay {
      mbarrier.wait %done[%c0], %i0 : !mbarrier.group<1>
      mbarrier.bar_sync @ready threads 96
    }
    scf.if %is_reader {
      mbarrier.bar_sync @ready threads 96
      %x = llvm.load %p : !llvm.ptr<3> -> f32
      %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %x, %o : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
