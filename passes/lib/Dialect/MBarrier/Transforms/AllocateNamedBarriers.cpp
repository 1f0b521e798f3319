//===- AllocateNamedBarriers.cpp - mbarrier-allocate-named-barriers --------===//
//
// Gives each `mbarrier.named_barrier` without an id the lowest free hardware
// barrier id of its module: not reserved, not another declaration's explicit
// id, not the constant id of an upstream nvvm.barrier / nvvm.barrier.arrive
// of the module. Where none is left: a located error naming the ids in use.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERALLOCATENAMEDBARRIERS
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

namespace {
constexpr unsigned kNumIds = 16;

/// `0,1-7` -> {0..7}; an empty string -> {}; none for anything else.
std::optional<llvm::BitVector> parseIdList(StringRef text) {
  llvm::BitVector ids(kNumIds);
  text = text.trim();
  if (text.empty())
    return ids;
  SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    auto [lo, hi] = item.trim().split('-');
    unsigned first, last;
    if (lo.trim().getAsInteger(10, first))
      return std::nullopt;
    last = first;
    if (!hi.empty() && hi.trim().getAsInteger(10, last))
      return std::nullopt;
    if (first > last || last >= kNumIds)
      return std::nullopt;
    ids.set(first, last + 1);
  }
  return ids;
}

/// The constant hardware id of an upstream named-barrier op (nvvm.barrier
/// with or without a thread count, nvvm.barrier.arrive: no id is id 0).
std::optional<int64_t> upstreamId(Operation *op) {
  Value id;
  if (auto sync = dyn_cast<NVVM::BarrierOp>(op))
    id = sync.getBarrierId();
  else if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(op))
    id = arrive.getBarrierId();
  else if (isa<NVVM::Barrier0Op>(op))
    return 0;
  else
    return std::nullopt;
  if (!id)
    return 0;
  return getConstantInt(id);
}

std::string listIds(const llvm::BitVector &ids) {
  std::string text;
  for (unsigned id : ids.set_bits())
    text += (text.empty() ? "" : ", ") + std::to_string(id);
  return text.empty() ? "none" : text;
}

struct AllocateNamedBarriersPass
    : mbarrier::impl::MBarrierAllocateNamedBarriersBase<
          AllocateNamedBarriersPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<llvm::BitVector> reservedIds = parseIdList(reserved);
    if (!reservedIds) {
      getOperation()->emitError()
          << "mbarrier-allocate-named-barriers: reserved='" << reserved
          << "' is not a list of hardware barrier ids and ranges in 0..15 "
             "(e.g. 0,1-7)";
      return signalPassFailure();
    }
    SmallVector<Operation *> tables;
    getOperation()->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::SymbolTable>() && op->getNumRegions() == 1 &&
          !op->getRegion(0).empty())
        tables.push_back(op);
    });
    for (Operation *table : tables)
      if (failed(allocate(table, *reservedIds)))
        return signalPassFailure();
  }

  LogicalResult allocate(Operation *table, const llvm::BitVector &reservedIds) {
    SmallVector<NamedBarrierOp> open;
    llvm::BitVector taken(kNumIds);
    for (Operation &op : table->getRegion(0).front())
      if (auto decl = dyn_cast<NamedBarrierOp>(&op)) {
        if (std::optional<uint32_t> id = decl.getId())
          taken.set(*id);
        else
          open.push_back(decl);
      }
    if (open.empty())
      return success();
    table->walk([&](Operation *op) {
      std::optional<int64_t> id = upstreamId(op);
      if (id && *id >= 0 && *id < kNumIds)
        taken.set(*id);
    });
    llvm::BitVector used = taken;
    used |= reservedIds;
    Builder builder(table->getContext());
    for (NamedBarrierOp decl : open) {
      int free = used.find_first_unset();
      if (free < 0)
        return decl.emitOpError()
               << "needs a hardware barrier id, and all 16 are in use: "
                  "reserved "
               << listIds(reservedIds) << "; taken by other declarations or "
               << "upstream nvvm.barrier ops of the module "
               << listIds(taken) << "; allocated before it "
               << listIds(used.reset(reservedIds).reset(taken));
      decl.setIdAttr(builder.getI32IntegerAttr(free));
      used.set(free);
    }
    return success();
  }
};
} // namespace
