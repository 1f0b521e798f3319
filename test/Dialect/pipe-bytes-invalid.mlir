// The byte check per path (docs/pipelines.md, "Rules", 4): where every path
// from the acquire to the commit is counted (constant copies, loops of
// constant bounds whose body lands the same bytes on every path, branches),
// each path must land what the commit expects.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics

func.func @loop_lands_more_than_the_commit(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %y: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  scf.for %i = %c0 to %c4 step %c1 {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y, %y], bytes 1024 : !mbarrier.pipe<2, tma>, !llvm.ptr
  }
  %b = arith.constant 2048 : i32
  // expected-error @+1 {{expects 2048 bytes on the full barrier, but the copies into this slot land 4096 bytes in each receiving CTA (1024 x 4 trips): the phase would complete early}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// Trips count the whole body: two copies per trip, three trips (0, 2, 4).
func.func @loop_of_two_copies_lands_less(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %size = arith.constant 512 : i32
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  scf.for %i = %c0 to %c5 step %c2 {
    mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<2, tma>
    mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<2, tma>
  }
  %b = arith.constant 4096 : i32
  // expected-error @+1 {{expects 4096 bytes on the full barrier, but the copies into this slot land 3072 bytes in each receiving CTA ((512 + 512) x 3 trips): the phase would never complete}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// Each path must land the bytes: here the else branch lands half of them.
func.func @one_branch_lands_less(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %c: i1, %y: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  scf.if %c {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr
  } else {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y], bytes 2048 : !mbarrier.pipe<2, tma>, !llvm.ptr
  }
  %b = arith.constant 4096 : i32
  // expected-error @+1 {{expects 4096 bytes on the full barrier, but on one of its 2 paths the copies into this slot land 2048 bytes in each receiving CTA (2048): the phase would never complete}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// A branch without else: the path around the copy lands nothing.
func.func @copy_on_one_path_only(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %c: i1, %y: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  scf.if %c {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr
  }
  %b = arith.constant 4096 : i32
  // expected-error @+1 {{expects 4096 bytes on the full barrier, but on one of its 2 paths the copies into this slot land 0 bytes in each receiving CTA (no copy): the phase would never complete}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// A constant condition is followed: one path, through the else branch.
func.func @constant_branch_lands_less(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %y: i32) {
  %false = arith.constant false
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  scf.if %false {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr
  } else {
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%y], bytes 2048 : !mbarrier.pipe<2, tma>, !llvm.ptr
  }
  %b = arith.constant 4096 : i32
  // expected-error @+1 {{expects 4096 bytes on the full barrier, but the copies into this slot land 2048 bytes in each receiving CTA (2048): the phase would never complete}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// Multicast counts each CTA of the row, also per trip of a loop.
gpu.module @m {
  gpu.func @multicast_in_a_loop(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    scf.for %i = %c0 to %c2 step %c1 {
      mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 1024 multicast row : !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>, !llvm.ptr
    }
    %b = arith.constant 2048 : i32
    // expected-error @+1 {{expects 2048 bytes on the full barrier, but the copies into this slot land 4096 bytes in each receiving CTA (1024 x 2 CTAs x 2 trips): the phase would complete early}}
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    gpu.return
  }
}
