// mbarrier-allocate-named-barriers: the lowest free id for each declaration
// without one; 0 reserved by default; explicit ids and the constant ids of
// upstream nvvm.barrier ops of the module are taken; `reserved` moves the
// assignment past CUTLASS's ids; ids are per module.
// RUN: mbarrier-opt %s -split-input-file --mbarrier-allocate-named-barriers | FileCheck %s
// RUN: mbarrier-opt %s -split-input-file --mbarrier-allocate-named-barriers="reserved=0,1-7" | FileCheck %s --check-prefix=CUTLASS
// RUN: mbarrier-opt %s -split-input-file --mbarrier-allocate-named-barriers="reserved=" | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: gpu.module @lowest_free_ids
// CHECK: mbarrier.named_barrier @a id 1{{$}}
// CHECK: mbarrier.named_barrier @explicit id 2{{$}}
// CHECK: mbarrier.named_barrier @b id 4{{$}}
// CHECK: mbarrier.named_barrier @c id 5{{$}}
// CUTLASS-LABEL: gpu.module @lowest_free_ids
// CUTLASS: mbarrier.named_barrier @a id 8{{$}}
// CUTLASS: mbarrier.named_barrier @explicit id 2{{$}}
// CUTLASS: mbarrier.named_barrier @b id 9{{$}}
// CUTLASS: mbarrier.named_barrier @c id 10{{$}}
// NONE-LABEL: gpu.module @lowest_free_ids
// NONE: mbarrier.named_barrier @a id 0{{$}}
// NONE: mbarrier.named_barrier @explicit id 2{{$}}
// NONE: mbarrier.named_barrier @b id 1{{$}}
// NONE: mbarrier.named_barrier @c id 4{{$}}
gpu.module @lowest_free_ids {
  mbarrier.named_barrier @a
  mbarrier.named_barrier @explicit id 2
  mbarrier.named_barrier @b
  mbarrier.named_barrier @c
  gpu.func @k() kernel {
    %id3 = arith.constant 3 : i32
    %n = arith.constant 64 : i32
    // Id 3 is taken by this upstream named barrier.
    nvvm.barrier id = %id3 number_of_threads = %n
    mbarrier.bar_sync @a threads 64
    mbarrier.bar_sync @b threads 64
    mbarrier.bar_sync @c threads 64
    mbarrier.bar_sync @explicit threads 64
    gpu.return
  }
}

// -----

// Each module has its own ids.
// CHECK-LABEL: gpu.module @first
// CHECK: mbarrier.named_barrier @x id 1{{$}}
// CHECK-LABEL: gpu.module @second
// CHECK: mbarrier.named_barrier @y id 1{{$}}
gpu.module @first {
  mbarrier.named_barrier @x
}
gpu.module @second {
  mbarrier.named_barrier @y
}
