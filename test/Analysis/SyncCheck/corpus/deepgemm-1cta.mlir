// Correct-kernel corpus: DeepGEMM's TMA pipeline without multicast, its
// barriers initialized by the first thread of the TMA warp group (not by
// thread 0). The checker must be silent (no error, no warning), and the
// kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.init.shared.b64

// deepseek-ai/DeepGEMM deep_gemm/include/deep_gemm/fp8_gemm.cuh
// (`fp8_gemm_kernel`, kNumTMAMulticast = 1): thread kNumMathThreads (256,
// the TMA warp group's first) initializes full[s] = 1 and empty[s] =
// kNumTMAMulticast x kNumMathThreads / 32 = 8, then __syncthreads(). The
// TMA thread waits empty[s], posts the bytes and copies; every math thread
// waits full[s], and lane 0 of each of the 8 math warps arrives on
// empty[s] (`empty_barrier_arrive`): the count DeepGEMM#51 is about.
gpu.module @deepgemm {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @fp8_gemm(%a: !llvm.ptr<1>, %k_blocks: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %eight = arith.constant 8 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %tma_thread = arith.cmpi eq, %tid, %c256 : index
    %math = arith.cmpi ult, %tid, %c256 : index
    %lane = arith.remui %tid, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %tma_thread {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %one : !mbarrier.group<4>
        mbarrier.init %empty[%s], %eight : !mbarrier.group<4>
      }
    }
    nvvm.barrier0
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    scf.if %math {
      scf.for %kb = %c0 to %k_blocks step %c1 {
        %s = arith.remui %kb, %c4 : index
        %round = arith.divui %kb, %c4 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %full[%s], %phase : !mbarrier.group<4>
        // ... WGMMA on the stage ...
        mbarrier.arrive %empty[%s] if %lane0 : !mbarrier.group<4>
      }
    } else {
      scf.if %tma_thread {
        scf.for %kb = %c0 to %k_blocks step %c1 {
          %s = arith.remui %kb, %c4 : index
          %round = arith.divui %kb, %c4 : index
          %r1 = arith.remui %round, %c2 : index
          %phase = arith.index_cast %r1 : index to i32
          mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<4>
          %off = arith.muli %s, %c4096 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %full[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %a, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
      }
    }
    gpu.return
  }
}
