// Class 8, per group: a pool (one shared-memory global) holds several
// groups at disjoint offsets (lang's smem_pool: barrier groups, pipes,
// ordered sequences). The init of one group does not initialize another:
// each group left out of the prologue is reported at its own first use,
// with a note at its view. Views that may overlap keep the old rule (an
// init through one may reach the other): silent.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-check-sync

// Two barrier groups of one pool, only `full` initialized: the producer's
// first wait on `empty` runs on an uninitialized barrier. The loop may run
// no trip (a kernel parameter), so a warning.
gpu.module @second_group_left_out {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %at16 = llvm.getelementptr %base[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %full = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<2>
    // expected-note @+1 {{the group is a view of memory made here}}
    %empty = mbarrier.view %at16 : !llvm.ptr<3> -> !mbarrier.group<2>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    scf.if %leader {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<2>
      %c1 = arith.constant 1 : index
      mbarrier.init %full[%c1], %i32 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %bit = arith.andi %round, %i1 : i32
        %parity = arith.xori %bit, %i1 : i32
        // expected-warning @+1 {{may use a barrier of a group that is never initialized}}
        mbarrier.wait %empty[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    } else {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: both groups initialized. Silent.
gpu.module @both_groups_initialized {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %at16 = llvm.getelementptr %base[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %full = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<2>
    %empty = mbarrier.view %at16 : !llvm.ptr<3> -> !mbarrier.group<2>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    scf.if %leader {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i32 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %bit = arith.andi %round, %i1 : i32
        %parity = arith.xori %bit, %i1 : i32
        mbarrier.wait %empty[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    } else {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// A pipe and an ordered sequence of one pool, only a second pipe
// initialized: each of them is reported at its first use that certainly
// runs (the producer's tail, the sequence's first turn in a loop of four
// trips), an error each.
gpu.module @pipe_and_sequence_left_out {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<192 x i8>
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %at32 = llvm.getelementptr %base[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %at64 = llvm.getelementptr %base[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %g0 = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<4>
    %p0 = mbarrier.pipe.create %g0 : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    // expected-note @+1 {{the group is a view of memory made here}}
    %g1 = mbarrier.view %at32 : !llvm.ptr<3> -> !mbarrier.group<4>
    %p1 = mbarrier.pipe.create %g1 : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    // expected-note @+1 {{the group is a view of memory made here}}
    %g2 = mbarrier.view %at64 : !llvm.ptr<3> -> !mbarrier.group<4>
    %order = mbarrier.seq.create %g2 : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 32>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %lane0 = arith.cmpi eq, %t, %c32 : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    scf.if %first {
      mbarrier.pipe.init %p0 : !mbarrier.pipe<2, arrive>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p0, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p0[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p0, %end : !mbarrier.pipe<2, arrive>
      %st1 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end1 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st1) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p1, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p1[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      // expected-error @+1 {{uses a barrier of a group that is never initialized}}
      mbarrier.pipe.tail %p1, %end1 : !mbarrier.pipe<2, arrive>
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p0, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.release %p0[%slot] if %lane0 : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
      %st1 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end1 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st1) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p1, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.release %p1[%slot] if %lane0 : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    %w = arith.divui %t, %c32 : i32
    %me = mbarrier.seq.start %order, %w : !mbarrier.ordered_seq<2, 2, arrivals = 32>
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %me) -> !mbarrier.seq_state {
      // expected-error @+1 {{uses a barrier of a group that is never initialized}}
      %turn, %next = mbarrier.seq.wait %order, %s : !mbarrier.ordered_seq<2, 2, arrivals = 32>
      mbarrier.seq.arrive %order[%turn] : !mbarrier.ordered_seq<2, 2, arrivals = 32>
      scf.yield %next : !mbarrier.seq_state
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// Two views that overlap (the second starts inside the first): an init
// through one may be of the other's barrier. Silent.
gpu.module @overlapping_views {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %at8 = llvm.getelementptr %base[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %a = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<2>
    %b = mbarrier.view %at8 : !llvm.ptr<3> -> !mbarrier.group<1>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    scf.if %leader {
      mbarrier.init %a[%c1], %c32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    mbarrier.arrive %b[%c0] : !mbarrier.group<1>
    mbarrier.wait %b[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
