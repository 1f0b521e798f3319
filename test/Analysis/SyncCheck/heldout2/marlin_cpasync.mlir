// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry marlin_cpasync(
// Follows IST-DASLab/marlin marlin/marlin_cuda_kernel.cu (the Marlin int4 x
// fp16 GEMM's shared-memory pipeline: stages = 4; start_pipes():
// fetch_to_shared(i, i, i < slice_iters) for i < stages - 1, each ending in
// cp_async_fence(), then wait_for_stage() = cp_async_wait<stages - 2>() +
// __syncthreads(); in the main loop, fetch_to_shared((pipe + stages - 1) %
// stages, pipe, slice_iters >= stages) refills the stage read in the previous
// step, then wait_for_stage() before the next stage is read; a group is
// committed every step, empty once the slice has no more tiles).
// 128 threads, each with one 16-byte cp_async4 per stage (cp.async.cg);
// 4 stages of 2048 bytes; %slice_iters tiles (a parameter).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @sh() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @marlin_cpasync(%b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %slice_iters: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sh = llvm.mlir.addressof @sh : !llvm.ptr<3>
    %my16 = arith.muli %tid, %i16 : i32
    // start_pipes(): stages - 1 groups, then wait_for_stage().
    scf.for %i = %i0 to %i3 step %i1 : i32 {
      %live = arith.cmpi slt, %i, %slice_iters : i32
      scf.if %live {
        %so = arith.muli %i, %i2048 : i32
        %d = arith.addi %so, %my16 : i32
        %dst = llvm.getelementptr %sh[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.addi %so, %my16 : i32
        %src = llvm.getelementptr %b[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    nvvm.cp.async.wait.group 2
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %it = %i0 to %slice_iters step %i1 iter_args(%a = %zero) -> (f32) : i32 {
      // fetch_to_registers: this step's stage.
      %pipe = arith.remui %it, %i4 : i32
      %ro = arith.muli %pipe, %i2048 : i32
      %r = arith.addi %ro, %my16 : i32
      %rp = llvm.getelementptr %sh[%r] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      // fetch_to_shared((pipe + stages - 1) % stages, ...): the stage every
      // thread finished reading before the last __syncthreads().
      %nt = arith.addi %it, %i3 : i32
      %ns = arith.remui %nt, %i4 : i32
      %live = arith.cmpi slt, %nt, %slice_iters : i32
      scf.if %live {
        %so = arith.muli %ns, %i2048 : i32
        %d = arith.addi %so, %my16 : i32
        %dst = llvm.getelementptr %sh[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go = arith.muli %nt, %i2048 : i32
        %g = arith.addi %go, %my16 : i32
        %src = llvm.getelementptr %b[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // wait_for_stage(): cp_async_wait<stages - 2>(); __syncthreads();
      nvvm.cp.async.wait.group 2
      gpu.barrier
      %a2 = arith.addf %a, %x : f32
      scf.yield %a2 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
