//===- LowerPipes.cpp - mbarrier.pipe.* to mbarrier ops -------------------===//
//
// One pattern per pipe op, onto the mbarrier ops (init, arrive,
// arrive_expect_tx, wait, try_wait, ptr, tcgen05_commit) and the NVVM TMA
// ops, so that everything below (the checker, fence merging, the target
// checks, the NVVM lowering) applies to pipes unchanged. Types, once, in the
// type converter: a pipe of depth D becomes the `!mbarrier.group<2D>` it was
// made from (full barriers 0..D-1, empty barriers D..2D-1), a state the
// `i32` count of slots taken, a slot its stage (`index`).
//
// From a count c: stage = c mod D, phase parity = (c div D) & 1. The
// producer waits on the empty barrier with phase_offset 1 (parity 1 first:
// complete on a fresh barrier), the consumer on the full barrier with 0.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Target/NVPTX/TargetInfo.h"
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h"
#include "mbarrier/Dialect/MBarrier/Transforms/OrderedSeqLowering.h"
#include "mbarrier/Dialect/MBarrier/Transforms/PipeLowering.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERLOWERPIPES
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

// A named namespace: the library is a unity build, and the conversion
// patterns of the other files use the same short names.
namespace lower_pipes {

/// The barrier indices and phase of a state, computed once per op.
struct StagePhase {
  Value stage; // index
  Value phase; // i32, 0 or 1
};

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

StagePhase stagePhase(OpBuilder &b, Location loc, Value count,
                      unsigned depth) {
  Value d = i32Const(b, loc, depth);
  Value stage = arith::RemUIOp::create(b, loc, count, d);
  Value round = arith::DivUIOp::create(b, loc, count, d);
  Value phase = arith::AndIOp::create(b, loc, round, i32Const(b, loc, 1));
  return {arith::IndexCastUIOp::create(b, loc, b.getIndexType(), stage),
          phase};
}

/// Barrier `stage` of the full (`empty` false) or empty half of the group.
Value barrierIndex(OpBuilder &b, Location loc, Value stage, unsigned depth,
                   bool empty) {
  if (!empty)
    return stage;
  return arith::AddIOp::create(b, loc, stage,
                               arith::ConstantIndexOp::create(b, loc, depth));
}

/// What a side waits on for the slot at `count`: the producer the empty
/// barrier of the stage, the consumer the full one.
struct WaitTarget {
  Value stage; // index
  Value index; // the barrier's index in the group
  Value phase; // i32 parity (the producer waits with phase_offset 1)
};

WaitTarget waitTarget(OpBuilder &b, Location loc, Value count, unsigned depth,
                      bool producer) {
  StagePhase sp = stagePhase(b, loc, count, depth);
  return {sp.stage, barrierIndex(b, loc, sp.stage, depth, producer), sp.phase};
}

/// The rank of this CTA in its cluster and its (x, y) position in the pipe's
/// cluster shape: rank = x + X * y.
struct ClusterPos {
  Value rank, x, y; // i32
};

ClusterPos clusterPos(OpBuilder &b, Location loc, PipeType pipe) {
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  Value width = i32Const(b, loc, pipe.getClusterX());
  return {rank, arith::RemUIOp::create(b, loc, rank, width),
          arith::DivUIOp::create(b, loc, rank, width)};
}

/// The ranks of the CTAs whose copies land in this CTA (the release
/// targets): its row, its column, or both (the column without itself).
SmallVector<Value> releaseTargets(OpBuilder &b, Location loc, PipeType pipe) {
  ClusterPos pos = clusterPos(b, loc, pipe);
  unsigned cx = pipe.getClusterX(), cy = pipe.getClusterY();
  Multicast m = pipe.getMulticast();
  SmallVector<Value> ranks;
  Value width = i32Const(b, loc, cx);
  if (m == Multicast::row || m == Multicast::rowcol) {
    Value rowStart = arith::MulIOp::create(b, loc, pos.y, width);
    for (unsigned k = 0; k < cx; ++k)
      ranks.push_back(
          arith::AddIOp::create(b, loc, rowStart, i32Const(b, loc, k)));
  }
  if (m == Multicast::col)
    for (unsigned k = 0; k < cy; ++k)
      ranks.push_back(arith::AddIOp::create(
          b, loc, i32Const(b, loc, int64_t(k) * cx), pos.x));
  if (m == Multicast::rowcol)
    // Rows k' = k + (k >= y) for k < cy - 1: every row but this CTA's own.
    for (unsigned k = 0; k + 1 < cy; ++k) {
      Value kv = i32Const(b, loc, k);
      Value skip = arith::ExtUIOp::create(
          b, loc, b.getI32Type(),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, kv,
                                pos.y));
      Value row = arith::AddIOp::create(b, loc, kv, skip);
      ranks.push_back(arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, width), pos.x));
    }
  return ranks;
}

