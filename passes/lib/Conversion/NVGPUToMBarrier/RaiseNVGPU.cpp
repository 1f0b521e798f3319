//===- RaiseNVGPU.cpp - mbarrier-raise-nvgpu: one pattern per nvgpu op ----===//
//
// Each nvgpu op of a group that Raisable.cpp planned becomes this dialect's
// op with the same meaning; nvgpu's `index` counts and tx bytes become the
// `i32` operands this dialect takes (truncated as nvgpu's own lowering
// does), constants folded so that the verifier and the checker see them.
// What changes is what this dialect's defaults say (docs/interop.md).
//
//===----------------------------------------------------------------------===//
#include "Raisable.h"
#include "mbarrier/Conversion/Passes.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERRAISENVGPU
#include "mbarrier/Conversion/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::raise_nvgpu;

namespace {

/// An `index` (or `i1`) operand of nvgpu as the `i32` this dialect takes:
/// a constant stays a constant (truncated), anything else is cast
/// (`arith.index_cast` truncates, as nvgpu's lowering does; an i1 parity is
/// zero-extended).
Value toI32(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  if (std::optional<int64_t> c = getConstantIntValue(value)) {
    int64_t v = value.getType().isInteger(1) ? (*c & 1) : *c;
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
  }
  if (value.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, i32, value);
  return arith::IndexCastOp::create(b, loc, i32, value);
}

/// `nvgpu.mbarrier.create` -> `mbarrier.alloc`.
struct CreateRaising : OpConversionPattern<nvgpu::MBarrierCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierCreateOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<AllocOp>(
        op, getTypeConverter()->convertType(op.getBarriers().getType()));
    return success();
  }
};

/// `nvgpu.mbarrier.get` -> `mbarrier.ptr` + `llvm.ptrtoint` (nvgpu's value
/// is the integer of the shared address).
struct GetRaising : OpConversionPattern<nvgpu::MBarrierGetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierGetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value ptr = PtrOp::create(rewriter, op.getLoc(),
                              LLVM::LLVMPointerType::get(op.getContext(), 3),
                              adaptor.getBarriers(), adaptor.getMbarId());
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, op.getType(), ptr);
    return success();
  }
};

/// `nvgpu.mbarrier.init [, predicate = %p]` -> `mbarrier.init`, under
/// `scf.if %p` with a predicate.
struct InitRaising : OpConversionPattern<nvgpu::MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value count = toI32(rewriter, loc, adaptor.getCount());
    auto init = [&](OpBuilder &b, Location l) {
      InitOp::create(b, l, adaptor.getBarriers(), adaptor.getMbarId(), count);
    };
    if (Value pred = adaptor.getPredicate())
      scf::IfOp::create(rewriter, loc, pred, [&](OpBuilder &b, Location l) {
        init(b, l);
        scf::YieldOp::create(b, l);
      });
    else
      init(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `nvgpu.mbarrier.arrive` (its token unused) -> `mbarrier.arrive`
/// (release.cta, as nvgpu's `mbarrier.arrive.shared.b64`).
struct ArriveRaising : OpConversionPattern<nvgpu::MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArriveOp::create(rewriter, op.getLoc(), adaptor.getBarriers(),
                     adaptor.getMbarId(), /*count=*/Value(), /*cta_id=*/Value(),
                     /*pred=*/Value(), SemanticsAttr(), ScopeAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `nvgpu.mbarrier.arrive.nocomplete` (its token unused) ->
/// `mbarrier.arrive_nocomplete`.
struct ArriveNoCompleteRaising
    : OpConversionPattern<nvgpu::MBarrierArriveNoCompleteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierArriveNoCompleteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArriveNoCompleteOp::create(rewriter, op.getLoc(), adaptor.getBarriers(),
                               adaptor.getMbarId(),
                               toI32(rewriter, op.getLoc(), adaptor.getCount()));
    rewriter.eraseOp(op);
    return success();
  }
};

/// `nvgpu.mbarrier.arrive.expect_tx [, predicate = %p]` ->
/// `mbarrier.arrive_expect_tx [if %p]`.
struct ArriveExpectTxRaising
    : OpConversionPattern<nvgpu::MBarrierArriveExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ArriveExpectTxOp>(
        op, adaptor.getBarriers(), adaptor.getMbarId(),
        toI32(rewriter, op.getLoc(), adaptor.getTxcount()), /*count=*/Value(),
        /*cta_id=*/Value(), adaptor.getPredicate(), SemanticsAttr(),
        ScopeAttr());
    return success();
  }
};

