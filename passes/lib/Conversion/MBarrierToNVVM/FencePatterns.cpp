//===- FencePatterns.cpp - fence_release ----------------------------------===//
//
// The release fence that one group of `.relaxed.cluster` arrivals shares
// (mbarrier-merge-release-fences, docs/fence-merging.md).
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.fence_release` -> `llvm.fence syncscope("cluster") release`,
/// which the NVPTX backend prints as `fence.release.cluster` from PTX 8.6 on
/// (the op needs 8.6: TargetChecks.cpp), the same membar sequence as one
/// `.release.cluster` arrive. LLVM treats a fence as touching all memory, so
/// no access moves across it. `shared_cta` ->
/// `fence.release.sync_restrict::shared::cta.cluster`.
struct FenceReleaseLowering : ConvertOpToLLVMPattern<FenceReleaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(FenceReleaseOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getSharedCta())
      rewriter.replaceOpWithNewOp<NVVM::FenceSyncRestrictOp>(
          op, NVVM::MemOrderKind::RELEASE);
    else
      rewriter.replaceOpWithNewOp<LLVM::FenceOp>(
          op, LLVM::AtomicOrdering::release, "cluster");
    return success();
  }
};

} // namespace

void lowering::populateFencePatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<FenceReleaseLowering>(converter);
}
