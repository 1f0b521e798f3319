// One case per verifier rule of docs/design.md (section "Verifier"), each named after its rule.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics

func.func @init_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %c: i32) {
  // expected-error @+1 {{a barrier cannot be initialized through a remote view; only the CTA that owns it can}}
  mbarrier.init %r[%i], %c : !mbarrier.remote<2>
  return
}

// -----

func.func @wait_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %phase: i32) {
  // expected-error @+1 {{cannot be waited on through a remote view}}
  mbarrier.wait %r[%i], %phase : !mbarrier.remote<2>
  return
}

// -----

func.func @try_wait_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %phase: i32) -> i1 {
  // expected-error @+1 {{cannot be waited on through a remote view}}
  %ok = mbarrier.try_wait %r[%i], %phase : !mbarrier.remote<2>
  return %ok : i1
}

// -----

func.func @test_wait_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %phase: i32) -> i1 {
  // expected-error @+1 {{cannot be waited on through a remote view}}
  %ok = mbarrier.test_wait %r[%i], %phase : !mbarrier.remote<2>
  return %ok : i1
}

// -----

func.func @inval_through_remote_view(%r: !mbarrier.remote<2>, %i: index) {
  // expected-error @+1 {{cannot be invalidated through a remote view}}
  mbarrier.inval %r[%i] : !mbarrier.remote<2>
  return
}

// -----

func.func @remote_view_of_remote_view(%r: !mbarrier.remote<2>) {
  // expected-error @+1 {{remote_view cannot be applied to a remote view}}
  %rr = mbarrier.remote_view %r, cta_rank 1 : !mbarrier.remote<2>
  return
}

// -----

func.func @arrive_through_remote_view_with_cta_id(%r: !mbarrier.remote<2>, %i: index, %cta: i32) {
  // expected-error @+1 {{through a remote view cannot also specify cta_id ('on'): the view already fixes the target CTA rank}}
  mbarrier.arrive %r[%i] on %cta : !mbarrier.remote<2>
  return
}

// -----

func.func @arrive_expect_tx_through_remote_view_with_cta_id(%r: !mbarrier.remote<2>, %i: index, %b: i32, %cta: i32) {
  // expected-error @+1 {{cannot also specify cta_id}}
  mbarrier.arrive_expect_tx %r[%i], %b on %cta : !mbarrier.remote<2>
  return
}

// -----

func.func @constant_index_out_of_range(%g: !mbarrier.group<2>) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{barrier index 2 is out of range for '!mbarrier.group<2>' (valid: 0 to 1)}}
  mbarrier.arrive %g[%c2] : !mbarrier.group<2>
  return
}

// -----

func.func @constant_index_out_of_range_remote(%r: !mbarrier.remote<1>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{barrier index 1 is out of range}}
  mbarrier.arrive %r[%c1] : !mbarrier.remote<1>
  return
}

// -----

func.func @init_count_zero_out_of_range(%g: !mbarrier.group<1>, %i: index) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{arrival count 0 is out of range [1, 1048575]}}
  mbarrier.init %g[%i], %c0 : !mbarrier.group<1>
  return
}

// -----

func.func @arrive_count_out_of_range(%g: !mbarrier.group<1>, %i: index) {
  %big = arith.constant 1048576 : i32
  // expected-error @+1 {{arrival count 1048576 is out of range [1, 1048575]}}
  mbarrier.arrive %g[%i], count %big : !mbarrier.group<1>
  return
}

// -----

func.func @arrive_expect_tx_bytes_out_of_range(%g: !mbarrier.group<1>, %i: index) {
  %big = arith.constant 1048576 : i32
  // expected-error @+1 {{tx byte count 1048576 is out of range [0, 1048575]}}
  mbarrier.arrive_expect_tx %g[%i], %big : !mbarrier.group<1>
  return
}

// -----

func.func @expect_tx_negative_bytes_out_of_range(%g: !mbarrier.group<1>, %i: index) {
  %neg = arith.constant -1 : i32
  // expected-error @+1 {{tx byte count -1 is out of range [0, 1048575]}}
  mbarrier.expect_tx %g[%i], %neg : !mbarrier.group<1>
  return
}

// -----

func.func @wait_phase_not_0_or_1(%g: !mbarrier.group<1>, %i: index) {
  %two = arith.constant 2 : i32
  // expected-error @+1 {{phase must be 0 or 1, got 2}}
  mbarrier.wait %g[%i], %two : !mbarrier.group<1>
  return
}

// -----

