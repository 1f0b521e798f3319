// Named barriers onto upstream NVVM: bar_sync -> nvvm.barrier id number_of_threads,
// bar_arrive -> nvvm.barrier.arrive, bar_red -> nvvm.inline_ptx (MLIR 22's
// nvvm.barrier reduces only on barrier 0);
// the declarations are erased. Then down to the PTX text, the bar.sync / bar.arrive /
// bar.red ids and counts.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier."
// RUN: mbarrier-compile %s --no-check-sync --emit ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx --implicit-check-not="bar.sync" --implicit-check-not="bar.arrive" --implicit-check-not="barrier.sync" --implicit-check-not="barrier.arrive"

// CHECK-LABEL: gpu.module @named
gpu.module @named {
  mbarrier.named_barrier @turn id 9
  mbarrier.named_barrier @epilogue id 1
  mbarrier.named_barrier @vote id 4
  // CHECK-LABEL: gpu.func @k(
  // CHECK-SAME: %[[P:[^:]*]]: i1
  // PTX-LABEL: .entry k(
  gpu.func @k(%p: i1, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    // CHECK-DAG: %[[ID9:.*]] = llvm.mlir.constant(9 : i32) : i32
    // CHECK-DAG: %[[N256:.*]] = llvm.mlir.constant(256 : i32) : i32
    // CHECK: nvvm.barrier id = %[[ID9]] number_of_threads = %[[N256]]{{$}}
    // PTX: bar.sync 9, 256;
    mbarrier.bar_sync @turn threads 256
    // CHECK-DAG: %[[ID9B:.*]] = llvm.mlir.constant(9 : i32) : i32
    // CHECK-DAG: %[[N256B:.*]] = llvm.mlir.constant(256 : i32) : i32
    // CHECK: nvvm.barrier.arrive id = %[[ID9B]] number_of_threads = %[[N256B]]{{$}}
    // PTX: bar.arrive 9, 256;
    mbarrier.bar_arrive @turn threads 256
    // CHECK-DAG: %[[ID1:.*]] = llvm.mlir.constant(1 : i32) : i32
    // CHECK-DAG: %[[N384:.*]] = llvm.mlir.constant(384 : i32) : i32
    // CHECK: nvvm.barrier id = %[[ID1]] number_of_threads = %[[N384]]{{$}}
    // PTX: bar.sync 1, 384;
    mbarrier.bar_sync @epilogue threads 384
    // CHECK: nvvm.inline_ptx "bar.red.popc.u32 $0, 4, 128, $1;" ro(%[[P]] : i1) -> i32
    // PTX: bar.red.popc.u32 %r{{[0-9]+}}, 4, 128, %p{{[0-9]+}};
    %n = mbarrier.bar_red popc @vote threads 128, %p : i32
    // CHECK: nvvm.inline_ptx "bar.red.and.pred $0, 4, 128, $1;" ro(%[[P]] : i1) -> i1
    // PTX: bar.red.and.pred %p{{[0-9]+}}, 4, 128, %p{{[0-9]+}};
    %all = mbarrier.bar_red and @vote threads 128, %p : i1
    // CHECK: nvvm.inline_ptx "bar.red.or.pred $0, 4, 128, $1;" ro(%[[P]] : i1) -> i1
    // PTX: bar.red.or.pred %p{{[0-9]+}}, 4, 128, %p{{[0-9]+}};
    %any = mbarrier.bar_red or @vote threads 128, %p : i1
    %a = llvm.zext %all : i1 to i32
    %o = llvm.zext %any : i1 to i32
    %s = llvm.add %n, %a : i32
    %t = llvm.add %s, %o : i32
    llvm.store %t, %out : i32, !llvm.ptr<1>
    gpu.return
  }
}
