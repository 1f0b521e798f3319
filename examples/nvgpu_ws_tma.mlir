// A warp-specialized TMA ring written in upstream MLIR's nvgpu dialect, in
// the style of upstream's sm90 matmul builder (mbarTMA/mbarDONE rings): it
// compiles through this project's pipeline with `raise-nvgpu=true`
// (docs/interop.md), which raises every nvgpu barrier and TMA load into the
// mbarrier dialect, so that the checker, the target checks and the default
// scopes apply.
//
// `%src` is the tensor `%map` describes (the kernel reads it through the
// map only). One CTA of 96 threads. Warp 0 is the producer: its thread 0 loads the
// 16x64 int32 tile t of `%map` (a tensor of `%tiles * 16` rows and 64
// columns) into stage t % 2 of a 2-stage ring in shared memory, posting the
// tile's 4096 bytes on the stage's `full` barrier (mbarTMA) with
// arrive.expect_tx; from the third tile on it first waits until the
// consumers released the stage (its `empty` barrier, mbarDONE). Warps 1 and
// 2 are the consumers (64 threads): each waits on `full`, writes its 16
// elements of the tile, plus one, to `%out` and arrives on `empty` (count
// 64); warp 2 sleeps 2 us before it releases, so the producer waits for the
// lagging consumer every lap.
//
// out[t * 1024 + r * 64 + c] = src[t * 16 + r][c] + 1.
//   mbarrier-compile examples/nvgpu_ws_tma.mlir --raise-nvgpu --emit ptx
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<16x64xi32, 3>
!map = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @stages : memref<8192xi8, 3> {alignment = 128 : i64}

    gpu.func @nvgpu_ws_tma(%src: !llvm.ptr<1>, %map: !map, %out: !llvm.ptr<1>, %tiles: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c1024 = arith.constant 1024 : index
      %c4096 = arith.constant 4096 : index
      %ticks = arith.constant 10000000 : index
      %one = arith.constant 1 : i32
      %sleep = arith.constant 2000 : i32
      %tid = gpu.thread_id x
      %full = nvgpu.mbarrier.create -> !bars
      %empty = nvgpu.mbarrier.create -> !bars
      // Thread 0 initializes every barrier; a CTA barrier makes the inits
      // visible before anyone arrives or waits.
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %full[%c0], %c1 : !bars
        nvgpu.mbarrier.init %full[%c1], %c1 : !bars
        nvgpu.mbarrier.init %empty[%c0], %c64 : !bars
        nvgpu.mbarrier.init %empty[%c1], %c64 : !bars
      }
      gpu.barrier
      %smem = memref.get_global @stages : memref<8192xi8, 3>
      %n = arith.index_cast %tiles : i32 to index
      %consumer = arith.cmpi uge, %tid, %c32 : index

      // The producer: thread 0 of warp 0.
      scf.if %leader {
        scf.for %t = %c0 to %n step %c1 {
          %s = arith.remui %t, %c2 : index
          %lap = arith.divui %t, %c2 : index
          %again = arith.cmpi uge, %t, %c2 : index
          scf.if %again {
            // Lap `lap` reuses the stage the consumers released in lap - 1.
            %prev = arith.subi %lap, %c1 : index
            %prev_parity = arith.index_cast %prev : index to i1
            nvgpu.mbarrier.try_wait.parity %empty[%s], %prev_parity, %ticks : !bars
          }
          %offset = arith.muli %s, %c4096 : index
          %stage = memref.view %smem[%offset][] : memref<8192xi8, 3> to !tile
          %row = arith.muli %t, %c16 : index
          nvgpu.mbarrier.arrive.expect_tx %full[%s], %c4096 : !bars
          nvgpu.tma.async.load %map[%c0, %row], %full[%s] to %stage : !map, !bars -> !tile
        }
      }

      // The consumers: warps 1 and 2; warp 2 releases late.
      scf.if %consumer {
        %col = arith.subi %tid, %c32 : index
        %lagging = arith.cmpi uge, %col, %c32 : index
        scf.for %t = %c0 to %n step %c1 {
          %s = arith.remui %t, %c2 : index
          %lap = arith.divui %t, %c2 : index
          %parity = arith.index_cast %lap : index to i1
          nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !bars
          %offset = arith.muli %s, %c4096 : index
          %stage = memref.view %smem[%offset][] : memref<8192xi8, 3> to !tile
          %base = arith.muli %t, %c1024 : index
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
          scf.if %lagging {
            nvvm.nanosleep %sleep
          }
          %token = nvgpu.mbarrier.arrive %empty[%s] : !bars -> !nvgpu.mbarrier.token
        }
      }
      gpu.return
    }
  }
}
