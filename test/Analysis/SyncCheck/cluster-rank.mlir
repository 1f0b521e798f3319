// Class 9: a cluster-form arrival whose target rank, computed from the CTA's
// own rank, leaves the cluster for some CTA (`rank + 1` without the modulo:
// the last CTA targets rank C). mapa of a rank outside the cluster is
// undefined. The verifier rejects a constant rank outside the declared
// cluster; a computed one is evaluated at every executing (CTA, thread).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A ring of CTAs: each arrives on the next one's barrier.
gpu.module @next_rank_without_modulo {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %next = arith.addi %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // expected-note @+1 {{the rank is computed here}}
    %r = mbarrier.remote_view %g, %next : !mbarrier.group<1>
    scf.if %leader {
      // expected-error @+1 {{targets CTA rank 2 from CTA 1, thread 0, but the cluster has 2 CTAs (ranks 0 to 1): mapa of a rank outside the cluster is undefined (wrap the rank modulo the cluster size)}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The correct twin: (rank + 1) mod 2.
gpu.module @next_rank_modulo {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %sum = arith.addi %rank, %one : i32
    %next = arith.remui %sum, %two : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %next : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// `on %cta` with the previous rank: CTA 0 targets rank -1.
gpu.module @previous_rank_on_cta {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %prev = arith.subi %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      // expected-error @+1 {{targets CTA rank -1 from CTA 0, thread 0, but the cluster has 4 CTAs (ranks 0 to 3)}}
      mbarrier.arrive %g[%c0] on %prev : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A rank the model cannot evaluate (a kernel parameter): silent.
gpu.module @rank_from_a_parameter {
  gpu.func @k(%peer: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      mbarrier.arrive %g[%c0] on %peer : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
