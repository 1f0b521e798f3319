// Calls: a cluster sync, a re-init or the final cluster barrier done in a
// helper is part of the caller's protocol (the reproducers: helpers that do
// the kernel's cluster sync, a re-init, and the cluster barrier before exit). The checker walks a callee of the module (one block, not
// recursive) in its caller's context, its diagnostics located at the
// callee's op "called from" the call; a call it cannot see into (an
// external function, recursion) may synchronize, so what follows it is not
// judged, and a group passed to it is not followed.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct (s2d): the init is published, the peer drained and the barrier
// re-initialized, each by a helper.
gpu.module @sync_in_helper {
  func.func private @cluster_sync() {
    nvvm.cluster.arrive
    nvvm.cluster.wait
    return
  }
  func.func private @reinit(%g: !mbarrier.group<1>, %n: i32) {
    %c0 = arith.constant 0 : index
    mbarrier.init %g[%c0], %n : !mbarrier.group<1>
    return
  }
  gpu.func @k() kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.fence_init
    func.call @cluster_sync() : () -> ()
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    func.call @cluster_sync() : () -> ()
    mbarrier.inval %g[%c0] : !mbarrier.group<1>
    func.call @reinit(%g, %two) : (!mbarrier.group<1>, i32) -> ()
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct (s2e): the final cluster barrier is a helper's, reached through a
// second helper.
gpu.module @exit_helper {
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<4 x i8>
  func.func private @cluster_sync() {
    nvvm.cluster.arrive
    nvvm.cluster.wait
    return
  }
  func.func private @finish() {
    func.call @cluster_sync() : () -> ()
    return
  }
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    %b = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %b7 = nvvm.mapa %b, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    scf.if %leader {
      llvm.store %rank, %b7 : i32, !llvm.ptr<7>
    }
    func.call @finish() : () -> ()
    gpu.return
  }
}

// -----

// Buggy: the helper only fences the init; nothing publishes it before the
// remote arrival, which the helper makes (the diagnostic is at the
// helper's op, called from the kernel).
gpu.module @helper_without_cluster_barrier {
  func.func private @fence() {
    mbarrier.fence_init
    return
  }
  func.func private @poke(%g: !mbarrier.group<1>, %peer: i32) {
    %c0 = arith.constant 0 : index
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster: no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) after mbarrier.fence_init}}
    mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    return
  }
  gpu.func @k() kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    func.call @fence() : () -> ()
    func.call @poke(%g, %peer) : (!mbarrier.group<1>, i32) -> ()
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Buggy: a helper's arrivals are counted with the kernel's (thread 0
// arrives once itself and once in the helper: 2 of a count of 4), and the
// helper invalidates the barrier that the kernel then waits on.
gpu.module @helper_effects_are_seen {
  func.func private @release(%g: !mbarrier.group<2>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<2>
    return
  }
  func.func private @retire(%g: !mbarrier.group<2>) {
    %c1 = arith.constant 1 : index
    mbarrier.inval %g[%c1] : !mbarrier.group<2>
    return
  }
  gpu.func @k() kernel attributes {known_block_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %two = arith.constant 2 : i32
    %four = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %four : !mbarrier.group<2>
      mbarrier.init %g[%c1], %two : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %g[%c0] : !mbarrier.group<2>
      func.call @release(%g, %c0) : (!mbarrier.group<2>, index) -> ()
    }
    // expected-error @+1 {{waits for a phase that never completes: the barrier receives 2 arrival(s) in the whole kernel but is initialized with arrival count 4}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    nvvm.barrier0
    scf.if %leader {
      func.call @retire(%g) : (!mbarrier.group<2>) -> ()
    }
    nvvm.barrier0
    // expected-error @+1 {{uses a barrier after mbarrier.inval}}
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<2>
    gpu.return
  }
}

// -----

// Correct as far as the checker can tell: an external helper and a
// recursive one may synchronize (the init may be published, the peer
// drained), and the group passed to them may be initialized again.
gpu.module @opaque_calls {
  func.func private @extern_cluster_sync()
  func.func private @maybe_reinit(%g: !mbarrier.group<1>, %depth: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %done = arith.cmpi eq, %depth, %c0 : index
    scf.if %done {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    } else {
      %less = arith.subi %depth, %c1 : index
      func.call @maybe_reinit(%g, %less) : (!mbarrier.group<1>, index) -> ()
    }
    return
  }
  gpu.func @k(%depth: index) kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.fence_init
    func.call @extern_cluster_sync() : () -> ()
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    func.call @extern_cluster_sync() : () -> ()
    %h = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %h[%c0], %one : !mbarrier.group<1>
    mbarrier.inval %h[%c0] : !mbarrier.group<1>
    func.call @maybe_reinit(%h, %depth) : (!mbarrier.group<1>, index) -> ()
    mbarrier.arrive %h[%c0] : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// An opaque call may also be a release fence (class 7): a store, an
// external helper, then a relaxed remote arrival is not judged.
gpu.module @opaque_call_may_fence {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  func.func private @extern_fence()
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      func.call @extern_fence() : () -> ()
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Buggy: printf is not opaque; it hides neither the unpublished init
// (class 1) nor the store before the relaxed arrival (class 7).
gpu.module @printf_is_not_opaque {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  gpu.func @k(%fmt: !llvm.ptr) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      %n = llvm.call @vprintf(%fmt, %fmt) : (!llvm.ptr, !llvm.ptr) -> i32
      // expected-warning @+2 {{is a relaxed arrival on another CTA's barrier after stores with no release fence in between}}
      // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster}}
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
    }
    // The init is not published to the other threads either (no CTA barrier).
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
