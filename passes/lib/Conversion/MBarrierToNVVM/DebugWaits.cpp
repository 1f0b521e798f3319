//===- DebugWaits.cpp - the bounded wait of debug-waits -------------------===//
//
// With `debug-waits=<ns>`, a blocking wait is a loop with a bound: the first
// try_wait as without the option (a wait that succeeds at once runs the same
// instructions), `%globaltimer` read only after a try_wait failed, and once
// the bound has passed: one record per stuck warp written to the report
// buffer the runtime gave the module (debug_waits:: in MBarrierToNVVM.h),
// then `trap`, so that the host sees a launch failure instead of a hang and
// formats the records as located lines.
//
// No call anywhere: a `vprintf` (even one never reached, in a function of
// its own) makes ptxas serialize every wgmma of the kernel ("wgmma pipeline
// crossing function boundary"), which cost the attention kernel 43-46%.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;
namespace dw = mlir::mbarrier::debug_waits;

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

/// An inline-PTX statement with side effects, no operands or results.
void emitStatement(OpBuilder &b, Location loc, StringRef text) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{}, text, "",
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            /*asm_dialect=*/{}, /*operand_attrs=*/{});
}

/// Whether this lane is the lowest active lane of its warp: one record per
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

/// The module's `[2 x i64]` debug-wait state (created on first use).
LLVM::GlobalOp stateGlobal(OpBuilder &b, Operation *module) {
  SymbolTable symbols(module);
  if (auto found = symbols.lookup<LLVM::GlobalOp>(dw::kStateSymbol))
    return found;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&module->getRegion(0).front());
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), 2);
  auto zeros = DenseElementsAttr::get(
      RankedTensorType::get({2}, b.getI64Type()), b.getI64IntegerAttr(0));
  return LLVM::GlobalOp::create(b, module->getLoc(), type, /*isConstant=*/false,
                                LLVM::Linkage::External, dw::kStateSymbol,
                                zeros, /*alignment=*/8,
                                static_cast<unsigned>(
                                    NVVM::NVVMMemorySpace::Global));
}

/// Appends `text` (one line) to the module's site table; its line number.
unsigned addSite(OpBuilder &b, Operation *module, StringRef text) {
  SymbolTable symbols(module);
  auto table = symbols.lookup<LLVM::GlobalOp>(dw::kSitesSymbol);
  std::string lines;
  if (table) {
    lines = cast<StringAttr>(*table.getValue()).getValue().str();
    lines.pop_back(); // the terminating NUL
  }
  unsigned site = llvm::count(lines, '\n');
  lines += text.str() + "\n";
  lines.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), lines.size());
  if (table) {
    table.setGlobalType(type);
    table.setValueAttr(b.getStringAttr(lines));
    return site;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&module->getRegion(0).front());
  LLVM::GlobalOp::create(b, module->getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External, dw::kSitesSymbol,
                         b.getStringAttr(lines));
  return site;
}

/// `*(T *)(base + offset) = value`, a volatile store to global memory.
void storeAt(OpBuilder &b, Location loc, Value base, unsigned offset,
             Value value) {
  Type ptr = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
  Value at = LLVM::IntToPtrOp::create(
      b, loc, ptr,
      LLVM::AddOp::create(b, loc, base, i64Constant(b, loc, offset)).getResult());
  LLVM::StoreOp::create(b, loc, value, at,
                        /*alignment=*/value.getType().getIntOrFloatBitWidth() / 8,
                        /*isVolatile=*/true);
}

/// The barrier's state without changing it: what `mbarrier.arrive` with an
/// arrival count of 0 returns (a plain load of an mbarrier object reads 0 on
/// sm_90: its state is not in the shared-memory word).
Value barrierState(OpBuilder &b, Location loc, Value addr) {
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI64Type(), ValueRange{addr, i32Constant(b, loc, 0)},
             "mbarrier.arrive.shared::cta.b64 $0, [$1], $2;", "=l,l,r",
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             /*asm_dialect=*/{}, /*operand_attrs=*/{})
      .getResult(0);
}

