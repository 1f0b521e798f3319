//===- PatternCommon.h - helpers shared by the conversion patterns -*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_PATTERNCOMMON_H
#define MBARRIER_CONVERSION_PATTERNCOMMON_H

#include "mbarrier/Conversion/MBarrierToNVVM/MBarrierToNVVM.h"
#include "mbarrier/Target/NVPTX/NVPTXTargets.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::mbarrier::lowering {

/// The address spaces of the two barrier homes (NVVM's own numbering).
inline constexpr unsigned kSharedCTA =
    static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
inline constexpr unsigned kSharedCluster =
    static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster);

/// A resolved barrier operand. A local access: `localAddr`, the owner-local
/// pointer to barrier `index`. A cluster-form access: the group's base
/// (ptr<3>), the index (i64) and the target CTA rank; its address is made by
/// addressFor.
struct BarrierRef {
  Value localAddr;   // !llvm.ptr<3>, local accesses only
  Value base;        // !llvm.ptr<3>, the group's first barrier
  Value index;       // i64
  Value rank;        // i32, or null for a local access
  bool isCluster() const { return static_cast<bool>(rank); }
};

/// Splits the converted barrier value (ptr<3>, or the remote struct) and
/// indexes barrier `index`. `ctaId` (the `on %cta` operand) makes a local
/// group a cluster-form access.
BarrierRef resolveBarrier(OpBuilder &b, Location loc, Type sourceType,
                          Value converted, Value index, Value ctaId = {});

/// The address an instruction takes: ptr<3> for a local access; for a
/// cluster-form one, `nvvm.mapa` of the group's base (ptr<7>), then the GEP
/// by the index. mapa(base + 8*i) == mapa(base) + 8*i (a group lies in one
/// CTA's shared memory, which the shared::cluster window maps linearly), and
/// the mapa of a loop-invariant base is loop-invariant: LLVM hoists it
/// (mapa is `IntrNoMem, IntrSpeculatable`), also when the index is a
/// run-time stage.
Value addressFor(OpBuilder &b, Location loc, const BarrierRef &ref);

namespace detail {
template <typename Adaptor>
auto ctaIdOf(Adaptor &adaptor, int) -> decltype(adaptor.getCtaId()) {
  return adaptor.getCtaId();
}
template <typename Adaptor>
Value ctaIdOf(Adaptor &, long) {
  return {};
}
} // namespace detail

/// The lowering of an op that addresses `barriers[index]` (and, for the
/// arrive ops, `on %cta`): resolves the barrier once and hands the subclass
/// the BarrierRef.
template <typename SourceOp>
struct BarrierOpLowering : ConvertOpToLLVMPattern<SourceOp> {
  using ConvertOpToLLVMPattern<SourceOp>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename SourceOp::Adaptor;

  LogicalResult
  matchAndRewrite(SourceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    BarrierRef ref = resolveBarrier(
        rewriter, op.getLoc(), op.getBarriers().getType(),
        adaptor.getBarriers(), adaptor.getIndex(), detail::ctaIdOf(adaptor, 0));
    return rewrite(op, adaptor, ref, rewriter);
  }

  virtual LogicalResult rewrite(SourceOp op, OpAdaptor adaptor,
                                const BarrierRef &ref,
                                ConversionPatternRewriter &rewriter) const = 0;
};

/// Runs `body` under `if %pred` (an scf.if, so the pass composes with
/// structured control flow); runs it unconditionally when `pred` is null.
void emitPredicated(OpBuilder &b, Location loc, Value pred,
                    function_ref<void(OpBuilder &, Location)> body);

/// The barrier group's base address as an opaque register value. In a
/// cluster kernel ptxas rebuilds a symbol's shared-window address
/// (`SR_CgaCtaId`, `ULEA`) at every instruction that names the symbol, inside
/// loops too; an address in a register is computed once. A side-effect-free
/// `mov.b64` keeps LLVM from folding the symbol back into each instruction.
Value opaqueSharedAddress(OpBuilder &b, Location loc, Value ptr);

NVVM::MemScopeKind toNVVM(Scope scope);

// debug-waits (DebugWaits.cpp).
/// `file:line:col` of the first file location inside `loc` (through names,
/// call sites and fused locations); empty where there is none.
std::string locationText(Location loc);
/// How a timed-out line names a barrier group: the name of its definition's
/// NameLoc (`loc("full")`), else `group<N>` and where it was defined.
struct BarrierText {
  std::string name;
  std::string from; // file:line:col of the definition, or empty
};
BarrierText barrierText(Value barriers);
/// The wait site's line of the module's site table
/// (debug_waits::kSitesSymbol): `FILE:LINE:COL<TAB>NAME<TAB>FROM`, the wait's
/// location and barrierText of `barriers`.
std::string siteText(Location waitLoc, Value barriers);
/// One test of the phase (a try_wait): an i1.
using WaitTest = function_ref<Value(OpBuilder &, Location)>;
/// The bounded wait: `test` until it succeeds; past `boundNs` of
/// %globaltimer after the first failed test, the lowest active lane of the
/// warp writes a record of the wait at `site` (siteText) into the module's
/// report buffer and the warp traps.
void emitBoundedWait(OpBuilder &b, Location loc, StringRef site, Value addr,
                     Value index, Value parity, uint64_t boundNs,
                     const WaitTest &test);
Value i32Constant(OpBuilder &b, Location loc, int32_t value);
LLVM::LLVMStructType getRemoteStructType(MLIRContext *ctx);

// Pattern registration, one function per op family file.
void populateViewPatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateInitPatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateFencePatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateArrivePatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateWaitPatterns(LLVMTypeConverter &, RewritePatternSet &,
                          uint64_t debugWaitsNs);
void populateTcgen05Patterns(LLVMTypeConverter &, RewritePatternSet &);
void populateRaisedPatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateNamedBarrierPatterns(LLVMTypeConverter &, RewritePatternSet &);
/// Every bar_sync / bar_arrive / bar_red under `root` names a declaration
/// with a hardware id; else a located error.
LogicalResult checkNamedBarrierIds(Operation *root);
/// Erases the named-barrier declarations under `root` (after the uses are
/// lowered: they read the id from them).
void eraseNamedBarrierDeclarations(Operation *root);

} // namespace mlir::mbarrier::lowering

#endif // MBARRIER_CONVERSION_PATTERNCOMMON_H
