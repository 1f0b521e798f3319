// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_sm80_multistage.mlir (same public source: cutlass
// include/cutlass/gemm/threadblock/mma_multistage.h, arch/memory_sm80.h).
// BUG: the mainloop's gmem_wait() keeps cp_async_wait<kStages - 2>() but
// drops its __syncthreads(): cp.async.wait_group only waits for the executing
// thread's own copies, so a thread reads its fragment of the next stage, a row
// another warp copied, while that copy may still be in flight; and the next
// step's copies into the write stage may overwrite a row a slower warp has not
// read yet. A diagnostic on the fragment read (BUG-ALT) is accepted.
// Some launches fail (wrong values when one warp runs a step ahead of
// another; with gemm_k_iterations = 1 the prologue's barrier covers the only
// read).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<12288 x i8>
  gpu.func @cutlass_sm80_multistage(%a: !llvm.ptr<1>, %d: !llvm.ptr<1>, %gemm_k_iterations: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my16 = arith.muli %tid, %i16 : i32
    // The row this thread's fragment load reads: copied by another warp.
    %peer0 = arith.addi %tid, %i32 : i32
    %peer = arith.remui %peer0, %i256 : i32
    %peer16 = arith.muli %peer, %i16 : i32
    // prologue(): stages 0 and 1.
    scf.for %s = %i0 to %i2 step %i1 : i32 {
      %live = arith.cmpi slt, %s, %gemm_k_iterations : i32
      scf.if %live {
        %so = arith.muli %s, %i4096 : i32
        %o = arith.addi %so, %my16 : i32
        %dst = llvm.getelementptr %smem[%o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %src = llvm.getelementptr %a[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    // gmem_wait()
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %k = %i0 to %gemm_k_iterations step %i1 iter_args(%sum = %zero) -> (f32) : i32 {
      %rs = arith.remui %k, %i3 : i32
      %ro0 = arith.muli %rs, %i4096 : i32
      %ro = arith.addi %ro0, %peer16 : i32
      %rp = llvm.getelementptr %smem[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %frag = llvm.load %rp : !llvm.ptr<3> -> f32 // BUG-ALT
      // The copies of tile k + 2 into the write stage (read in step k - 1).
      %nk = arith.addi %k, %i2 : i32
      %ws = arith.remui %nk, %i3 : i32
      %live = arith.cmpi slt, %nk, %gemm_k_iterations : i32
      scf.if %live {
        %wo0 = arith.muli %ws, %i4096 : i32
        %wo = arith.addi %wo0, %my16 : i32
        %dst = llvm.getelementptr %smem[%wo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %nk, %i4096 : i32
        %go = arith.addi %go0, %my16 : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // gmem_wait(): this thread's copies of tile k + 1, then everyone's.
      nvvm.cp.async.wait.group 1 // BUG
      %sum2 = arith.addf %sum, %frag : f32
      scf.yield %sum2 : f32
    }
    nvvm.cp.async.wait.group 0
    %op = llvm.getelementptr %d[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
