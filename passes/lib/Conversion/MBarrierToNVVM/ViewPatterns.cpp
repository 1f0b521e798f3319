//===- ViewPatterns.cpp - alloc, view, remote_view, ptr -------------------===//
#include "PatternCommon.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.alloc` -> a `.shared .align 8` global of N x i64 in the nearest
/// symbol table (the gpu.module), one per alloc, and its address.
struct AllocLowering : ConvertOpToLLVMPattern<AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *table = SymbolTable::getNearestSymbolTable(op->getParentOp());
    if (!table || table->getNumRegions() != 1 || table->getRegion(0).empty())
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    std::string name = uniqueName(table);
    auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64),
                                              op.getType().getDepth());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&table->getRegion(0).front());
      LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/false,
                             LLVM::Linkage::Internal, name, Attribute(),
                             /*alignment=*/8, kSharedCTA);
    }
    auto ptrType = LLVM::LLVMPointerType::get(ctx, kSharedCTA);
    Value address = LLVM::AddressOfOp::create(rewriter, loc, ptrType, name);
    rewriter.replaceOp(op, opaqueSharedAddress(rewriter, loc, address));
    return success();
  }

private:
  std::string uniqueName(Operation *table) const {
    std::string name;
    do {
      name = "__mbarrier_alloc_" + std::to_string(counter++);
    } while (SymbolTable::lookupSymbolIn(table, name));
    return name;
  }
  mutable unsigned counter = 0;
};

/// Whether `ptr` is a shared variable's symbol address (or a GEP of one).
static bool isSymbolAddress(Value ptr) {
  while (auto gep = ptr.getDefiningOp<LLVM::GEPOp>())
    ptr = gep.getBase();
  return static_cast<bool>(ptr.getDefiningOp<LLVM::AddressOfOp>());
}

/// `mbarrier.view` is the pointer it wraps; a symbol address is held in a
/// register, as for `mbarrier.alloc`.
struct ViewLowering : ConvertOpToLLVMPattern<ViewOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value ptr = adaptor.getPtr();
    if (isSymbolAddress(ptr))
      ptr = opaqueSharedAddress(rewriter, op.getLoc(), ptr);
    rewriter.replaceOp(op, ptr);
    return success();
  }
};

/// `mbarrier.remote_view` -> the struct (owner-local pointer, CTA rank). No
/// mapa here: the address is mapped where an instruction consumes it.
struct RemoteViewLowering : ConvertOpToLLVMPattern<RemoteViewOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RemoteViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value rank = adaptor.getRank();
    if (!rank)
      rank = i32Constant(rewriter, loc, *op.getCtaRank());
    auto structType = getRemoteStructType(op.getContext());
    Value view = LLVM::UndefOp::create(rewriter, loc, structType);
    view = LLVM::InsertValueOp::create(rewriter, loc, view,
                                       adaptor.getBarriers(),
                                       ArrayRef<int64_t>{0});
    view = LLVM::InsertValueOp::create(rewriter, loc, view, rank,
                                       ArrayRef<int64_t>{1});
    rewriter.replaceOp(op, view);
    return success();
  }
};

/// `mbarrier.ptr` -> a GEP (ptr<3>), plus `nvvm.mapa` for a remote view (ptr<7>).
struct PtrLowering : BarrierOpLowering<PtrOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(PtrOp op, OpAdaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, addressFor(rewriter, op.getLoc(), ref));
    return success();
  }
};

} // namespace

void lowering::populateViewPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<AllocLowering, ViewLowering, RemoteViewLowering, PtrLowering>(
      converter);
}
