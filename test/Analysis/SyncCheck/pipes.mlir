// The checker on pipelines: mbarrier-lower-pipes runs first (as in
// mbarrier-to-ptx), and the diagnostics land on the pipe ops that the
// barrier ops came from.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-check-sync

// Every thread of the consumer warp releases: 32 arrivals per phase on an
// empty barrier that counts one (consumers = 1). Release from one thread per
// consumer agent (`if %pred`). A warning: the producer's acquires of the
// first two laps (%n <= 4) wait for phases before and at the release's, and
// a launch of so few trips is right; its third lap's acquire is for a phase
// the extra releases complete early (the error where every launch gets
// there, next).
gpu.module @over_release {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
        // expected-warning @+1 {{arrives 32 times on a barrier initialized with arrival count 1}}
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// -----

// The same over-release with 6 trips: the producer's fifth acquire waits on
// stage 0 for a phase of its third lap, which the first release's extra
// arrivals have completed, in every launch (an error).
gpu.module @over_release_six_trips {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 6 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
        // expected-error @+1 {{arrives 32 times on a barrier initialized with arrival count 1}}
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// -----

// A multicast pipe whose init is not published to the cluster: the first copy
// may complete on a peer's barrier before its init.
gpu.module @unpublished_init {
  gpu.func @k(%map: !llvm.ptr, %dst: !llvm.ptr<3>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %zero = arith.constant 0 : i32
    %bytes = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<2>
    %p = mbarrier.pipe.create %g : !mbarrier.group<2> -> !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>
      // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster}}
      mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%zero], bytes 1024 multicast row : !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>, !llvm.ptr
      mbarrier.pipe.commit %p[%slot], bytes %bytes : !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>
      mbarrier.pipe.tail %p, %next : !mbarrier.pipe<1, tma, cluster = [2, 1], multicast = row>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The same over-release in a multicast pipe: every consumer lane releases
// to both CTAs of the row, 64 arrivals per phase on each empty barrier,
// whose derived count is 2 (1 consumer x 2 CTAs). The checker tells the
// empty barriers (stage + D) from the full ones (stage) by their index
// ranges, so it knows the count. A warning, as above (%n trips: a launch of
// few is right).
gpu.module @multicast_over_release {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
      mbarrier.fence_init
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %end : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
        // The release's two arrivals (one per CTA of the row) over-arrive
        // alike: one report at the pipe op, not one per arrival.
        // expected-warning @+1 {{arrives 64 times on a barrier of CTA 0 initialized with arrival count 2}}
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive, cluster = [2, 1], multicast = row>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
