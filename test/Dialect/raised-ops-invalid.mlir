// The verifier rules of arrive_nocomplete and cp_async_bulk_tensor
// (MBarrierRaisedOps.td), one case each, named after the rule.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics

func.func @arrive_nocomplete_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %c: i32) {
  // expected-error @+1 {{a barrier cannot be arrived on without completing through a remote view; only the CTA that owns it can}}
  mbarrier.arrive_nocomplete %r[%i], %c : !mbarrier.remote<2>
  return
}

// -----

func.func @arrive_nocomplete_count_zero(%g: !mbarrier.group<2>, %i: index) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{arrival count 0 is out of range [1, 1048575]}}
  mbarrier.arrive_nocomplete %g[%i], %c0 : !mbarrier.group<2>
  return
}

// -----

func.func @arrive_nocomplete_index_out_of_range(%g: !mbarrier.group<2>, %c: i32) {
  %i = arith.constant 2 : index
  // expected-error @+1 {{barrier index 2 is out of range for '!mbarrier.group<2>' (valid: 0 to 1)}}
  mbarrier.arrive_nocomplete %g[%i], %c : !mbarrier.group<2>
  return
}

// -----

func.func @tensor_copy_through_remote_view(%r: !mbarrier.remote<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{a barrier cannot be the completion barrier of a tensor copy through a remote view}}
  mbarrier.cp_async_bulk_tensor %r[%i], %dst, %map[%x], bytes 256 : !mbarrier.remote<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_bytes_not_multiple_of_16(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{states a box of 100 bytes: a box is a multiple of 16 bytes, at most 1048575 (the tx-count limit)}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x], bytes 100 : !mbarrier.group<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_bytes_over_tx_limit(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{states a box of 1048576 bytes}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x], bytes 1048576 : !mbarrier.group<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_bytes_below_16(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{attribute 'bytes' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 16}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x], bytes 8 : !mbarrier.group<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_no_coordinates(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr) {
  // expected-error @+1 {{takes 1 to 5 coordinates (a tensor of 1 to 5 dimensions), got 0}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[], bytes 256 : !mbarrier.group<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_six_coordinates(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{takes 1 to 5 coordinates (a tensor of 1 to 5 dimensions), got 6}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x, %x, %x, %x, %x, %x], bytes 256 : !mbarrier.group<2>, !llvm.ptr
  return
}

// -----

func.func @tensor_copy_index_out_of_range(%g: !mbarrier.group<2>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) {
  %i = arith.constant 3 : index
  // expected-error @+1 {{barrier index 3 is out of range}}
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x], bytes 256 : !mbarrier.group<2>, !llvm.ptr
  return
}