func.func @test_wait_phase_not_0_or_1(%g: !mbarrier.group<1>, %i: index) -> i1 {
  %neg = arith.constant -1 : i32
  // expected-error @+1 {{phase must be 0 or 1, got -1}}
  %ok = mbarrier.test_wait %g[%i], %neg : !mbarrier.group<1>
  return %ok : i1
}

// -----

func.func @phase_offset_not_0_or_1(%g: !mbarrier.group<1>, %i: index, %phase: i32) {
  // expected-error @+1 {{attribute 'phase_offset' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 1}}
  mbarrier.wait %g[%i], %phase {phase_offset = 3 : i32} : !mbarrier.group<1>
  return
}

// -----

gpu.module @kernels {
  gpu.func @cta_rank_attr_out_of_range_for_cluster() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    // expected-error @+1 {{CTA rank 2 is out of range for a cluster of 2 CTAs}}
    %r = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @ssa_rank_out_of_range_for_cluster() kernel attributes {known_cluster_size = array<i32: 2, 2, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    %c4 = arith.constant 4 : i32
    // expected-error @+1 {{CTA rank 4 is out of range for a cluster of 4 CTAs}}
    %r = mbarrier.remote_view %g, %c4 : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @arrive_on_cta_out_of_range_for_cluster(%i: index) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    %c7 = arith.constant 7 : i32
    // expected-error @+1 {{CTA rank 7 is out of range for a cluster of 4 CTAs}}
    mbarrier.arrive %g[%i] on %c7 : !mbarrier.group<1>
    gpu.return
  }
}

// -----

func.func @negative_cta_rank_attribute(%g: !mbarrier.group<1>) {
  // expected-error @+1 {{attribute 'cta_rank' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %r = mbarrier.remote_view %g, cta_rank -1 : !mbarrier.group<1>
  return
}

// -----

func.func @negative_cta_rank_operand(%g: !mbarrier.group<1>) {
  %minus1 = arith.constant -1 : i32
  // expected-error @+1 {{CTA rank -1 is out of range: ranks are non-negative}}
  %r = mbarrier.remote_view %g, %minus1 : !mbarrier.group<1>
  return
}

// -----

func.func @remote_view_needs_exactly_one_rank(%g: !mbarrier.group<1>, %rank: i32) {
  // expected-error @+1 {{needs exactly one CTA rank: an i32 operand or a cta_rank attribute}}
  %r = "mbarrier.remote_view"(%g, %rank) {cta_rank = 1 : i32} : (!mbarrier.group<1>, i32) -> !mbarrier.remote<1>
  return
}

// -----

