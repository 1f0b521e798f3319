// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cuda_guide_spatial_partition(
// Follows the CUDA C++ Programming Guide, "Asynchronous Barrier" ->
// "Spatial Partitioning (also known as Warp Specialization)"
// (producer_consumer_pattern: __shared__ barrier bar[4], each initialized by
// threads 0-3 with init(bar + rank, block.size()), block.sync(); warp 0 is the
// producer: ready[i%2].arrive_and_wait(), fill buffer_(i%2),
// filled[i%2].arrive(); the other warps consume: ready[0].arrive() and
// ready[1].arrive() once up front, then filled[i%2].arrive_and_wait(),
// consume, ready[i%2].arrive()). Every barrier counts all 128 threads.
// 128 threads; %n and %buffer_len are the guide's parameters, the trip count
// is N / buffer_len (>= 1). arrive_and_wait on the i-th use of buffer i%2 is
// an arrive followed by a wait for the phase with parity (i/2) & 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @buffer() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  gpu.func @cuda_guide_spatial_partition(%n: i32, %buffer_len: i32, %in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %ready = mbarrier.alloc : !mbarrier.group<2>
    %filled = mbarrier.alloc : !mbarrier.group<2>
    // if (block.thread_rank() < 4) init(bar + block.thread_rank(), block.size());
    %is_init = arith.cmpi ult, %tid, %i4 : i32
    scf.if %is_init {
      %is_ready = arith.cmpi ult, %tid, %i2 : i32
      %b32 = arith.remui %tid, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      scf.if %is_ready {
        mbarrier.init %ready[%b], %i128 : !mbarrier.group<2>
      } else {
        mbarrier.init %filled[%b], %i128 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    %buf = llvm.mlir.addressof @buffer : !llvm.ptr<3>
    %trips = arith.divui %n, %buffer_len : i32
    %is_producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        // ready[i%2].arrive_and_wait(): buffer_(i%2) may be filled.
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
        mbarrier.wait %ready[%s], %ph : !mbarrier.group<2>
        %g0 = arith.muli %i, %i32 : i32
        %g = arith.addi %g0, %lane : i32
        %src = llvm.getelementptr %in[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %v = llvm.load %src : !llvm.ptr<1> -> f32
        %o0 = arith.muli %s32, %i32 : i32
        %o = arith.addi %o0, %lane : i32
        %dst = llvm.getelementptr %buf[0, %o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x f32>
        llvm.store %v, %dst : f32, !llvm.ptr<3>
        // filled[i%2].arrive(): buffer_(i%2) is filled.
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
      }
    } else {
      // Both buffers are ready for their first fill.
      mbarrier.arrive %ready[%c0] : !mbarrier.group<2>
      mbarrier.arrive %ready[%c1] : !mbarrier.group<2>
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        // filled[i%2].arrive_and_wait(): buffer_(i%2) is filled.
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
        mbarrier.wait %filled[%s], %ph : !mbarrier.group<2>
        %o0 = arith.muli %s32, %i32 : i32
        %o = arith.addi %o0, %lane : i32
        %src = llvm.getelementptr %buf[0, %o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<64 x f32>
        %v = llvm.load %src : !llvm.ptr<3> -> f32
        // ready[i%2].arrive(): buffer_(i%2) may be refilled.
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
        %g0 = arith.muli %i, %i128 : i32
        %g = arith.addi %g0, %tid : i32
        %dst = llvm.getelementptr %out[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %v, %dst : f32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
}
