// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of nvgpu_ring3.mlir): arrival count vs init count. mbarDONE is
// initialized with count 128 (the block), but only the 96 consumer threads
// (warps 1-3) arrive on it per phase.
// The op: the nvgpu.mbarrier.init of %done (marked // BUG).
// Every launch (expected: an error): 6 tiles over 3 stages; the producer's wait
// before tile 3 waits for a phase of mbarDONE[0] that never completes; the
// kernel hangs.
//
// Follows upstream llvm/llvm-project mlir/test/Integration/GPU/CUDA/sm90/python/
// tools/matmulBuilder.py (generate_matmul_ws: the mbarTMA / mbarDONE rings of a
// warp-specialized kernel, nvgpu.mbarrier.* + nvgpu.tma.async.load), compiled
// with --raise-nvgpu (mbarrier-raise-nvgpu). One CTA of 128 threads; thread 0
// loads tile t (16 x 64 i32) of %map into stage t % 3 of a 3-stage ring, with
// arrive.expect_tx on mbarTMA[s]; from the fourth tile on it first waits until
// the consumers released the stage (mbarDONE[s], count 96). Warps 1-3 (96
// threads) wait on mbarTMA[s], add one to their column and arrive on mbarDONE[s].
// 6 tiles (a constant). out[t * 1024 + r * 64 + c] = src[t * 16 + r][c] + 1, c < 64.
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
!tile = memref<16x64xi32, 3>
!map = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @stages : memref<12288xi8, 3> {alignment = 128 : i64}
    gpu.func @nvgpu_ring3(%map: !map, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c6 = arith.constant 6 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c96 = arith.constant 96 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %c4096 = arith.constant 4096 : index
      %ticks = arith.constant 10000000 : index
      %one = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %tma = nvgpu.mbarrier.create -> !bars
      %done = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        scf.for %s = %c0 to %c3 step %c1 {
          nvgpu.mbarrier.init %tma[%s], %c1 : !bars
          nvgpu.mbarrier.init %done[%s], %c128 : !bars // BUG
        }
      }
      gpu.barrier
      %smem = memref.get_global @stages : memref<12288xi8, 3>
      %consumer = arith.cmpi uge, %tid, %c32 : index
      scf.if %leader {
        scf.for %t = %c0 to %c6 step %c1 {
          %s = arith.remui %t, %c3 : index
          %lap = arith.divui %t, %c3 : index
          %again = arith.cmpi uge, %t, %c3 : index
          scf.if %again {
            %prev = arith.subi %lap, %c1 : index
            %prev_parity = arith.index_cast %prev : index to i1
            nvgpu.mbarrier.try_wait.parity %done[%s], %prev_parity, %ticks : !bars
          }
          %offset = arith.muli %s, %c4096 : index
          %stage = memref.view %smem[%offset][] : memref<12288xi8, 3> to !tile
          %row = arith.muli %t, %c16 : index
          nvgpu.mbarrier.arrive.expect_tx %tma[%s], %c4096 : !bars
          nvgpu.tma.async.load %map[%c0, %row], %tma[%s] to %stage : !map, !bars -> !tile
        }
      }
      scf.if %consumer {
        %col = arith.subi %tid, %c32 : index
        %in_tile = arith.cmpi ult, %col, %c64 : index
        scf.for %t = %c0 to %c6 step %c1 {
          %s = arith.remui %t, %c3 : index
          %lap = arith.divui %t, %c3 : index
          %parity = arith.index_cast %lap : index to i1
          nvgpu.mbarrier.try_wait.parity %tma[%s], %parity, %ticks : !bars
          %offset = arith.muli %s, %c4096 : index
          %stage = memref.view %smem[%offset][] : memref<12288xi8, 3> to !tile
          %base = arith.muli %t, %c1024 : index
          scf.if %in_tile {
            scf.for %r = %c0 to %c16 step %c1 {
              %v = memref.load %stage[%r, %col] : !tile
              %w = arith.addi %v, %one : i32
              %rc = arith.muli %r, %c64 : index
              %e0 = arith.addi %base, %rc : index
              %e = arith.addi %e0, %col : index
              %e64 = arith.index_cast %e : index to i64
              %p = llvm.getelementptr %out[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
              llvm.store %w, %p : i32, !llvm.ptr<1>
            }
          }
          %token = nvgpu.mbarrier.arrive %done[%s] : !bars -> !nvgpu.mbarrier.token
        }
      }
      gpu.return
    }
  }
}
