// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fa3_fp8_vtranspose(
// Follows Dao-AILab/flash-attention hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp
// for FP8 (Transpose_V: the producer warpgroup loads V with TMA into
// pipeline_v, then all its warps transpose it: pipeline_v.consumer_wait,
// pipeline_vt.producer_acquire, transpose_V's smem stores,
// cutlass::arch::fence_view_async_shared() (fence.proxy.async.shared::cta),
// pipeline_vt.producer_commit (every producer thread arrives: a PipelineAsync
// with NumProducerThreads), pipeline_v.consumer_release) and the MMA
// warpgroups' consumer_wait(pipeline_vt) / wgmma / warpgroup_wait /
// consumer_release. The K path (as in fa3_fwd) is left out.
// 384 threads: warpgroup 0 loads (its thread 0 issues the TMA) and transposes;
// warpgroups 1 and 2 consume V^t. 2 stages each; %n_kv (a parameter) blocks.
!PV = !mbarrier.pipe<2, tma, consumers = 128>
!PT = !mbarrier.pipe<2, arrive, producers = 128, consumers = 2>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @fa3_fp8_vtranspose(%map_v: !llvm.ptr, %desc_p: i64, %out: !llvm.ptr<1>, %n_kv: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %gv = mbarrier.alloc : !mbarrier.group<4>
    %gt = mbarrier.alloc : !mbarrier.group<4>
    %pv = mbarrier.pipe.create %gv : !mbarrier.group<4> -> !PV
    %pt = mbarrier.pipe.create %gt : !mbarrier.group<4> -> !PT
    scf.if %is_tid0 {
      mbarrier.pipe.init %pv : !PV
      mbarrier.pipe.init %pt : !PT
    }
    mbarrier.fence_init
    gpu.barrier
    %v_base = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    %vt_base = llvm.mlir.addressof @smem_vt : !llvm.ptr<3>

    %is_producer_wg = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_producer_wg {
      %w0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %r0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %t0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:3 = scf.for %n = %i0 to %n_kv step %i1 iter_args(%w = %w0, %r = %r0, %t = %t0)
          -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<producer>) : i32 {
        // Thread 0 loads V of block n.
        %wn = scf.if %is_tid0 -> (!mbarrier.pipe_state<producer>) {
          %slot, %next = mbarrier.pipe.acquire %pv, %w : !PV
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st = arith.index_cast %stage : index to i32
          %off = arith.muli %st, %i4096 : i32
          %dst = llvm.getelementptr %v_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %row = arith.muli %n, %i64 : i32
          mbarrier.pipe.cp_async_bulk_tensor %pv[%slot], %dst, %map_v[%row, %bid], bytes 4096 : !PV, !llvm.ptr
          mbarrier.pipe.commit %pv[%slot], bytes %i4096 : !PV
          scf.yield %next : !mbarrier.pipe_state<producer>
        } else {
          scf.yield %w : !mbarrier.pipe_state<producer>
        }
        // The warpgroup transposes V of block n into V^t.
        %vslot, %rn = mbarrier.pipe.wait %pv, %r : !PV
        %tslot, %tn = mbarrier.pipe.acquire %pt, %t : !PT
        %vst = mbarrier.pipe.stage %vslot : !mbarrier.slot<consumer>
        %vs = arith.index_cast %vst : index to i32
        %tst = mbarrier.pipe.stage %tslot : !mbarrier.slot<producer>
        %ts = arith.index_cast %tst : index to i32
        %voff = arith.muli %vs, %i4096 : i32
        %toff = arith.muli %ts, %i4096 : i32
        %my4 = arith.muli %wg_tid, %i4 : i32
        %vi = arith.addi %voff, %my4 : i32
        %src = llvm.getelementptr %v_base[%vi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %x = llvm.load %src : !llvm.ptr<3> -> i32
        %col = arith.remui %wg_tid, %i32 : i32
        %rowt = arith.divui %wg_tid, %i32 : i32
        %c4 = arith.muli %col, %i4 : i32
        %tix = arith.addi %c4, %rowt : i32
        %tb = arith.muli %tix, %i4 : i32
        %ti = arith.addi %toff, %tb : i32
        %dst = llvm.getelementptr %vt_base[%ti] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %x, %dst : i32, !llvm.ptr<3>
        // fence_view_async_shared: the wgmma reads V^t through the async proxy.
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.pipe.commit %pt[%tslot] : !PT
        mbarrier.pipe.release %pv[%vslot] : !PV
        scf.yield %wn, %rn, %tn : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<producer>
      }
      scf.if %is_tid0 {
        mbarrier.pipe.tail %pv, %fin#0 : !PV
      }
      mbarrier.pipe.tail %pt, %fin#2 : !PT
    }

    %is_mma = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_mma {
      %leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %res:2 = scf.for %n = %i0 to %n_kv step %i1 iter_args(%s = %c0s, %o = %z) -> (!mbarrier.pipe_state<consumer>, !acc) : i32 {
        %slot, %next = mbarrier.pipe.wait %pt, %s : !PT
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
        %st = arith.index_cast %stage : index to i32
        %off = arith.muli %st, %i4096 : i32
        %src = llvm.getelementptr %vt_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %a32 = llvm.ptrtoint %src : !llvm.ptr<3> to i32
        %a = arith.extui %a32 : i32 to i64
        %sh = arith.shrui %a, %c16 : i64
        %desc_vt = arith.ori %sh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %o2 = nvvm.wgmma.mma_async %desc_p, %desc_vt, %o, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.pipe.release %pt[%slot] if %leader : !PT
        scf.yield %next, %o2 : !mbarrier.pipe_state<consumer>, !acc
      }
      %e = llvm.extractvalue %res#1[0] : !acc
      %i256 = arith.constant 256 : i32
      %r0 = arith.muli %bid, %i256 : i32
      %r1 = arith.subi %tid, %i128 : i32
      %r = arith.addi %r0, %r1 : i32
      %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
