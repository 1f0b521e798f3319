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
/// operands, results, block arguments or function signature.
static bool carriesMBarrierType(Operation *op) {
  if (hasMBarrierType(op->getOperandTypes()) ||
      hasMBarrierType(op->getResultTypes()))
    return true;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    if (hasMBarrierType(fn.getArgumentTypes()) ||
        hasMBarrierType(fn.getResultTypes()))
      return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (hasMBarrierType(block.getArgumentTypes()))
        return true;
  return false;
}

void mbarrier::populateMBarrierStructuralConversions(
    TypeConverter &converter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  populateAnyFunctionOpInterfaceTypeConversionPattern(patterns, converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversions(converter, patterns);
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

NVVM::MemScopeKind lowering::toNVVM(Scope scope) {
  return scope == Scope::cluster ? NVVM::MemScopeKind::CLUSTER
                                 : NVVM::MemScopeKind::CTA;
}

BarrierRef lowering::resolveBarrier(OpBuilder &b, Location loc, Type sourceType,
                                  Value converted, Value index, Value ctaId) {
  BarrierRef ref;
  Value base = converted;
  if (isa<RemoteType>(sourceType)) {
    base = LLVM::ExtractValueOp::create(b, loc, converted, ArrayRef<int64_t>{0});
    ref.rank = LLVM::ExtractValueOp::create(b, loc, converted, ArrayRef<int64_t>{1});
  } else {
    ref.rank = ctaId;
  }
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kSharedCTA);
  ref.localAddr = LLVM::GEPOp::create(b, loc, ptrType, b.getI64Type(), base,
                                      ValueRange{index});
  return ref;
}

Value lowering::addressFor(OpBuilder &b, Location loc, const BarrierRef &ref) {
  if (!ref.isCluster())
    return ref.localAddr;
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedCluster);
  return NVVM::MapaOp::create(b, loc, clusterPtr, ref.localAddr, ref.rank);
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