func.func @sem_acquire_on_arrive(%g: !mbarrier.group<1>, %i: index) {
  // expected-error @+1 {{sem acquire cannot be expressed by an mbarrier arrive, which is release or relaxed}}
  mbarrier.arrive %g[%i] {sem = #mbarrier.sem<acquire>} : !mbarrier.group<1>
  return
}

// -----

func.func @sem_release_on_wait(%g: !mbarrier.group<1>, %i: index, %phase: i32) {
  // expected-error @+1 {{sem release cannot be expressed by an mbarrier wait, which is acquire or relaxed}}
  mbarrier.wait %g[%i], %phase {sem = #mbarrier.sem<release>} : !mbarrier.group<1>
  return
}

// -----

func.func @sem_release_on_expect_tx(%g: !mbarrier.group<1>, %i: index, %b: i32) {
  // expected-error @+1 {{sem release cannot be expressed by mbarrier.expect_tx, which is relaxed}}
  mbarrier.expect_tx %g[%i], %b {sem = #mbarrier.sem<release>} : !mbarrier.group<1>
  return
}

// -----

func.func @ptr_of_group_is_shared_cta(%g: !mbarrier.group<1>, %i: index) {
  // expected-error @+1 {{the address of a barrier in '!mbarrier.group<1>' is !llvm.ptr<3> (shared::cta)}}
  %p = mbarrier.ptr %g[%i] : !mbarrier.group<1> -> !llvm.ptr<7>
  return
}

// -----

func.func @ptr_through_remote_view_is_shared_cluster(%r: !mbarrier.remote<1>, %i: index) {
  // expected-error @+1 {{the address of a barrier in '!mbarrier.remote<1>' is !llvm.ptr<7> (shared::cluster)}}
  %p = mbarrier.ptr %r[%i] : !mbarrier.remote<1> -> !llvm.ptr<3>
  return
}

// -----

func.func @tcgen05_commit_cta_group_1_through_remote_view(%r: !mbarrier.remote<1>, %i: index) {
  // expected-error @+1 {{with cta_group = 1 cannot target a remote view; signal other CTAs with the multicast mask}}
  mbarrier.tcgen05_commit %r[%i] : !mbarrier.remote<1>
  return
}

// -----

func.func @tcgen05_commit_cta_group_1_or_2(%g: !mbarrier.group<1>, %i: index) {
  // expected-error @+1 {{attribute 'cta_group' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 2}}
  mbarrier.tcgen05_commit %g[%i] {cta_group = 3 : i32} : !mbarrier.group<1>
  return
}

// -----

// expected-error @+1 {{an mbarrier group needs at least one barrier}}
func.func @empty_group(%g: !mbarrier.group<0>) {
  return
}

// -----

gpu.module @kernels {
  gpu.func @zero_cluster_dimension(%g: !mbarrier.group<1>) attributes {known_cluster_size = array<i32: 0, 1, 1>} {
    // expected-error @+1 {{is inside a function whose launch shape no launch can have: 'known_cluster_size' must have three positive dimensions (x, y, z), got array<i32: 0, 1, 1>}}
    %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Found by the fuzzer: at module level the lowered NVVM ops crashed LLVM translation.
gpu.module @kernels {
  // expected-error @+1 {{'mbarrier.alloc' op must be inside a function (gpu.func, func.func or llvm.func)}}
  %g = mbarrier.alloc : !mbarrier.group<1>
}

// -----

// expected-error @+1 {{an mbarrier group of 29057 barriers (232456 bytes) does not fit the 227 KiB of shared memory a CTA can have}}
func.func @group_larger_than_shared_memory(%g: !mbarrier.group<29057>) {
  return
}

// -----

gpu.module @kernels {
  gpu.func @group_as_kernel_parameter(%g: !mbarrier.group<1>, %i: index) kernel {
    // expected-error @+1 {{uses kernel parameter #0 as a barrier group: a kernel parameter cannot be '!mbarrier.group<1>'}}
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// (gpu.func checks the rank of known_cluster_size itself; NVVM checks that
// nvvm.cluster_dim has one to three dimensions, not their signs. Two
// dimensions are a cluster shape: `array<i32: 2, 1>` is a cluster of 2,
// test/Analysis/SyncCheck/launch-shape.mlir.)
llvm.func @cluster_shape_with_a_zero_dim() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 2, 0>} {
  // expected-error @+1 {{'nvvm.cluster_dim' must have one to three positive dimensions (x[, y[, z]]), got array<i32: 2, 0>}}
  %g = mbarrier.alloc : !mbarrier.group<1>
  llvm.return
}

// -----

gpu.module @kernels {
  gpu.func @negative_cluster_shape_is_not_a_cluster_of_2() kernel attributes {known_cluster_size = array<i32: -2, -1, 1>} {
    // expected-error @+1 {{'known_cluster_size' must have three positive dimensions (x, y, z), got array<i32: -2, -1, 1>}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @cluster_above_16_ctas() kernel attributes {known_cluster_size = array<i32: 17, 1, 1>} {
    // expected-error @+1 {{'known_cluster_size' has 17 CTAs in x: a launch has at most 16 CTAs per cluster (more than 8 is non-portable}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @cluster_product_above_16_ctas() kernel attributes {known_cluster_size = array<i32: 4, 4, 2>} {
    // expected-error @+1 {{'known_cluster_size' asks for 32 CTAs: a launch has at most 16 CTAs per cluster}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @block_above_1024_threads() kernel attributes {known_block_size = array<i32: 4096, 1, 1>} {
    // expected-error @+1 {{'known_block_size' has 4096 threads in x: a launch has at most 1024 threads per block}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @block_product_above_1024_threads() kernel attributes {known_block_size = array<i32: 64, 32, 1>} {
    // expected-error @+1 {{'known_block_size' asks for 2048 threads: a launch has at most 1024 threads per block}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @alloc_above_48_kib_of_static_shared_memory() kernel {
    // expected-error @+1 {{needs 49160 bytes of static shared memory, over the 48 KiB a CTA can declare statically}}
    %g = mbarrier.alloc : !mbarrier.group<6145>
    gpu.return
  }
}

// -----

func.func @tcgen05_commit_multicast_through_remote_view(%r: !mbarrier.remote<1>, %i: index, %mask: i16) {
  // expected-error @+1 {{with a multicast mask signals the barrier at the same offset in every CTA of the mask: give the owner's !mbarrier.group, not a remote view}}
  mbarrier.tcgen05_commit %r[%i] multicast %mask {cta_group = 2 : i32} : !mbarrier.remote<1>
  return
}
