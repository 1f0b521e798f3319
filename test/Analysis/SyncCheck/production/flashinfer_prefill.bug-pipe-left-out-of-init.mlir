// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of flashinfer_prefill.mlir): a group left out of the init
// prologue: the V pipe is never initialized (its pipe.init is missing from the
// thread-0 init block; the K pipe and barrier_Q are initialized).
// The op: the mbarrier.pipe.create of %vp (marked // BUG), the pipe that is used
// uninitialized; a diagnostic on an op of the V pipe (its acquire, wait, and
// tail, marked // BUG-ALT) is also accepted.
// Every launch (expected: an error): the kv-tile count is >= 1; waits and
// arrivals on an uninitialized mbarrier are undefined (in practice the
// consumers' first V wait never completes).
//
// Follows flashinfer-ai/flashinfer include/flashinfer/attention/hopper/prefill_sm90.cuh
// (PrefillWithKVCacheKernel: the producer warpgroup's warp 0 loads, the
// consumer warpgroups compute; one query tile per CTA) and
// include/flashinfer/attention/hopper/mainloop.cuh (CollectiveMainloop::load:
// Q on barrier_Q, then K and V of each kv tile through pipeline_k / pipeline_v;
// num_kv_tiles = ceil(kv_len / CTA_KV)) and epilogue.cuh (direct global stores).
// 384 threads: thread 0 is the producer, warpgroups 1 and 2 the consumers;
// 2-stage K and V pipes (one release per consumer warpgroup);
// the kv-tile count is ceil(%kv_len / 64), a kernel parameter.
!P = !mbarrier.pipe<2, tma, consumers = 2>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_q() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @flashinfer_prefill(%map_q: !llvm.ptr, %map_k: !llvm.ptr, %map_v: !llvm.ptr, %out: !llvm.ptr<1>,
                               %kv_len: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i63 = arith.constant 63 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %kv_up = arith.addi %kv_len, %i63 : i32
    %n_kv = arith.divui %kv_up, %i64 : i32
    %qg = mbarrier.alloc : !mbarrier.group<1>
    %kg = mbarrier.alloc : !mbarrier.group<4>
    %vg = mbarrier.alloc : !mbarrier.group<4>
    %kp = mbarrier.pipe.create %kg : !mbarrier.group<4> -> !P
    %vp = mbarrier.pipe.create %vg : !mbarrier.group<4> -> !P // BUG
    scf.if %is_tid0 {
      mbarrier.init %qg[%c0], %i1 : !mbarrier.group<1>
      mbarrier.pipe.init %kp : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %q_base = llvm.mlir.addressof @smem_q : !llvm.ptr<3>
    %k_base = llvm.mlir.addressof @smem_k : !llvm.ptr<3>
    %v_base = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    scf.if %is_tid0 {
      %qrow = arith.muli %bid, %i128 : i32
      mbarrier.arrive_expect_tx %qg[%c0], %i8192 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %qg[%c0], %q_base, %map_q[%i0, %qrow], bytes 8192 : !mbarrier.group<1>, !llvm.ptr
      %ks0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %vs0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:2 = scf.for %j = %i0 to %n_kv step %i1 iter_args(%k = %ks0, %v = %vs0)
          -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>) : i32 {
        %row = arith.muli %j, %i64 : i32
        %kslot, %knext = mbarrier.pipe.acquire %kp, %k : !P
        %kstage = mbarrier.pipe.stage %kslot : !mbarrier.slot<producer>
        %kst = arith.index_cast %kstage : index to i32
        %koff = arith.muli %kst, %i4096 : i32
        %kdst = llvm.getelementptr %k_base[%koff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.pipe.cp_async_bulk_tensor %kp[%kslot], %kdst, %map_k[%i0, %row], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.commit %kp[%kslot], bytes %i4096 : !P
        %vslot, %vnext = mbarrier.pipe.acquire %vp, %v : !P // BUG-ALT
        %vstage = mbarrier.pipe.stage %vslot : !mbarrier.slot<producer>
        %vst = arith.index_cast %vstage : index to i32
        %voff = arith.muli %vst, %i4096 : i32
        %vdst = llvm.getelementptr %v_base[%voff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.pipe.cp_async_bulk_tensor %vp[%vslot], %vdst, %map_v[%i0, %row], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.commit %vp[%vslot], bytes %i4096 : !P
        scf.yield %knext, %vnext : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %kp, %fin#0 : !P
      mbarrier.pipe.tail %vp, %fin#1 : !P // BUG-ALT
    }
    %is_consumer = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_consumer {
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %qa32 = llvm.ptrtoint %q_base : !llvm.ptr<3> to i32
      %qa = arith.extui %qa32 : i32 to i64
      %qsh = arith.shrui %qa, %c16 : i64
      %desc_q = arith.ori %qsh, %desc_hi : i64
      mbarrier.wait %qg[%c0], %i0 : !mbarrier.group<1>
      %ks0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %vs0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %z = llvm.mlir.zero : !acc
      %r:3 = scf.for %j = %i0 to %n_kv step %i1 iter_args(%k = %ks0, %v = %vs0, %o = %z)
          -> (!mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>, !acc) : i32 {
        %kslot, %knext = mbarrier.pipe.wait %kp, %k : !P
        %kstage = mbarrier.pipe.stage %kslot : !mbarrier.slot<consumer>
        %kst = arith.index_cast %kstage : index to i32
        %koff = arith.muli %kst, %i4096 : i32
        %ksrc = llvm.getelementptr %k_base[%koff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ka32 = llvm.ptrtoint %ksrc : !llvm.ptr<3> to i32
        %ka = arith.extui %ka32 : i32 to i64
        %ksh = arith.shrui %ka, %c16 : i64
        %desc_k = arith.ori %ksh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %s = nvvm.wgmma.mma_async %desc_q, %desc_k, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.pipe.release %kp[%kslot] if %wg_leader : !P
        %vslot, %vnext = mbarrier.pipe.wait %vp, %v : !P // BUG-ALT
        %vstage = mbarrier.pipe.stage %vslot : !mbarrier.slot<consumer>
        %vst = arith.index_cast %vstage : index to i32
        %voff = arith.muli %vst, %i4096 : i32
        %vsrc = llvm.getelementptr %v_base[%voff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %va32 = llvm.ptrtoint %vsrc : !llvm.ptr<3> to i32
        %va = arith.extui %va32 : i32 to i64
        %vsh = arith.shrui %va, %c16 : i64
        %desc_v = arith.ori %vsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %o2 = nvvm.wgmma.mma_async %desc_q, %desc_v, %o, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.pipe.release %vp[%vslot] if %wg_leader : !P
        scf.yield %knext, %vnext, %o2 : !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>, !acc
      }
      %e = llvm.extractvalue %r#2[0] : !acc
      %row0 = arith.muli %bid, %i128 : i32
      %crow = arith.subi %tid, %i128 : i32
      %idx = arith.addi %row0, %crow : i32
      %idx64 = arith.extui %idx : i32 to i64
      %p = llvm.getelementptr %out[%idx64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %e, %p : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
