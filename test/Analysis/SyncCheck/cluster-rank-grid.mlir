// Class 16: a target rank computed from the CTA's id in the grid
// (blockIdx, %ctaid) instead of its rank in the cluster: for CTAs past the
// first cluster it leaves [0, cluster size) (the rank of a CTA of the grid,
// not of the cluster; facebookexperimental/triton#3469: a cluster rank
// read as a program id). Evaluated for the CTAs of the grid's first cluster
// (an error where one leaves it: every launch has that cluster) and of the
// second along x (a warning: a launch of one cluster works).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The peer of a CTA pair as blockIdx.x ^ 1, the other CTA of the pair in
// the grid: right in the first cluster (ranks 0 and 1), outside it from the
// second on (blockIdx 2 targets 3). A warning: a launch of one cluster
// works.
gpu.module @peer_from_block_id_xor {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %peer = arith.xori %bid, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // expected-note @+1 {{the rank is computed here}}
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-warning @+1 {{targets CTA rank 3 from CTA 0 of the grid's second cluster: the rank is computed from the CTA's id in the grid (blockIdx, %ctaid), which leaves the cluster of 2 CTAs in a launch of more than one cluster}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The next CTA as blockIdx.x + 1 (the rank of the next CTA in the grid):
// CTA 1 of the first cluster, in every launch, targets rank 2. An error.
gpu.module @next_from_block_id {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %peer = arith.addi %bid, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // expected-note @+1 {{the rank is computed here}}
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-error @+1 {{targets CTA rank 2 from CTA 1 of the grid's first cluster: the rank is computed from the CTA's id in the grid (blockIdx, %ctaid), which leaves the cluster of 2 CTAs; mapa of a rank outside the cluster is undefined (take the rank in the cluster: %cluster_ctarank, gpu.cluster_block_id)}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The correct twin: blockIdx.x modulo the cluster size along x is the rank
// in a cluster of (2, 1, 1), and its xor 1 the pair's peer. Silent.
gpu.module @peer_from_block_id_modulo {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %own = arith.remui %bid, %two : i32
    %peer = arith.xori %own, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
