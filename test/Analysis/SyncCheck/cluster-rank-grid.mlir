// Class 16: a target rank computed from the CTA's id in the grid
// (blockIdx, %ctaid) instead of its rank in the cluster: for CTAs past the
// first cluster it leaves [0, cluster size) (the rank of a CTA of the grid,
// not of the cluster; facebookexperimental/triton#3469: a cluster rank
// read as a program id). Evaluated for the CTAs of the grid's first cluster
// (an error where one leaves it: every launch has that cluster) and of the
// second along x (a warning: a launch of one cluster works). Where the
// kernel declares its grid (`known_grid_size`), every launch has each of
// its clusters: a rank that leaves the cluster in any of them is an error.
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

// -----

// The root of a CTA pair as blockIdx.x & ~1 (the grid index of the pair's
// first CTA, a split-K reduction's root) in a declared grid of 8 CTAs in
// clusters of 2: right in the first cluster, rank 2 from the second on,
// which every launch of the declared grid has. An error, with the cluster
// named.
gpu.module @root_from_block_id_declared_grid {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_last = arith.cmpi eq, %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lead_last = arith.andi %leader, %is_last : i1
    scf.if %lead_last {
      %pair_mask = arith.constant -2 : i32
      %root = arith.andi %bid, %pair_mask : i32
      // expected-note @+1 {{the rank is computed here}}
      %r = mbarrier.remote_view %g, %root : !mbarrier.group<1>
      // expected-error @+1 {{targets CTA rank 2 from CTA 1 of the grid's second cluster: the rank is computed from the CTA's id in the grid (blockIdx, %ctaid), which leaves the cluster of 2 CTAs in every launch of the declared grid (known_grid_size: 8 CTAs along x)}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %lead_root = arith.andi %leader, %is_root : i1
    scf.if %lead_root {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The same without known_grid_size: a launch of one cluster works. A
// warning.
gpu.module @root_from_block_id_undeclared_grid {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_last = arith.cmpi eq, %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lead_last = arith.andi %leader, %is_last : i1
    scf.if %lead_last {
      %pair_mask = arith.constant -2 : i32
      %root = arith.andi %bid, %pair_mask : i32
      // expected-note @+1 {{the rank is computed here}}
      %r = mbarrier.remote_view %g, %root : !mbarrier.group<1>
      // expected-warning @+1 {{targets CTA rank 2 from CTA 1 of the grid's second cluster: the rank is computed from the CTA's id in the grid (blockIdx, %ctaid), which leaves the cluster of 2 CTAs in a launch of more than one cluster}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %lead_root = arith.andi %leader, %is_root : i1
    scf.if %lead_root {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The same in a declared grid of one cluster (2 CTAs): the grid's ids
// are the ranks, so blockIdx.x & ~1 is rank 0. Silent.
gpu.module @root_from_block_id_one_cluster_grid {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>, known_grid_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_last = arith.cmpi eq, %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lead_last = arith.andi %leader, %is_last : i1
    scf.if %lead_last {
      %pair_mask = arith.constant -2 : i32
      %root = arith.andi %bid, %pair_mask : i32
      %r = mbarrier.remote_view %g, %root : !mbarrier.group<1>
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %lead_root = arith.andi %leader, %is_root : i1
    scf.if %lead_root {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The correct kernel after CUTLASS's ClusterBarrier::arrive(cta_id) with
// cute's block_rank_in_cluster(): the root is cluster rank 0, in a declared
// grid of 8 CTAs. Silent.
gpu.module @root_from_cluster_rank_declared_grid {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_last = arith.cmpi eq, %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lead_last = arith.andi %leader, %is_last : i1
    scf.if %lead_last {
      %root = arith.constant 0 : i32
      %r = mbarrier.remote_view %g, %root : !mbarrier.group<1>
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %lead_root = arith.andi %leader, %is_root : i1
    scf.if %lead_root {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// blockIdx.x modulo the cluster size is the rank in every cluster of the
// declared grid (all four evaluated): the pair's peer. Silent.
gpu.module @peer_from_block_id_modulo_declared_grid {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_last = arith.cmpi eq, %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lead_last = arith.andi %leader, %is_last : i1
    scf.if %lead_last {
      %own = arith.remui %bid, %two : i32
      %root = arith.xori %own, %one : i32
      %r = mbarrier.remote_view %g, %root : !mbarrier.group<1>
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    %is_root = arith.cmpi eq, %rank, %zero : i32
    %lead_root = arith.andi %leader, %is_root : i1
    scf.if %lead_root {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
