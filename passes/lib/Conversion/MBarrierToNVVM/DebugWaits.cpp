//===- DebugWaits.cpp - the bounded wait of debug-waits -------------------===//
//
// With `debug-waits=<ns>`, a blocking wait is a loop with a bound: the first
// try_wait as without the option (a wait that succeeds at once runs the same
// instructions), `%globaltimer` read only after a try_wait failed, and once
// the bound has passed: one located line per stuck warp (device printf), then
// `trap`, so that the host sees a launch failure instead of a hang.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

Value i64Constant(OpBuilder &b, Location loc, uint64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(value));
}

Value notOf(OpBuilder &b, Location loc, Value bit) {
  return LLVM::XOrOp::create(
      b, loc, bit,
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
}

Value globalTimer(OpBuilder &b, Location loc) {
  return NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
}

/// `%globaltimer - start > limit` (unsigned nanoseconds).
Value isPast(OpBuilder &b, Location loc, Value start, uint64_t limit,
             Value *waited = nullptr) {
  Value elapsed = LLVM::SubOp::create(b, loc, globalTimer(b, loc), start);
  if (waited)
    *waited = elapsed;
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, elapsed,
                              i64Constant(b, loc, limit));
}

/// `text` as a literal part of a printf format (a `%` doubled).
std::string formatLiteral(StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

/// Whether this lane is the lowest active lane of its warp: one line per
/// warp (per converged group of lanes) rather than one per thread.
Value isLowestActiveLane(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  Value active = LLVM::InlineAsmOp::create(
                     b, loc, i32, ValueRange{}, "activemask.b32 $0;", "=r",
                     /*has_side_effects=*/true, /*is_align_stack=*/false,
                     LLVM::tailcallkind::TailCallKind::None,
                     /*asm_dialect=*/{}, /*operand_attrs=*/{})
                     .getResult(0);
  Value below = LLVM::AndOp::create(
      b, loc, active, NVVM::LaneMaskLtOp::create(b, loc, i32));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, below,
                              i32Constant(b, loc, 0));
}

/// The warp's index in its CTA: the linear thread index / 32.
Value warpIndex(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  Value x = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value y = NVVM::ThreadIdYOp::create(b, loc, i32);
  Value z = NVVM::ThreadIdZOp::create(b, loc, i32);
  Value nx = NVVM::BlockDimXOp::create(b, loc, i32);
  Value ny = NVVM::BlockDimYOp::create(b, loc, i32);
  Value yz = LLVM::AddOp::create(b, loc, y, LLVM::MulOp::create(b, loc, ny, z));
  Value linear =
      LLVM::AddOp::create(b, loc, x, LLVM::MulOp::create(b, loc, nx, yz));
  return LLVM::UDivOp::create(b, loc, linear, i32Constant(b, loc, 32));
}

/// One timed-out line, printed by the lowest active lane of the warp.
void emitReport(OpBuilder &b, Location loc, StringRef format, Value addr,
                Value index, Value parity, Value waited) {
  Type i32 = b.getI32Type();
  auto leader = scf::IfOp::create(b, loc, isLowestActiveLane(b, loc),
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  // The barrier's 64 bits as shared memory holds them: the layout of an
  // mbarrier object is not specified (PTX ISA), so they are printed raw.
  Value word = LLVM::LoadOp::create(b, loc, b.getI64Type(), addr,
                                    /*alignment=*/8, /*isVolatile=*/true);
  SmallVector<Value> args = {index,
                             parity,
                             waited,
                             NVVM::ClusterId::create(b, loc, i32),
                             NVVM::BlockIdXOp::create(b, loc, i32),
                             NVVM::BlockIdYOp::create(b, loc, i32),
                             NVVM::BlockIdZOp::create(b, loc, i32),
                             warpIndex(b, loc),
                             word};
  gpu::PrintfOp::create(b, loc, b.getStringAttr(format), args);
}

} // namespace

std::string lowering::locationText(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColRange>(inner);
    if (!file)
      return WalkResult::advance();
    text = (file.getFilename().getValue() + ":" + Twine(file.getStartLine()) +
            ":" + Twine(file.getStartColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

lowering::BarrierText lowering::barrierText(Value barriers) {
  BarrierText text{"group", ""};
  if (auto type = dyn_cast<GroupType>(barriers.getType()))
    text.name = ("group<" + Twine(type.getDepth()) + ">").str();
  Operation *def = barriers.getDefiningOp();
  if (!def)
    return text;
  if (auto name = dyn_cast<NameLoc>(def->getLoc()))
    text.name = name.getName().str();
  else
    text.from = locationText(def->getLoc());
  return text;
}

std::string lowering::timeoutFormat(Location waitLoc, Value barriers) {
  std::string where = locationText(waitLoc);
  BarrierText barrier = barrierText(barriers);
  std::string from =
      barrier.from.empty() ? "" : " from " + formatLiteral(barrier.from);
  return kDebugWaitMark.str() +
         formatLiteral(where.empty() ? "an unknown location" : where) +
         " (barrier " + formatLiteral(barrier.name) + "[%lld]" + from +
         ", parity %u, waited %llu ns) cta %u (ctaid %u,%u,%u) warp %u; "
         "barrier word 0x%016llx (raw, layout opaque)\n";
}

void lowering::emitBoundedWait(OpBuilder &b, Location loc, StringRef format,
                               Value addr, Value index, Value parity,
                               uint64_t boundNs, const WaitTest &test) {
  // The fast path: one try_wait, as without the option.
  auto slow = scf::IfOp::create(b, loc, notOf(b, loc, test(b, loc)),
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(slow.thenBlock());
  Value start = globalTimer(b, loc);
  scf::WhileOp::create(
      b, loc, TypeRange{}, ValueRange{},
      [&](OpBuilder &before, Location l, ValueRange) {
        Value notReady = notOf(before, l, test(before, l));
        auto failed = scf::IfOp::create(before, l, notReady,
                                        /*withElseRegion=*/false);
        {
          OpBuilder::InsertionGuard inner(before);
          before.setInsertionPointToStart(failed.thenBlock());
          Value waited;
          Value over = isPast(before, l, start, boundNs, &waited);
          auto timedOut = scf::IfOp::create(before, l, over,
                                            /*withElseRegion=*/false);
          before.setInsertionPointToStart(timedOut.thenBlock());
          emitReport(before, l, format, addr, index, parity, waited);
          // The other stuck warps time out a little later (they started
          // waiting later): a quarter of the bound more for their lines
          // before the trap ends the grid.
          uint64_t end = boundNs + boundNs / 4;
          scf::WhileOp::create(
              before, l, TypeRange{}, ValueRange{},
              [&](OpBuilder &spin, Location sl, ValueRange) {
                scf::ConditionOp::create(
                    spin, sl, notOf(spin, sl, isPast(spin, sl, start, end)),
                    ValueRange{});
              },
              [&](OpBuilder &spin, Location sl, ValueRange) {
                scf::YieldOp::create(spin, sl);
              });
          LLVM::Trap::create(before, l);
        }
        scf::ConditionOp::create(before, l, notReady, ValueRange{});
      },
      [&](OpBuilder &after, Location l, ValueRange) {
        scf::YieldOp::create(after, l);
      });
}