/// `nvgpu.mbarrier.try_wait.parity %g[%i], %parity, %ticks` ->
/// `mbarrier.wait %g[%i], zext %parity suspend_time trunc %ticks`: the
/// blocking wait, its scope this dialect's default.
struct TryWaitParityRaising
    : OpConversionPattern<nvgpu::MBarrierTryWaitParityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierTryWaitParityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<WaitOp>(
        op, adaptor.getBarriers(), adaptor.getMbarId(),
        toI32(rewriter, loc, adaptor.getPhaseParity()),
        toI32(rewriter, loc, adaptor.getTicks()), /*phase_offset=*/0u,
        SemanticsAttr(), ScopeAttr());
    return success();
  }
};

/// The `.shared::cta` address of a workgroup memref's first element
/// (aligned pointer plus offset), as nvgpu's lowering takes it.
Value sharedAddress(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  if (!type.getLayout().isIdentity()) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value elementBytes = arith::ConstantIndexOp::create(
        b, loc, type.getElementTypeBitWidth() / 8);
    address = arith::AddIOp::create(
        b, loc, address,
        arith::MulIOp::create(b, loc, meta.getOffset(), elementBytes));
  }
  Value bits = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), bits);
}

/// `nvgpu.tma.async.load %d[...], %g[%i] to %dst [multicast_mask = %m]
/// [, predicate = %p]` -> `mbarrier.cp_async_bulk_tensor %g[%i], %dst,
/// %d[...], bytes B [multicast %m] [if %p]`, B the descriptor's box size;
/// the descriptor as the `!llvm.ptr` it lowers to (a cast that nvgpu's
/// type conversion resolves).
struct TmaAsyncLoadRaising : OpConversionPattern<nvgpu::TmaAsyncLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::TmaAsyncLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<int64_t> bytes =
        boxBytes(op.getTensorMapDescriptor().getType());
    if (!bytes) // Raisable.cpp planned only static boxes
      return rewriter.notifyMatchFailure(op, "no static box");
    Value map = UnrealizedConversionCastOp::create(
                    rewriter, loc, LLVM::LLVMPointerType::get(op.getContext()),
                    adaptor.getTensorMapDescriptor())
                    .getResult(0);
    SmallVector<Value> coordinates;
    for (Value c : adaptor.getCoordinates())
      coordinates.push_back(toI32(rewriter, loc, c));
    rewriter.replaceOpWithNewOp<CpAsyncBulkTensorOp>(
        op, adaptor.getBarriers(), adaptor.getMbarId(),
        sharedAddress(rewriter, loc, adaptor.getDst()), map, coordinates,
        adaptor.getMulticastMask(), adaptor.getPredicate(),
        rewriter.getI32IntegerAttr(static_cast<int32_t>(*bytes)));
    return success();
  }
};

/// Kernel parameters of `!nvgpu.tensormap.descriptor` type become the
/// `!llvm.ptr` that nvgpu's type conversion makes of them (the address of
/// the 128-byte tensor map: the same parameter), with a cast back for the
/// body: gpu-to-nvvm does not know nvgpu's types, and a kernel has no
/// callers in the IR to update.
void descriptorParamsToPointers(Operation *root) {
  root->walk([](gpu::GPUFuncOp fn) {
    if (!fn.isKernel() || fn.isExternal())
      return;
    Block &entry = fn.getBody().front();
    auto ptr = LLVM::LLVMPointerType::get(fn.getContext());
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> inputs(fn.getArgumentTypes());
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<nvgpu::TensorMapDescriptorType>(arg.getType());
      if (!type)
        continue;
      arg.setType(ptr);
      auto cast = UnrealizedConversionCastOp::create(b, arg.getLoc(), type, arg);
      arg.replaceAllUsesExcept(cast.getResult(0), cast);
      inputs[arg.getArgNumber()] = ptr;
      changed = true;
    }
    if (changed)
      fn.setFunctionType(FunctionType::get(fn.getContext(), inputs,
                                           fn.getResultTypes()));
  });
}

struct MBarrierRaiseNVGPUPass
    : mbarrier::impl::MBarrierRaiseNVGPUBase<MBarrierRaiseNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    descriptorParamsToPointers(getOperation());
    llvm::DenseSet<Operation *> plan = planRaising(getOperation());
    if (plan.empty())
      return;
    MLIRContext *ctx = &getContext();
    TypeConverter types;
    types.addConversion([](Type t) { return t; });
    types.addConversion([](nvgpu::MBarrierGroupType t) -> Type {
      return GroupType::get(t.getContext(), t.getNumBarriers());
    });
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalDialect<nvgpu::NVGPUDialect>(
        [&](Operation *op) { return !plan.contains(op); });
    RewritePatternSet patterns(ctx);
    patterns.add<CreateRaising, GetRaising, InitRaising, ArriveRaising,
                 ArriveNoCompleteRaising, ArriveExpectTxRaising,
                 TryWaitParityRaising, TmaAsyncLoadRaising>(types, ctx);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
