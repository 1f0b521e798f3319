// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_fmha_order_softmax.mlir (same public source:
// NVIDIA/cutlass examples/77_blackwell_fmha, OrderBarrierSoftmax =
// OrderedSequenceBarrier<1, 2>, and sm90_pipeline.hpp's
// OrderedSequenceBarrier).
// BUG: the sequence's group_size is the 256 threads of both softmax
// warpgroups (NumMmaThreads where one group's 128 are meant): every
// barrier_[0][g] is initialized with 256, while a turn is handed on by the
// 128 threads of one warpgroup. Warpgroup 0 starts (its first wait passes),
// its 128 arrivals leave warpgroup 1's barrier short, warpgroup 1 waits for
// its first turn forever, and warpgroup 0 waits for its second.
// Every launch fails (for every %kv_blocks >= 1: warpgroup 1's first
// order_s.wait() never returns).
// BUG-ALT: the init of the counts, the turn's wait that never completes,
// and the arrive that is short of the count.
!acc = !llvm.struct<(f32, f32, f32, f32)>
!P = !mbarrier.pipe<2, tma, consumers = 2>
!S = !mbarrier.ordered_seq<1, 2, arrivals = 256> // BUG
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @cutlass_fmha_order_softmax(%map_k: !llvm.ptr, %out: !llvm.ptr<1>, %kv_blocks: i32) kernel
      attributes {known_block_size = array<i32: 288, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wtid = arith.remui %tid, %i128 : i32
    %wg_leader = arith.cmpi eq, %wtid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %pg = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %pg : !mbarrier.group<4> -> !P
    %sg = mbarrier.alloc : !mbarrier.group<2>
    %o = mbarrier.seq.create %sg : !mbarrier.group<2> -> !S
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
      mbarrier.seq.init %o : !S // BUG-ALT
    }
    mbarrier.fence_init
    gpu.barrier
    %k_base = llvm.mlir.addressof @smem_k : !llvm.ptr<3>

    // Load warp.
    %is_load = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_load {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %j = %i0 to %kv_blocks step %i1 iter_args(%s = %s0) -> (!mbarrier.pipe_state<producer>) : i32 {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
        %st32 = arith.index_cast %stage : index to i32
        %off = arith.muli %st32, %i4096 : i32
        %kdst = llvm.getelementptr %k_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %kvrow = arith.muli %j, %i64 : i32
        mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %kdst, %map_k[%i0, %kvrow], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.commit %p[%slot], bytes %i4096 : !P
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %end : !P
    }

    // Softmax warpgroups 0 and 1.
    %is_softmax = arith.cmpi ult, %tid, %i256 : i32
    scf.if %is_softmax {
      %cs0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %q0 = mbarrier.seq.start %o, %wg : !S
      %z = llvm.mlir.zero : !acc
      %zf = arith.constant 0.0 : f32
      %r:4 = scf.for %j = %i0 to %kv_blocks step %i1 iter_args(%cs = %cs0, %q = %q0, %a = %z, %rowsum = %zf) -> (!mbarrier.pipe_state<consumer>, !mbarrier.seq_state, !acc, f32) : i32 {
        %slot, %cnext = mbarrier.pipe.wait %p, %cs : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
        %st32 = arith.index_cast %stage : index to i32
        %off = arith.muli %st32, %i4096 : i32
        %ksrc = llvm.getelementptr %k_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ka32 = llvm.ptrtoint %ksrc : !llvm.ptr<3> to i32
        %ka = arith.extui %ka32 : i32 to i64
        %ksh = arith.shrui %ka, %c16 : i64
        %dk = arith.ori %ksh, %desc_hi : i64
        // S = Q K^T (Q stands in for a descriptor of the same stage).
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %dk, %dk, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.pipe.release %p[%slot] if %wg_leader : !P
        // order_s.wait(): this warpgroup's turn at the exponentials.
        %turn, %qn = mbarrier.seq.wait %o, %q : !S // BUG-ALT
        %sv = llvm.extractvalue %a2[0] : !acc
        %ev = math.exp2 %sv : f32
        %rs = arith.addf %rowsum, %ev : f32
        // order_s.arrive(): hand the turn to the other warpgroup.
        mbarrier.seq.arrive %o[%turn] : !S // BUG-ALT
        scf.yield %cnext, %qn, %a2, %rs : !mbarrier.pipe_state<consumer>, !mbarrier.seq_state, !acc, f32
      }
      %o0 = arith.muli %bid, %i256 : i32
      %oi = arith.addi %o0, %tid : i32
      %op = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#3, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