/// The `.multicast::cluster` CTA mask of this CTA's row or column.
Value multicastMask(OpBuilder &b, Location loc, PipeType pipe,
                    Multicast direction) {
  ClusterPos pos = clusterPos(b, loc, pipe);
  unsigned cx = pipe.getClusterX(), cy = pipe.getClusterY();
  Value mask;
  if (direction == Multicast::row) {
    Value shift = arith::MulIOp::create(b, loc, pos.y, i32Const(b, loc, cx));
    mask = arith::ShLIOp::create(b, loc, i32Const(b, loc, (1 << cx) - 1),
                                 shift);
  } else {
    int64_t column = 0;
    for (unsigned k = 0; k < cy; ++k)
      column |= int64_t(1) << (k * cx);
    mask = arith::ShLIOp::create(b, loc, i32Const(b, loc, column), pos.x);
  }
  return arith::TruncIOp::create(b, loc, b.getI16Type(), mask);
}

PipeType pipeOf(Value v) { return cast<PipeType>(v.getType()); }

/// `body` where `pred` holds, else unconditionally.
void guarded(OpBuilder &b, Location loc, Value pred,
             function_ref<void(OpBuilder &)> body) {
  if (!pred) {
    body(b);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
  OpBuilder inner = ifOp.getThenBodyBuilder();
  body(inner);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct PipeCreateLowering : OpConversionPattern<PipeCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getBarriers());
    return success();
  }
};

struct PipeInitLowering : OpConversionPattern<PipeInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PipeType pipe = pipeOf(op.getPipe());
    Location loc = op.getLoc();
    Value full = i32Const(rewriter, loc, pipe.getFullCount());
    Value empty = i32Const(rewriter, loc, pipe.getEmptyCount());
    unsigned d = pipe.getDepth();
    for (unsigned i = 0; i < 2 * d; ++i) {
      Value index = arith::ConstantIndexOp::create(rewriter, loc, i);
      auto init = InitOp::create(rewriter, loc, adaptor.getPipe(), index,
                                 i < d ? full : empty);
      if (i >= d)
        init->setAttr(kPipeConsumerCountAttr, rewriter.getUnitAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct PipeStartLowering : OpConversionPattern<PipeStartOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeStartOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, i32Const(rewriter, op.getLoc(), 0));
    return success();
  }
};

struct PipeAdvanceLowering : OpConversionPattern<PipeAdvanceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeAdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getState(),
                                               adaptor.getCount());
    return success();
  }
};

/// acquire (empty barrier, phase_offset 1) and wait (full barrier).
template <typename EnterOp, bool kProducer>
struct PipeEnterLowering : OpConversionPattern<EnterOp> {
  using OpConversionPattern<EnterOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EnterOp op, typename EnterOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    WaitTarget at = waitTarget(rewriter, loc, adaptor.getState(),
                               pipeOf(op.getPipe()).getDepth(), kProducer);
    Value notReady;
    if (Value ready = adaptor.getReady())
      notReady = arith::XOrIOp::create(
          rewriter, loc, ready,
          arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    guarded(rewriter, loc, notReady, [&](OpBuilder &b) {
      WaitOp::create(b, loc, adaptor.getPipe(), at.index, at.phase,
                     /*suspend_time=*/Value(),
                     /*phase_offset=*/kProducer ? 1u : 0u, nullptr, nullptr);
    });
    Value next = arith::AddIOp::create(rewriter, loc, adaptor.getState(),
                                       i32Const(rewriter, loc, 1));
    rewriter.replaceOp(op, {at.stage, next});
    return success();
  }
};

template <typename TryOp, bool kProducer>
struct PipeTryLowering : OpConversionPattern<TryOp> {
  using OpConversionPattern<TryOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TryOp op, typename TryOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    WaitTarget at = waitTarget(rewriter, op.getLoc(), adaptor.getState(),
                               pipeOf(op.getPipe()).getDepth(), kProducer);
    rewriter.replaceOpWithNewOp<TryWaitOp>(
        op, adaptor.getPipe(), at.index, at.phase, /*suspend_time=*/Value(),
        rewriter.getI32IntegerAttr(kProducer ? 1 : 0), nullptr, nullptr);
    return success();
  }
};

