//===- NamedBarrierPatterns.cpp - bar_sync, bar_arrive, bar_red ------------===//
//
// Named barriers onto upstream NVVM (MLIR 22): `nvvm.barrier id = %id
// number_of_threads = %n` (bar.sync id, n),
// `nvvm.barrier.arrive id = %id number_of_threads = %n` (bar.arrive id, n);
// bar.red as nvvm.inline_ptx (NVVM's reduction form is for barrier 0 only).
// The hardware id is the declaration's (an explicit one or what
// mbarrier-allocate-named-barriers assigned); the declarations are erased
// after the conversion.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// The hardware id and the thread count of a use, as i32 constants.
FailureOr<std::pair<Value, Value>>
idAndCount(NamedBarrierUseOpInterface op, ConversionPatternRewriter &rewriter) {
  std::optional<uint32_t> id = op.getHardwareId();
  if (!id)
    return rewriter.notifyMatchFailure(op, "the named barrier has no id");
  return std::make_pair(i32Constant(rewriter, op.getLoc(), *id),
                        i32Constant(rewriter, op.getLoc(), op.getThreads()));
}

/// `mbarrier.bar_sync @b threads N` -> `nvvm.barrier id = %id
/// number_of_threads = %n` (barrier.sync.aligned id, N).
struct BarSyncLowering : ConvertOpToLLVMPattern<BarSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BarSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto operands = idAndCount(op, rewriter);
    if (failed(operands))
      return failure();
    rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
        op, TypeRange{}, operands->first, operands->second,
        NVVM::BarrierReductionAttr{}, Value{});
    return success();
  }
};

/// `mbarrier.bar_arrive @b threads N` -> `nvvm.barrier.arrive id = %id
/// number_of_threads = %n` (bar.arrive id, N; inline PTX that
/// convert-nvvm-to-llvm expands).
struct BarArriveLowering : ConvertOpToLLVMPattern<BarArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BarArriveOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto operands = idAndCount(op, rewriter);
    if (failed(operands))
      return failure();
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(op, operands->first,
                                                       operands->second);
    return success();
  }
};

/// `mbarrier.bar_red <kind> @b threads N, %p` -> `nvvm.inline_ptx
/// "bar.red.popc.u32 $0, id, N, $1;"` (-> i32) or `"bar.red.{and,or}.pred
/// $0, id, N, $1;"` (-> i1). MLIR 22's `nvvm.barrier` takes a reduction
/// only for barrier 0 ("reduction are only available when id is 0"), so
/// the instruction is inline PTX, with the id and count as immediates.
struct BarRedLowering : ConvertOpToLLVMPattern<BarRedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BarRedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint32_t> id = op.getHardwareId();
    if (!id)
      return rewriter.notifyMatchFailure(op, "the named barrier has no id");
    bool popc = op.getKind() == BarRedKind::popc;
    std::string ptx = "bar.red.";
    ptx += popc ? "popc.u32" : (op.getKind() == BarRedKind::and_ ? "and.pred"
                                                                  : "or.pred");
    ptx += " $0, " + std::to_string(*id) + ", " +
           std::to_string(op.getThreads()) + ", $1;";
    Type result = popc ? rewriter.getI32Type() : rewriter.getI1Type();
    auto inlinePtx = NVVM::InlinePtxOp::create(
        rewriter, op.getLoc(), TypeRange{result},
        ValueRange{adaptor.getPred()}, ValueRange{},
        rewriter.getStringAttr(ptx), Value{});
    rewriter.replaceOp(op, inlinePtx.getResults());
    return success();
  }
};

} // namespace

LogicalResult lowering::checkNamedBarrierIds(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    auto use = dyn_cast<NamedBarrierUseOpInterface>(op);
    if (!use)
      return WalkResult::advance();
    auto decl = dyn_cast_or_null<NamedBarrierOp>(use.getDeclarationOp());
    if (decl && decl.getId())
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError() << "names a named barrier without a hardware id: "
                             "run mbarrier-allocate-named-barriers before "
                             "convert-mbarrier-to-nvvm";
    if (decl)
      diag.attachNote(decl.getLoc()) << "declared here without an id";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

void lowering::eraseNamedBarrierDeclarations(Operation *root) {
  SmallVector<NamedBarrierOp> decls;
  root->walk([&](NamedBarrierOp decl) { decls.push_back(decl); });
  for (NamedBarrierOp decl : decls)
    decl.erase();
}

void lowering::populateNamedBarrierPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<BarSyncLowering, BarArriveLowering, BarRedLowering>(converter);
}
