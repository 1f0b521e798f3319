// Class 2: a CTA may exit, and its shared memory go away, while another CTA
// still arrives on its barriers or accesses its shared memory
// (fb/triton#1105: CUDA_EXCEPTION_17; triton#9413: a terminal cluster
// barrier before the return; CUTLASS's producer_tail).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync
// The stock mlir-opt with the plugin runs the same pass:
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-check-sync)"

// Each CTA arrives on its peer's barrier and exits; nothing keeps the peer
// alive until the arrival lands.
gpu.module @no_final_barrier {
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
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) in between: a CTA may exit, and its shared memory go away, while another CTA still arrives on or accesses it}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    gpu.return
  }
}

// -----

// A store into the peer's shared memory (st.shared::cluster), then exit.
gpu.module @dsmem_store {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    // (Every thread initializes the barrier: CheckInit.cpp warns.)
    // expected-warning @+1 {{is executed by 32 threads of a CTA for the same barrier}}
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // expected-error @+1 {{is followed by the kernel's exit with no cluster barrier}}
    llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
    gpu.return
  }
}

// -----

// The final cluster barrier is on one path only: a warning. (Nothing waits
// on the barrier here: a wait of the target on it would keep the target
// alive until the arrival lands, exit-covered.mlir.)
gpu.module @barrier_on_one_path {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
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
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) in between: a CTA may exit, and its shared memory go away, while another CTA still arrives on or accesses it (unless every target waits for this access before it exits)}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    scf.if %flag {
      nvvm.cluster.arrive
      nvvm.cluster.wait
    }
    gpu.return
  }
}

// -----

// Correct: a final cluster barrier after the last remote access (here the
// init is published, and the kernel ends, with cluster barriers written in
// inline PTX).
gpu.module @final_barrier {
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
    llvm.inline_asm has_side_effects "barrier.cluster.arrive.aligned;", "" : () -> ()
    llvm.inline_asm has_side_effects "barrier.cluster.wait.aligned;", "" : () -> ()
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    llvm.inline_asm has_side_effects "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", "" : () -> ()
    gpu.return
  }
}
