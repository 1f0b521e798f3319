//===- Passes.td - mbarrier conversions --------------------*- tablegen -*-===//
#ifndef MBARRIER_CONVERSION_PASSES_TD
#define MBARRIER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMBarrierToNVVM : Pass<"convert-mbarrier-to-nvvm"> {
  let summary = "Lower the mbarrier dialect to the NVVM and LLVM dialects";
  let description = [{
    One conversion pattern per op. `!mbarrier.group<N>` becomes
    `!llvm.ptr<3>`; `!mbarrier.remote<N>` becomes
    `!llvm.struct<(ptr<3>, i32)>` (owner-local pointer, target CTA rank), so
    remote views keep their meaning through block arguments, `scf.for`
    iter_args and function boundaries. Arrivals through a remote view or with
    `on %cta` become `nvvm.mapa` + the `shared::cluster` arrive; a predicate
    becomes an `scf.if` (run this pass before `convert-scf-to-cf`).

    Before rewriting, a PTX version that `mbarrier-attach-target` derived
    is raised to the one the module's ops need, and every op is checked
    against the NVVM target attached to its `gpu.module`: cluster forms,
    waits and counted arrivals need sm_90; the cluster forms PTX 8.0;
    `relaxed` PTX 8.6; tcgen05 sm_100a. A chip the NVPTX backend does not
    know is an error. Below any of these the NVPTX backend would abort.

    `debug-waits=<ns>` (0, the default: off) bounds every blocking wait
    (`mbarrier.wait`, and so the pipe's wait, acquire and tail that
    `mbarrier-lower-pipes` lowers to it): the first `try_wait` as without
    the option, `%globaltimer` read only after it failed, and once the bound
    has passed since then, the lowest active lane of each stuck warp writes
    a record (the wait's site, index, parity, time waited, CTA, warp and the
    barrier's state, read by an `mbarrier.arrive` of count 0) into the
    report buffer whose address the module's `@mbarrier_debug_waits` holds,
    and the warp traps a quarter of the bound later. The sites are the
    module's `@mbarrier_debug_wait_sites` (`FILE:LINE:COL`, the barrier's
    name or group, where it was defined; one line each). No call: a printf
    would make ptxas serialize every wgmma of the kernel. The runtime
    (`mbarrier_dialect.runtime`) gives a loaded module its buffer and turns
    the records into located lines. `try_wait` and `test_wait` are single
    tests and stay as they are.

    Run on a `builtin.module` (as `mbarrier-to-ptx` does), every
    `gpu.module` is checked and lowered in one go, in source order, so that
    the errors of all of them are reported, the same on every run. A
    `gpu.launch` there is an error naming `gpu-kernel-outlining` (only
    `gpu.module` kernels are compiled); with `reject-nvgpu=true`, so is the
    first nvgpu op of each `gpu.module`, naming `raise-nvgpu=true`.

    Ops outside any targeted `gpu.module` (a bare `func.func`) are lowered
    and checked against no target: the target comes only from the module's
    `#nvvm.target` (`mbarrier-attach-target`, the one target decision).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"debugWaits", "debug-waits", "uint64_t", /*default=*/"0",
           "Bound in ns of every blocking wait: past it, the wait records "
           "where it is stuck and traps (0: off)">,
    Option<"rejectNVGPU", "reject-nvgpu", "bool", /*default=*/"false",
           "An nvgpu op is an error that names mbarrier-to-ptx's "
           "raise-nvgpu=true (set by mbarrier-to-ptx without it: nothing "
           "after this pass lowers nvgpu then)">,
  ];
}

def MBarrierRaiseNVGPU : Pass<"mbarrier-raise-nvgpu"> {
  let summary = "Raise upstream nvgpu barrier and TMA-load ops into the mbarrier dialect";
  let description = [{
    One pattern per op, per barrier group: a `nvgpu.mbarrier.create` of
    workgroup memory becomes `mbarrier.alloc : !mbarrier.group<N>` and every
    use of the group becomes this dialect's op, so that the checker, the
    target checks, the default scopes and the rest of `mbarrier-to-ptx`
    apply to nvgpu code:

    | nvgpu | mbarrier |
    |---|---|
    | `mbarrier.create` | `alloc` |
    | `mbarrier.get` | `ptr` + `llvm.ptrtoint` |
    | `mbarrier.init [, predicate]` | `init` (under `scf.if` with a predicate) |
    | `mbarrier.arrive` (token unused) | `arrive` |
    | `mbarrier.arrive.nocomplete` (token unused) | `arrive_nocomplete` |
    | `mbarrier.arrive.expect_tx [, predicate]` | `arrive_expect_tx [if]` |
    | `mbarrier.try_wait.parity %p, %ticks` | `wait ..., zext %p suspend_time %ticks` |
    | `tma.async.load [multicast_mask] [predicate]` | `cp_async_bulk_tensor`, bytes from the descriptor's box |

    A group is raised whole or not at all. It stays nvgpu, with a remark at
    the op that keeps it there, when one of its uses has no counterpart
    that means the same: `mbarrier.test.wait` (a wait on a state token:
    this dialect's waits take a phase parity), an arrive whose token is
    used, a group outside workgroup memory or passed on to another op, a
    TMA load whose box size is not static, a constant operand outside the
    op's range. What changes by raising is what this dialect's defaults
    say (docs/interop.md): a wait in a cluster kernel acquires at
    `.cluster` scope (nvgpu: `.cta`); a blocking wait is this dialect's
    `try_wait` loop, with the ticks as its suspend-time hint.

    Kernel parameters (`gpu.func ... kernel`) of `!nvgpu.tensormap.descriptor`
    type become the `!llvm.ptr` that nvgpu's own lowering makes of them (the
    address of the tensor map: the same kernel parameter), cast back for
    the ops that stay nvgpu: `convert-gpu-to-nvvm` does not convert nvgpu
    types in a kernel signature.
  }];
  let dependentDialects = [
    "::mlir::mbarrier::MBarrierDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // MBARRIER_CONVERSION_PASSES_TD