struct PipeCommitLowering : OpConversionPattern<PipeCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value group = adaptor.getPipe(), stage = adaptor.getSlot();
    switch (pipeOf(op.getPipe()).getKind()) {
    case PipeKind::tma:
      ArriveExpectTxOp::create(rewriter, loc, group, stage,
                               adaptor.getBytes(), Value(), Value(),
                               adaptor.getPred(), nullptr, nullptr);
      break;
    case PipeKind::arrive:
      ArriveOp::create(rewriter, loc, group, stage, Value(), Value(),
                       adaptor.getPred(), nullptr, nullptr);
      break;
    case PipeKind::tcgen05:
      guarded(rewriter, loc, adaptor.getPred(), [&](OpBuilder &b) {
        Tcgen05CommitOp::create(b, loc, group, stage, Value(), 1u);
      });
      break;
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct PipeReleaseLowering : OpConversionPattern<PipeReleaseOp> {
  PipeReleaseLowering(const TypeConverter &types, MLIRContext *ctx,
                      function_ref<bool(Operation *)> restrictedFence)
      : OpConversionPattern(types, ctx), restrictedFence(restrictedFence) {}

  LogicalResult
  matchAndRewrite(PipeReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    PipeType pipe = pipeOf(op.getPipe());
    Value index = barrierIndex(rewriter, loc, adaptor.getSlot(),
                               pipe.getDepth(), /*empty=*/true);
    if (pipe.getMulticast() == Multicast::none) {
      ArriveOp::create(rewriter, loc, adaptor.getPipe(), index, Value(),
                       Value(), adaptor.getPred(), nullptr, nullptr);
      rewriter.eraseOp(op);
      return success();
    }
    // One cluster-form arrival per CTA that writes into this stage. What
    // the consumer publishes is its reads of its own stage (.shared::cta):
    // fence.release.sync_restrict::shared::cta.cluster orders exactly those
    // before the relaxed.cluster arrivals that follow (PTX 8.6); without it,
    // release.cluster arrivals (which mbarrier-merge-release-fences may
    // still merge).
    bool restricted = restrictedFence(op);
    guarded(rewriter, loc, adaptor.getPred(), [&](OpBuilder &b) {
      SemanticsAttr sem;
      ScopeAttr scope;
      if (restricted) {
        FenceReleaseOp::create(b, loc, b.getUnitAttr());
        sem = SemanticsAttr::get(b.getContext(), Semantics::relaxed);
        scope = ScopeAttr::get(b.getContext(), Scope::cluster);
      }
      for (Value rank : releaseTargets(b, loc, pipe))
        ArriveOp::create(b, loc, adaptor.getPipe(), index, Value(), rank,
                         Value(), sem, scope);
    });
    rewriter.eraseOp(op);
    return success();
  }

  function_ref<bool(Operation *)> restrictedFence;
};

struct PipeTailLowering : OpConversionPattern<PipeTailOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeTailOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned d = pipeOf(op.getPipe()).getDepth();
    Value lb = i32Const(rewriter, loc, 0), ub = i32Const(rewriter, loc, d);
    Value step = i32Const(rewriter, loc, 1);
    Value group = adaptor.getPipe(), state = adaptor.getState();
    scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{},
        [&](OpBuilder &b, Location l, Value k, ValueRange) {
          Value count = arith::AddIOp::create(b, l, state, k);
          WaitTarget at = waitTarget(b, l, count, d, /*producer=*/true);
          WaitOp::create(b, l, group, at.index, at.phase,
                         /*suspend_time=*/Value(), 1u, nullptr, nullptr);
          scf::YieldOp::create(b, l);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct PipeStageLowering : OpConversionPattern<PipeStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSlot());
    return success();
  }
};

Value fullPtr(OpBuilder &b, Location loc, Value group, Value stage) {
  return PtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                       group, stage);
}

struct PipeFullPtrLowering : OpConversionPattern<PipeFullPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeFullPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, fullPtr(rewriter, op.getLoc(), adaptor.getPipe(),
                                   adaptor.getSlot()));
    return success();
  }
};

struct PipeCopyLowering : OpConversionPattern<PipeCpAsyncBulkOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeCpAsyncBulkOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = fullPtr(rewriter, loc, adaptor.getPipe(), adaptor.getSlot());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(
        op, adaptor.getDst(), adaptor.getSrc(), bar, adaptor.getSize(),
        Value(), Value());
    return success();
  }
};

