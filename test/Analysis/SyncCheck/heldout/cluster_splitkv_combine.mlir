// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cluster_splitkv_combine(
// Follows the split-KV combine of Dao-AILab/flash-attention
// hopper/flash_fwd_combine_kernel.h (each split's partial O and LSE,
// rescaled by exp(lse_split - lse_max) and summed) done inside a thread-block
// cluster instead of through global memory, with the transport of NVIDIA/cutlass
// include/cutlass/arch/barrier.h (ClusterBarrier::arrive(cta_id, pred): mapa +
// mbarrier.arrive.release.cluster.shared::cluster) and the DSMEM stores of
// the CUDA C++ Programming Guide's distributed shared memory example.
// A 4-CTA cluster of 128 threads; CTA r handles KV split r of the same query
// tile. Ranks 1-3: every thread stores its partial o and its row's lse into
// rank 0's @inbox[r] and arrives on rank 0's barrier (count 3 x 128 = 384,
// release at cluster scope). Rank 0 waits (acquire, cluster), combines its
// own partial with the three received ones and writes the output. Only rank
// 0's shared memory is accessed remotely, and rank 0 waits for every access
// to it, so no cluster barrier is needed before exit. %n_kv (a parameter)
// kv steps per split.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x f32>
  gpu.func @cluster_splitkv_combine(%s_in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n_kv: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i384 = arith.constant 384 : i32
    %i512 = arith.constant 512 : i32
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant -1.0e30 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_root = arith.cmpi eq, %rank, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    %init_here = arith.andi %is_root, %is_tid0 : i1
    scf.if %init_here {
      mbarrier.init %bar[%c0], %i384 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // This split's partial: a running max and sum over its kv steps.
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %q0 = arith.muli %cid, %i128 : i32
    %q = arith.addi %q0, %tid : i32
    %part:2 = scf.for %j = %i0 to %n_kv step %i1 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) : i32 {
      %jr = arith.muli %j, %i512 : i32
      %rr = arith.muli %rank, %i128 : i32
      %i2 = arith.addi %jr, %rr : i32
      %i3 = arith.addi %i2, %tid : i32
      %sp = llvm.getelementptr %s_in[%i3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %sv = llvm.load %sp : !llvm.ptr<1> -> f32
      %m2 = arith.maximumf %m, %sv : f32
      %d = arith.subf %sv, %m2 : f32
      %ex = math.exp %d : f32
      %l2 = arith.addf %l, %ex : f32
      scf.yield %m2, %l2 : f32, f32
    }
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %true = arith.constant true
    %not_root = arith.xori %is_root, %true : i1
    scf.if %not_root {
      // inbox[r] = (o[128], lse[128]) at float offset 256 * (r - 1).
      %r1 = arith.subi %rank, %i1 : i32
      %slot = arith.muli %r1, %i256 : i32
      %oi = arith.addi %slot, %tid : i32
      %li0 = arith.addi %slot, %i128 : i32
      %li = arith.addi %li0, %tid : i32
      %op = llvm.getelementptr %inbox[0, %oi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
      %lp = llvm.getelementptr %inbox[0, %li] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
      %ro = nvvm.mapa %op, %i0 : !llvm.ptr<3> -> !llvm.ptr<7>
      %rl = nvvm.mapa %lp, %i0 : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %part#1, %ro : f32, !llvm.ptr<7>
      llvm.store %part#0, %rl : f32, !llvm.ptr<7>
      %root = mbarrier.remote_view %bar, %i0 : !mbarrier.group<1>
      mbarrier.arrive %root[%c0] : !mbarrier.remote<1>
    }
    scf.if %is_root {
      mbarrier.wait %bar[%c0], %i0 {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %comb:2 = scf.for %r = %i0 to %i384 step %i128 iter_args(%mx = %part#0, %sum = %part#1) -> (f32, f32) : i32 {
        %slot = arith.addi %r, %r : i32
        %oi = arith.addi %slot, %tid : i32
        %li0 = arith.addi %slot, %i128 : i32
        %li = arith.addi %li0, %tid : i32
        %op = llvm.getelementptr %inbox[0, %oi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
        %lp = llvm.getelementptr %inbox[0, %li] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
        %o = llvm.load %op : !llvm.ptr<3> -> f32
        %ls = llvm.load %lp : !llvm.ptr<3> -> f32
        %mx2 = arith.maximumf %mx, %ls : f32
        %d1 = arith.subf %mx, %mx2 : f32
        %d2 = arith.subf %ls, %mx2 : f32
        %e1 = math.exp %d1 : f32
        %e2 = math.exp %d2 : f32
        %s1 = arith.mulf %sum, %e1 : f32
        %s2 = arith.mulf %o, %e2 : f32
        %sum2 = arith.addf %s1, %s2 : f32
        scf.yield %mx2, %sum2 : f32, f32
      }
      %outp = llvm.getelementptr %out[%q] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %comb#1, %outp : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
