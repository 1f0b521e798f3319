// What mbarrier-raise-nvgpu leaves in nvgpu, never a silent change of
// meaning: a group is raised whole or not at all, and each op that keeps
// one in nvgpu gets a remark that says why (docs/interop.md, "What does not
// map"). The group then lowers the upstream way (convert-nvgpu-to-nvvm).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-raise-nvgpu
// RUN: mbarrier-opt %s -split-input-file --mbarrier-raise-nvgpu 2>/dev/null | FileCheck %s

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// A wait on a state token: this dialect's waits take a parity. The arrive
// that makes the token and the wait both keep the group.
// CHECK-LABEL: func.func @state_token_wait(
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init
// CHECK: nvgpu.mbarrier.arrive
// CHECK: nvgpu.mbarrier.test.wait
// CHECK-NOT: mbarrier.alloc
func.func @state_token_wait(%i: index) -> i1 {
  %c1 = arith.constant 1 : index
  %g = nvgpu.mbarrier.create -> !barriers
  nvgpu.mbarrier.init %g[%i], %c1 : !barriers
  // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): its state token is used (by 'nvgpu.mbarrier.test.wait'): this dialect's waits take a phase parity, not a state}}
  %t = nvgpu.mbarrier.arrive %g[%i] : !barriers -> !nvgpu.mbarrier.token
  // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): it waits on a state token: this dialect's waits take a phase parity (mbarrier.test_wait %g[%i], %parity)}}
  %done = nvgpu.mbarrier.test.wait %g[%i], %t : !barriers, !nvgpu.mbarrier.token
  return %done : i1
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// arrive.nocomplete's token used likewise.
func.func @nocomplete_token_used(%i: index, %n: index) -> i1 {
  %g = nvgpu.mbarrier.create -> !barriers
  // expected-remark @+1 {{its state token is used (by 'nvgpu.mbarrier.test.wait')}}
  %t = nvgpu.mbarrier.arrive.nocomplete %g[%i], %n : !barriers -> !nvgpu.mbarrier.token
  // expected-remark @+1 {{it waits on a state token}}
  %done = nvgpu.mbarrier.test.wait %g[%i], %t : !barriers, !nvgpu.mbarrier.token
  return %done : i1
}

// -----

// Only workgroup memory raises (mbarrier.alloc is static .shared::cta).
!global = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<global>, num_barriers = 2>
func.func @global_memory_group(%i: index) {
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not raised into the mbarrier dialect: the group is not in workgroup memory}}
  %g = nvgpu.mbarrier.create -> !global
  nvgpu.mbarrier.init %g[%i], %c1 : !global
  return
}

// -----

// More barriers than static shared memory holds.
!huge = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 7000>
func.func @group_too_large(%i: index) {
  // expected-remark @+1 {{not raised into the mbarrier dialect: a group of 7000 barriers is not one mbarrier.alloc can hold (1 to 6144)}}
  %g = nvgpu.mbarrier.create -> !huge
  %t = nvgpu.mbarrier.arrive %g[%i] : !huge -> !nvgpu.mbarrier.token
  return
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// A use the raise does not see through (a call), and a group that comes in
// as an argument.
func.func private @elsewhere(!barriers)
// CHECK-LABEL: func.func @group_passed_on(
// CHECK: nvgpu.mbarrier.create
func.func @group_passed_on(%i: index) {
  %g = nvgpu.mbarrier.create -> !barriers
  %t = nvgpu.mbarrier.arrive %g[%i] : !barriers -> !nvgpu.mbarrier.token
  // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): the group is used by 'func.call', which the raise does not see through}}
  func.call @elsewhere(%g) : (!barriers) -> ()
  return
}
func.func @group_from_argument(%g: !barriers, %i: index) {
  // expected-remark @+1 {{not raised into the mbarrier dialect: its barrier group is not made by an nvgpu.mbarrier.create in sight}}
  %t = nvgpu.mbarrier.arrive %g[%i] : !barriers -> !nvgpu.mbarrier.token
  return
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// Constants the raised ops would reject: an index past the group, a count
// of 0, tx bytes over the tx-count limit.
func.func @constants_out_of_range() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %g = nvgpu.mbarrier.create -> !barriers
  // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): the barrier index 2 is outside [0, 1]}}
  nvgpu.mbarrier.init %g[%c2], %c0 : !barriers
  // expected-remark @+1 {{the arrival count 0 is outside [1, 1048575]}}
  nvgpu.mbarrier.init %g[%c0], %c0 : !barriers
  %big = arith.constant 1048576 : index
  // expected-remark @+1 {{the tx count 1048576 is outside [0, 1048575]}}
  nvgpu.mbarrier.arrive.expect_tx %g[%c0], %big : !barriers
  return
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!odd = !nvgpu.tensormap.descriptor<tensor = memref<32x128x256xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>

// A box of 4 MiB: more bytes than one phase's tx-count can hold.
func.func @box_over_tx_count(%d: !odd, %x: index) {
  %c0 = arith.constant 0 : index
  %g = nvgpu.mbarrier.create -> !barriers
  %buf = memref.alloca() : memref<32x128x256xf32, 3>
  // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): the box of its tensor map descriptor has no static size that is a multiple of 16 bytes, at most 2^20-1}}
  nvgpu.tma.async.load %d[%x, %c0, %c0], %g[%c0] to %buf : !odd, !barriers -> memref<32x128x256xf32, 3>
  return
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// Two groups in one function: the one with a state-token wait stays, the
// other is raised.
// CHECK-LABEL: func.func @one_group_raised(
// CHECK: %[[KEPT:.*]] = nvgpu.mbarrier.create
// CHECK: %[[RAISED:.*]] = mbarrier.alloc : !mbarrier.group<1>
// CHECK: nvgpu.mbarrier.arrive %[[KEPT]]
// CHECK: nvgpu.mbarrier.test.wait %[[KEPT]]
// CHECK: mbarrier.arrive %[[RAISED]]
func.func @one_group_raised() -> i1 {
  %c0 = arith.constant 0 : index
  %kept = nvgpu.mbarrier.create -> !barriers
  %raised = nvgpu.mbarrier.create -> !barriers
  // expected-remark @+1 {{its state token is used}}
  %t = nvgpu.mbarrier.arrive %kept[%c0] : !barriers -> !nvgpu.mbarrier.token
  // expected-remark @+1 {{it waits on a state token}}
  %done = nvgpu.mbarrier.test.wait %kept[%c0], %t : !barriers, !nvgpu.mbarrier.token
  %u = nvgpu.mbarrier.arrive %raised[%c0] : !barriers -> !nvgpu.mbarrier.token
  return %done : i1
}