/// The timed-out warp's record, written by its lowest active lane into the
/// next free record of the report buffer; nothing where the runtime gave the
/// module no buffer (address 0) or every record is taken (then the header's
/// overflow mark).
void emitReport(OpBuilder &b, Location loc, LLVM::GlobalOp state,
                unsigned site, Value addr, Value index, Value parity,
                Value waited) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto leader = scf::IfOp::create(b, loc, isLowestActiveLane(b, loc),
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  Value statePtr = LLVM::AddressOfOp::create(b, loc, state);
  Value buffer = LLVM::LoadOp::create(b, loc, i64, statePtr, /*alignment=*/8,
                                      /*isVolatile=*/true);
  Value takenPtr = LLVM::GEPOp::create(b, loc, statePtr.getType(), i64,
                                       statePtr, ArrayRef<LLVM::GEPArg>{1});
  Value slot = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                         takenPtr, i64Constant(b, loc, 1),
                                         LLVM::AtomicOrdering::monotonic);
  Value hasBuffer = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                                         buffer, i64Constant(b, loc, 0));
  auto given = scf::IfOp::create(b, loc, hasBuffer, /*withElseRegion=*/false);
  b.setInsertionPointToStart(given.thenBlock());
  Value free = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, slot,
                                    i64Constant(b, loc, dw::kRecords));
  auto write = scf::IfOp::create(b, loc, free, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard full(b);
    b.setInsertionPointToStart(write.elseBlock());
    storeAt(b, loc, buffer, 0, i32Constant(b, loc, 1));
  }
  b.setInsertionPointToStart(write.thenBlock());
  Value record = LLVM::AddOp::create(
      b, loc, buffer,
      LLVM::AddOp::create(
          b, loc, i64Constant(b, loc, dw::kHeaderBytes),
          LLVM::MulOp::create(b, loc, slot,
                              i64Constant(b, loc, dw::kRecordBytes))));
  storeAt(b, loc, record, dw::kParity, parity);
  storeAt(b, loc, record, dw::kIndex, index);
  storeAt(b, loc, record, dw::kWaited, waited);
  storeAt(b, loc, record, dw::kClusterRank, NVVM::ClusterId::create(b, loc, i32));
  storeAt(b, loc, record, dw::kWarp, warpIndex(b, loc));
  storeAt(b, loc, record, dw::kCtaIdX, NVVM::BlockIdXOp::create(b, loc, i32));
  storeAt(b, loc, record, dw::kCtaIdY, NVVM::BlockIdYOp::create(b, loc, i32));
  storeAt(b, loc, record, dw::kCtaIdZ, NVVM::BlockIdZOp::create(b, loc, i32));
  storeAt(b, loc, record, dw::kSite, i32Constant(b, loc, site + 1));
  // The record reaches the host before anything else is tried; then the
  // barrier's state, in case reading it fails.
  emitStatement(b, loc, "fence.sc.sys;");
  storeAt(b, loc, record, dw::kState, barrierState(b, loc, addr));
  storeAt(b, loc, record, dw::kStateWritten, i32Constant(b, loc, 1));
  emitStatement(b, loc, "fence.sc.sys;");
}

} // namespace

/// `path` relative to the working folder where it lies under it, else as
/// given: the PTX of a debug-wait kernel then does not depend on where the
/// clone lives (the same source built from two folders gives the same PTX).
static std::string relativeToWorkingFolder(StringRef path) {
  llvm::SmallString<256> cwd;
  if (!llvm::sys::path::is_absolute(path) || llvm::sys::fs::current_path(cwd))
    return path.str();
  if (!cwd.ends_with("/"))
    cwd.push_back('/');
  StringRef rest = path;
  if (!rest.consume_front(cwd) || rest.empty())
    return path.str();
  return rest.str();
}

std::string lowering::locationText(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColRange>(inner);
    if (!file)
      return WalkResult::advance();
    text = (relativeToWorkingFolder(file.getFilename().getValue()) + ":" +
            Twine(file.getStartLine()) +
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

/// `text` with the table's separators (tab, newline) made spaces.
static std::string oneField(StringRef text) {
  std::string out = text.str();
  for (char &c : out)
    if (c == '\t' || c == '\n')
      c = ' ';
  return out;
}

std::string lowering::siteText(Location waitLoc, Value barriers) {
  std::string where = locationText(waitLoc);
  BarrierText barrier = barrierText(barriers);
  return oneField(where.empty() ? "an unknown location" : where) + "\t" +
         oneField(barrier.name) + "\t" + oneField(barrier.from);
}

void lowering::emitBoundedWait(OpBuilder &b, Location loc, StringRef site,
                               Value addr, Value index, Value parity,
                               uint64_t boundNs, const WaitTest &test) {
  // The module's state and this site's line, made before the loop's regions
  // (which are not in the module while they are built).
  Operation *module = b.getInsertionBlock()->getParentOp();
  while (!isa<gpu::GPUModuleOp, ModuleOp>(module))
    module = module->getParentOp();
  LLVM::GlobalOp state = stateGlobal(b, module);
  unsigned siteId = addSite(b, module, site);
  // The fast path: one try_wait, as without the option, its failure marked
  // unlikely (llvm.expect) so that the bounded loop lies out of line and
  // the code after the wait is scheduled as without the option.
  Value failedFirst = notOf(b, loc, test(b, loc));
  Value unlikely = LLVM::ExpectOp::create(
      b, loc, failedFirst,
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(false)));
  auto slow = scf::IfOp::create(b, loc, unlikely, /*withElseRegion=*/false);
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
          emitReport(before, l, state, siteId, addr, index, parity, waited);
          // The other stuck warps time out a little later (they started
          // waiting later): a quarter of the bound more for their records
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
