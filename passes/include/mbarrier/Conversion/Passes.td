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
    has passed since then, the lowest active lane of each stuck warp prints
    `mbarrier.wait timed out at FILE:LINE:COL (barrier NAME[INDEX], parity
    P, waited N ns) cta R (ctaid X,Y,Z) warp W; barrier word 0x... (raw,
    layout opaque)` (`gpu.printf`, the op's own location) and the warp traps
    a quarter of the bound later. `try_wait` and `test_wait` are single
    tests and stay as they are.

    `chip`/`features` are a thin alias for ops outside any targeted
    `gpu.module` (a bare `func.func`): the target they are checked against,
    as if attached there. They never override a module's own target.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Alias: the target chip of ops outside a targeted gpu.module (e.g. sm_90)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features (e.g. +ptx86) that go with `chip`">,
    Option<"debugWaits", "debug-waits", "uint64_t", /*default=*/"0",
           "Bound in ns of every blocking wait: past it, the wait prints "
           "where it is stuck and traps (0: off)">,
  ];
}

#endif // MBARRIER_CONVERSION_PASSES_TD
