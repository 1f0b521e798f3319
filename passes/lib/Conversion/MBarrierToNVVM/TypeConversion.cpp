//===- TypeConversion.cpp - mbarrier types and shared helpers -------------===//
//
// Address spaces are decided here and nowhere else: a group is a pointer into
// .shared::cta (3); a remote view is that same owner-local pointer plus the
// target CTA rank, mapped to .shared::cluster (7) only where an instruction
// consumes it.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

LLVM::LLVMStructType lowering::getRemoteStructType(MLIRContext *ctx) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, {LLVM::LLVMPointerType::get(ctx, kSharedCTA),
            IntegerType::get(ctx, 32)});
}

void mbarrier::populateMBarrierTypeConversions(TypeConverter &converter) {
  converter.addConversion([](GroupType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), kSharedCTA);
  });
  converter.addConversion([](RemoteType type) -> Type {
    return getRemoteStructType(type.getContext());
  });
}

static bool isMBarrierType(Type type) {
  return isa<GroupType, RemoteType>(type);
}

static bool hasMBarrierType(TypeRange types) {
  return llvm::any_of(types, isMBarrierType);
}

/// An op needs structural conversion when an mbarrier type appears in its
/// operands or results or, for a function, in its signature or any block of
/// its body. (Region-holding ops such as scf.for carry the types of their
/// block arguments in their operands and results.)
static bool carriesMBarrierType(Operation *op) {
  if (hasMBarrierType(op->getOperandTypes()) ||
      hasMBarrierType(op->getResultTypes()))
    return true;
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return false;
  if (hasMBarrierType(fn.getArgumentTypes()) ||
      hasMBarrierType(fn.getResultTypes()))
    return true;
  return llvm::any_of(fn.getFunctionBody(), [](Block &block) {
    return hasMBarrierType(block.getArgumentTypes());
  });
}

namespace {
/// Converts a function's signature and the arguments of every block of its
/// body (upstream's FunctionOpInterface pattern converts the entry block only,
/// which leaves a remote view on a branch target unconverted).
struct FunctionTypeConversion : ConversionPattern {
  FunctionTypeConversion(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    auto type = fn ? dyn_cast<FunctionType>(fn.getFunctionType()) : nullptr;
    if (!type)
      return failure();
    const TypeConverter &converter = *getTypeConverter();
    SmallVector<Type> inputs, results;
    if (failed(converter.convertTypes(type.getInputs(), inputs)) ||
        failed(converter.convertTypes(type.getResults(), results)))
      return failure();
    if (!fn.isExternal()) {
      // The entry block may hold more arguments than the signature (a
      // gpu.func's workgroup/private attributions): convert them all.
      Block &entry = fn.getFunctionBody().front();
      TypeConverter::SignatureConversion signature(entry.getNumArguments());
      for (BlockArgument arg : entry.getArguments())
        if (failed(converter.convertSignatureArg(arg.getArgNumber(),
                                                 arg.getType(), signature)))
          return failure();
      if (failed(rewriter.convertRegionTypes(&fn.getFunctionBody(), converter,
                                             &signature)))
        return failure();
    }
    rewriter.modifyOpInPlace(op, [&] {
      fn.setType(FunctionType::get(op->getContext(), inputs, results));
    });
    return success();
  }
};
/// Ops that only pass a barrier value through (a choice of peer by
/// predicate, a switch, a region that yields one): rebuilt with converted
/// operand and result types; their regions keep their ops, whose yields the
/// SCF structural patterns convert.
struct PassThroughTypeConversion : ConversionPattern {
  PassThroughTypeConversion(StringRef opName, const TypeConverter &converter,
                            MLIRContext *ctx)
      : ConversionPattern(converter, opName, /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, results,
                         op->getDiscardableAttrDictionary().getValue(),
                         op->getSuccessors());
    state.propertiesAttr = op->getPropertiesAsAttribute();
    for (Region &region : op->getRegions()) {
      Region *newRegion = state.addRegion();
      rewriter.inlineRegionBefore(region, *newRegion, newRegion->end());
    }
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};
} // namespace

void mbarrier::populateMBarrierStructuralConversions(
    TypeConverter &converter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  patterns.add<FunctionTypeConversion>(converter, patterns.getContext());
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversions(converter, patterns);
  for (StringRef name : {"arith.select", "scf.index_switch", "scf.execute_region"})
    patterns.add<PassThroughTypeConversion>(name, converter,
                                            patterns.getContext());
  target.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !carriesMBarrierType(op); });
}

//===----------------------------------------------------------------------===//
// Helpers shared by the patterns
//===----------------------------------------------------------------------===//

Value lowering::i32Constant(OpBuilder &b, Location loc, int32_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

Value lowering::opaqueSharedAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::InlineAsmOp::create(
             b, loc, ptr.getType(), ValueRange{ptr}, "mov.b64 $0, $1;", "=l,l",
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
             /*operand_attrs=*/{})
      .getResult(0);
}

NVVM::MemScopeKind lowering::toNVVM(Scope scope) {
  return scope == Scope::cluster ? NVVM::MemScopeKind::CLUSTER
                                 : NVVM::MemScopeKind::CTA;
}

BarrierRef lowering::resolveBarrier(OpBuilder &b, Location loc, Type sourceType,
                                  Value converted, Value index, Value ctaId) {
  BarrierRef ref;
  ref.base = converted;
  ref.index = index;
  if (isa<RemoteType>(sourceType)) {
    ref.base = LLVM::ExtractValueOp::create(b, loc, converted, ArrayRef<int64_t>{0});
    ref.rank = LLVM::ExtractValueOp::create(b, loc, converted, ArrayRef<int64_t>{1});
  } else {
    ref.rank = ctaId;
  }
  if (!ref.isCluster()) {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kSharedCTA);
    ref.localAddr = LLVM::GEPOp::create(b, loc, ptrType, b.getI64Type(),
                                        ref.base, ValueRange{index});
  }
  return ref;
}

Value lowering::addressFor(OpBuilder &b, Location loc, const BarrierRef &ref) {
  if (!ref.isCluster())
    return ref.localAddr;
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedCluster);
  Value mapped = NVVM::MapaOp::create(b, loc, clusterPtr, ref.base, ref.rank);
  return LLVM::GEPOp::create(b, loc, clusterPtr, b.getI64Type(), mapped,
                             ValueRange{ref.index});
}

void lowering::emitPredicated(OpBuilder &b, Location loc, Value pred,
                            function_ref<void(OpBuilder &, Location)> body) {
  if (!pred) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, pred, [&](OpBuilder &thenBuilder, Location l) {
    body(thenBuilder, l);
    scf::YieldOp::create(thenBuilder, l);
  });
}