struct PipeTensorCopyLowering : OpConversionPattern<PipeCpAsyncBulkTensorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipeCpAsyncBulkTensorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value bar = fullPtr(rewriter, loc, adaptor.getPipe(), adaptor.getSlot());
    // A shared::cta address is a shared::cluster address of this CTA.
    Value dst = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(ctx, 7), adaptor.getDst());
    Value map = adaptor.getTensorMap();
    if (cast<LLVM::LLVMPointerType>(map.getType()).getAddressSpace() != 0)
      map = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(ctx, 0), map);
    Value mask;
    std::optional<Multicast> direction = op.getMulticast();
    if (direction && *direction != Multicast::none)
      mask = multicastMask(rewriter, loc, pipeOf(op.getPipe()), *direction);
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
        op, dst, map, adaptor.getCoordinates(), bar, ValueRange{}, mask,
        Value(), NVVM::TMALoadMode::TILE, false, nullptr, Value());
    return success();
  }
};

} // namespace lower_pipes

namespace {
using namespace lower_pipes;

struct MBarrierLowerPipes
    : mbarrier::impl::MBarrierLowerPipesBase<MBarrierLowerPipes> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Where the restricted release fence exists: per gpu.module, from its
    // NVVM target (outside a targeted module: the release.cluster form every
    // target takes). A multicast release that gets it raises a derived PTX
    // version to 8.6.
    ReleaseFenceSupport support;
    auto restrictedFence = [&](Operation *op) { return support(op); };
    WalkResult raised = getOperation()->walk([&](PipeReleaseOp op) {
      auto pipe = cast<PipeType>(op.getPipe().getType());
      if (pipe.getMulticast() != Multicast::none && support(op) &&
          failed(support.use(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (raised.wasInterrupted())
      return signalPassFailure();
    TypeConverter types;
    types.addConversion([](Type t) { return t; });
    types.addConversion([](PipeType t) -> Type {
      return GroupType::get(t.getContext(), 2 * t.getDepth());
    });
    types.addConversion([](PipeStateType t) -> Type {
      return IntegerType::get(t.getContext(), 32);
    });
    types.addConversion(
        [](SlotType t) -> Type { return IndexType::get(t.getContext()); });

    ConversionTarget target(*ctx);
    target.addLegalDialect<MBarrierDialect, arith::ArithDialect,
                           scf::SCFDialect, NVVM::NVVMDialect,
                           LLVM::LLVMDialect>();
    target.addIllegalOp<PipeCreateOp, PipeInitOp, PipeStartOp, PipeAdvanceOp,
                        PipeAcquireOp, PipeWaitOp, PipeTryAcquireOp,
                        PipeTryWaitOp, PipeCommitOp, PipeReleaseOp, PipeTailOp,
                        PipeStageOp, PipeFullPtrOp, PipeCpAsyncBulkOp,
                        PipeCpAsyncBulkTensorOp>();
    // scf ops, functions, calls and returns that carry pipes, states or
    // slots are converted with them; anything else must not hold one (the
    // MLIR Python bindings this links against have no cf type conversion).
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op))
        return types.isSignatureLegal(
                   cast<FunctionType>(fn.getFunctionType())) &&
               types.isLegal(&fn.getFunctionBody());
      return types.isLegal(op->getOperandTypes()) &&
             types.isLegal(op->getResultTypes());
    });

    RewritePatternSet patterns(ctx);
    patterns.add<PipeCreateLowering, PipeInitLowering, PipeStartLowering, PipeAdvanceLowering,
                 PipeEnterLowering<PipeAcquireOp, true>,
                 PipeEnterLowering<PipeWaitOp, false>,
                 PipeTryLowering<PipeTryAcquireOp, true>,
                 PipeTryLowering<PipeTryWaitOp, false>, PipeCommitLowering,
                 PipeTailLowering, PipeStageLowering,
                 PipeFullPtrLowering, PipeCopyLowering, PipeTensorCopyLowering>(types,
                                                                     ctx);
    patterns.add<PipeReleaseLowering>(types, ctx,
                                      function_ref<bool(Operation *)>(
                                          restrictedFence));
    // The ordered sequences (LowerOrderedSeq.cpp).
    populateOrderedSeqLowering(types, patterns, target);
    scf::populateSCFStructuralTypeConversionsAndLegality(types, patterns,
                                                         target);
    populateAnyFunctionOpInterfaceTypeConversionPattern(patterns, types);
    populateCallOpTypeConversionPattern(patterns, types);
    populateReturnOpTypeConversionPattern(patterns, types);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
