//===- LowerOrderedSeq.cpp - mbarrier.seq.* to mbarrier ops ---------------===//
//
// One pattern per ordered-sequence op, onto mbarrier.init / wait / arrive.
// A sequence `!mbarrier.ordered_seq<D, L>` becomes the `!mbarrier.group<D*L>`
// it was made from (barrier d * L + g: group g at stage d, CUTLASS's
// barrier_[d][g]); a state of group g that has taken c turns becomes the
// `i32` c * L + g, and a turn the state it was taken at.
//
// From a state s: g = s mod L, c = s div L, stage = c mod D, phase parity =
// ((c div D) & 1) ^ (g == 0): group 0 starts on the opposite phase, so its
// first wait at every stage passes on a fresh barrier (CUTLASS's
// `stage_({0, group_id == 0, 0})`). seq.wait waits on barrier stage * L + g;
// seq.arrive arrives on barrier stage * L + (g + 1) mod L. The arithmetic
// is folded as it is built: where a state is a constant (a group whose code
// is specialized, straight-line or unrolled), the indices and parities are
// constants, and the checker counts the arrivals of every barrier.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/Transforms/OrderedSeqLowering.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

#include <memory>

using namespace mlir;
using namespace mlir::mbarrier;

// A named namespace: the library is a unity build.
namespace lower_ordered_seq {

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

OrderedSeqType seqOf(Value v) { return cast<OrderedSeqType>(v.getType()); }

/// Where a state (or turn) `s` of a sequence of depth D and length L falls.
struct Position {
  Value group; // i32, s mod L
  Value stage; // i32, (s div L) mod D
  Value phase; // i32, the parity group `group` waits for at this turn
};

Position positionOf(OpBuilder &b, Location loc, Value s, OrderedSeqType seq) {
  Value length = i32(b, loc, seq.getLength());
  Value group = b.createOrFold<arith::RemUIOp>(loc, s, length);
  Value turns = b.createOrFold<arith::DivUIOp>(loc, s, length);
  Value depth = i32(b, loc, seq.getDepth());
  Value stage = b.createOrFold<arith::RemUIOp>(loc, turns, depth);
  Value round = b.createOrFold<arith::DivUIOp>(loc, turns, depth);
  Value parity = b.createOrFold<arith::AndIOp>(loc, round, i32(b, loc, 1));
  Value isFirst = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                group, i32(b, loc, 0));
  Value first = b.createOrFold<arith::ExtUIOp>(loc, b.getI32Type(), isFirst);
  return {group, stage, b.createOrFold<arith::XOrIOp>(loc, parity, first)};
}

/// The index of group `group`'s barrier at `stage`: stage * L + group.
Value barrierIndex(OpBuilder &b, Location loc, Value stage, Value group,
                   OrderedSeqType seq) {
  Value row = b.createOrFold<arith::MulIOp>(loc, stage,
                                            i32(b, loc, seq.getLength()));
  Value at = b.createOrFold<arith::AddIOp>(loc, row, group);
  return b.createOrFold<arith::IndexCastUIOp>(loc, b.getIndexType(), at);
}

struct SeqCreateLowering : OpConversionPattern<SeqCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeqCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getBarriers());
    return success();
  }
};

struct SeqInitLowering : OpConversionPattern<SeqInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeqInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OrderedSeqType seq = seqOf(op.getSeq());
    Location loc = op.getLoc();
    Value count = i32(rewriter, loc, seq.getArrivals());
    for (unsigned i = 0; i < seq.getDepth() * seq.getLength(); ++i)
      InitOp::create(rewriter, loc, adaptor.getSeq(),
                     arith::ConstantIndexOp::create(rewriter, loc, i), count);
    rewriter.eraseOp(op);
    return success();
  }
};

/// No turn taken yet: c = 0, so the state is the group itself. What the
/// checker needs of the op stays beside it (docs/checker.md, "Ordered
/// sequences"): a marker `arith.ori %group, 0` with the seq.start's
/// location and `mbarrier.group_start = array<i64: sequence, length>` (the
/// sequence numbered in the order the lowering meets it), whose result
/// nothing uses: the state folds as before, and the marker is dead code for
/// the passes after the checker.
struct SeqStartLowering : OpConversionPattern<SeqStartOp> {
  SeqStartLowering(const TypeConverter &types, MLIRContext *ctx)
      : OpConversionPattern(types, ctx),
        sequences(std::make_shared<llvm::DenseMap<Value, int64_t>>()) {}
  LogicalResult
  matchAndRewrite(SeqStartOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t id =
        sequences->try_emplace(adaptor.getSeq(), sequences->size()).first->second;
    auto marker = arith::OrIOp::create(rewriter, loc, adaptor.getGroup(),
                                       i32(rewriter, loc, 0));
    marker->setAttr(kSeqStartAttr,
                    rewriter.getDenseI64ArrayAttr(
                        {id, int64_t(seqOf(op.getSeq()).getLength())}));
    rewriter.replaceOp(op, adaptor.getGroup());
    return success();
  }
  std::shared_ptr<llvm::DenseMap<Value, int64_t>> sequences;
};

struct SeqWaitLowering : OpConversionPattern<SeqWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeqWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OrderedSeqType seq = seqOf(op.getSeq());
    Location loc = op.getLoc();
    Value state = adaptor.getState();
    Position at = positionOf(rewriter, loc, state, seq);
    WaitOp::create(rewriter, loc, adaptor.getSeq(),
                   barrierIndex(rewriter, loc, at.stage, at.group, seq),
                   at.phase, /*suspend_time=*/Value(), /*phase_offset=*/0u, nullptr,
                   nullptr);
    Value next = rewriter.createOrFold<arith::AddIOp>(
        loc, state, i32(rewriter, loc, seq.getLength()));
    rewriter.replaceOp(op, {state, next});
    return success();
  }
};

struct SeqArriveLowering : OpConversionPattern<SeqArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeqArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OrderedSeqType seq = seqOf(op.getSeq());
    Location loc = op.getLoc();
    Position at = positionOf(rewriter, loc, adaptor.getTurn(), seq);
    Value succ = rewriter.createOrFold<arith::AddIOp>(loc, at.group,
                                                      i32(rewriter, loc, 1));
    Value next = rewriter.createOrFold<arith::RemUIOp>(
        loc, succ, i32(rewriter, loc, seq.getLength()));
    ArriveOp::create(rewriter, loc, adaptor.getSeq(),
                     barrierIndex(rewriter, loc, at.stage, next, seq), Value(),
                     Value(), adaptor.getPred(), nullptr, nullptr);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace lower_ordered_seq

void mlir::mbarrier::populateOrderedSeqLowering(TypeConverter &types,
                                                RewritePatternSet &patterns,
                                                ConversionTarget &target) {
  using namespace lower_ordered_seq;
  types.addConversion([](OrderedSeqType t) -> Type {
    return GroupType::get(t.getContext(), t.getDepth() * t.getLength());
  });
  types.addConversion([](SeqStateType t) -> Type {
    return IntegerType::get(t.getContext(), 32);
  });
  types.addConversion([](SeqTurnType t) -> Type {
    return IntegerType::get(t.getContext(), 32);
  });
  target.addIllegalOp<SeqCreateOp, SeqInitOp, SeqStartOp, SeqWaitOp,
                      SeqArriveOp>();
  patterns.add<SeqCreateLowering, SeqInitLowering, SeqStartLowering,
               SeqWaitLowering, SeqArriveLowering>(types,
                                                   patterns.getContext());
}
