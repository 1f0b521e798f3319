// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync
// A cluster barrier (barrier.cluster.arrive / wait: every thread of every
// CTA of the cluster arrives) issued in a role branch, by one lane of a
// warp, while the other warps reach no cluster arrive before a wait that
// the role fills only after the cluster barrier: class 12 over the
// cluster barrier (the protocol model, ProtocolEvents.cpp), an error for
// every launch. Each buggy kernel with a correct twin that stays silent.

// The init's fence + cluster barrier issued by the producer lane alone
// (triton's gluon tutorial 14-multicta.py: "cluster.arrive / cluster.wait
// must be executed by all threads ... they cannot be used inside a
// warp_specialize block"): the consumer warp waits for the stage that the
// producer fills after the cluster barrier, which needs the consumer's
// arrival (heldout4 gluon_multicta_ws.bug-cluster-sync-in-load-partition).
gpu.module @role_cluster_sync {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      mbarrier.fence_init
      nvvm.cluster.arrive.relaxed
      // expected-note@+1 {{warp 1 of CTA 0 and warp 1 of CTA 1 wait here}}
      nvvm.cluster.wait
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      // expected-error@+1 {{deadlock: a cycle in the wait-for graph}}
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Correct twin: the cluster barrier outside the roles, in every thread.
gpu.module @cluster_sync_outside_roles {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Not followed (silent): after the producer lane's cluster barrier, the
// other lanes of its warp arrive on the barrier the consumers wait on, and
// they do not wait for that lane (the cluster barrier is not `.aligned`):
// the warp cannot be taken to block whole at the lane's wait.
gpu.module @role_cluster_sync_other_lanes_go_on {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i33 = arith.constant 33 : i32
    %c0 = arith.constant 0 : index
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      nvvm.cluster.arrive.relaxed
      nvvm.cluster.wait
    }
    %is_helper = arith.cmpi eq, %tid, %i33 : i32
    mbarrier.arrive %full[%c0] if %is_helper : !mbarrier.group<1>
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Not followed (silent): lanes of one warp at cluster barriers in both
// branches of a role split (each lane arrives once per phase either way).
gpu.module @cluster_sync_both_branches {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      nvvm.cluster.arrive.relaxed
      nvvm.cluster.wait
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      nvvm.cluster.arrive.relaxed
      nvvm.cluster.wait
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
