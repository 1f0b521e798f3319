//===- SyncViews.cpp - which barrier memory the checker sees whole --------===//
//
// A barrier is counted, and its lifetime followed, only where every op that
// can reach its memory is visible (docs/checker.md, "The analysis"):
//
// - An `mbarrier.view` names the barriers by their pointer: views of the
//   same pointer value are the same group (`rootOf` gives the pointer).
// - A view is *open* where its memory may also be reached some other way:
//   its pointer (or a constant offset of the same allocation that falls
//   inside its barriers) is used by anything but a view of it and pointer
//   arithmetic, a pointer of the same allocation at an unknown offset is
//   used as a barrier address (a bulk copy's `mbar`, an nvvm.mbarrier op,
//   inline PTX, a call, a store of the pointer, ...), or another view may
//   overlap it (same allocation, overlapping or unknown offsets; or a
//   pointer the checker cannot place).
// - An `mbarrier.ptr` whose address is used by anything but a bulk copy's
//   `mbar` operand or a cp.async.mbarrier.arrive opens its group the same
//   way.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

namespace {

/// Where a pointer points: an allocation (a global's symbol, or else the
/// pointer value the chain starts from) and a byte offset, when constant.
struct Place {
  Attribute symbol;
  Value base;
  std::optional<int64_t> offset;

  bool sameAllocation(const Place &other) const {
    return symbol ? symbol == other.symbol : base && base == other.base;
  }
};

/// The byte size of a GEP's element type where it is an integer type.
std::optional<int64_t> elementBytes(LLVM::GEPOp gep) {
  auto integer = dyn_cast<IntegerType>(gep.getElemType());
  if (!integer || integer.getWidth() % 8 != 0)
    return std::nullopt;
  return integer.getWidth() / 8;
}

Place placeOf(Value ptr, llvm::DenseMap<Value, Place> &memo, unsigned depth = 0) {
  if (auto it = memo.find(ptr); it != memo.end())
    return it->second;
  Place place{Attribute(), ptr, int64_t(0)};
  Operation *def = ptr.getDefiningOp();
  if (depth < 64 && def) {
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(def)) {
      place = {addr.getGlobalNameAttr(), Value(), int64_t(0)};
    } else if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      place = placeOf(gep.getBase(), memo, depth + 1);
      ArrayRef<int32_t> indices = gep.getRawConstantIndices();
      std::optional<int64_t> bytes = elementBytes(gep);
      if (place.offset && bytes && indices.size() == 1 &&
          indices[0] != LLVM::GEPOp::kDynamicIndex)
        place.offset = *place.offset + *bytes * indices[0];
      else
        place.offset.reset();
    } else if (isa<LLVM::AddrSpaceCastOp, NVVM::MapaOp>(def)) {
      place = placeOf(def->getOperand(0), memo, depth + 1);
    }
  }
  memo[ptr] = place;
  return place;
}

/// Ops through which a pointer stays a pointer into the same allocation.
bool isPointerArithmetic(Operation *op) {
  return isa<LLVM::GEPOp, LLVM::AddrSpaceCastOp, NVVM::MapaOp>(op);
}

/// Whether `use` treats its pointer as data (an address to load, store or
/// copy through) rather than as a barrier's address.
bool isDataUse(OpOperand &use) {
  Operation *op = use.getOwner();
  if (isPointerArithmetic(op) || isa<LLVM::LoadOp>(op))
    return true;
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return use.get() == store.getAddr() && use.get() != store.getValue();
  if (Value mbar = mbarOperand(op))
    return use.get() != mbar;
  return false;
}

struct Root {
  Value ptr;
  Place place;
  int64_t bytes = 0;
  bool open = false;

  /// Whether a pointer at `place` may point inside these barriers.
  bool mayPointInside(const Place &p) const {
    if (!p.sameAllocation(place))
      return false;
    if (!p.offset || !place.offset)
      return true;
    return *place.offset <= *p.offset && *p.offset < *place.offset + bytes;
  }
  bool mayOverlap(const Root &other) const {
    if (place.symbol && other.place.symbol && place.symbol != other.place.symbol)
      return false;
    if (!place.sameAllocation(other.place) || !place.offset ||
        !other.place.offset)
      return true;
    return *place.offset < *other.place.offset + other.bytes &&
           *other.place.offset < *place.offset + bytes;
  }
};

} // namespace

Value checksync::mbarOperand(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return copy.getMbar();
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return copy.getMbar();
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkSharedCTAToSharedClusterOp>(op))
    return copy.getMbar();
  return {};
}

SmallVector<Value> checksync::openRoots(FunctionOpInterface fn) {
  SmallVector<Value> open;
  llvm::DenseMap<Value, Place> memo;
  SmallVector<Root> roots;
  fn->walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op)) {
      Value ptr = view.getPtr();
      int64_t bytes = 8 * static_cast<int64_t>(getDepth(view.getType()));
      auto it = llvm::find_if(roots, [&](Root &r) { return r.ptr == ptr; });
      if (it == roots.end())
        roots.push_back({ptr, placeOf(ptr, memo), bytes});
      else
        it->bytes = std::max(it->bytes, bytes);
    }
    // An address taken with mbarrier.ptr and used other than by a bulk copy
    // that completes on it.
    if (auto ptr = dyn_cast<PtrOp>(op))
      for (Operation *user : ptr->getUsers())
        if (mbarOperand(user) != ptr.getResult() &&
            !isCpAsyncArriveOn(user, ptr.getResult())) {
          open.push_back(rootOf(ptr.getBarriers()));
          break;
        }
  });
  if (roots.empty())
    return open;

  // Views that may overlap one another.
  for (size_t i = 0; i < roots.size(); ++i)
    for (size_t j = i + 1; j < roots.size(); ++j)
      if (roots[i].mayOverlap(roots[j]))
        roots[i].open = roots[j].open = true;

  // Other pointers into the barriers' memory.
  auto check = [&](Value v) {
    if (!isa<LLVM::LLVMPointerType>(v.getType()))
      return;
    Place place = placeOf(v, memo);
    for (Root &root : roots) {
      if (root.open || !root.mayPointInside(place))
        continue;
      bool inside = v == root.ptr || (place.offset && root.place.offset);
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (v == root.ptr && isa<ViewOp>(user))
          continue; // the view itself (another view of it: the same group)
        if (isPointerArithmetic(user))
          continue; // what it computes is checked on its own
        // A pointer inside the barriers: anything is a barrier access. At
        // an unknown offset: only what uses it as a barrier's address.
        if (inside || !isDataUse(use)) {
          root.open = true;
          break;
        }
      }
    }
  };
  fn->walk([&](Operation *op) {
    for (Value result : op->getResults())
      check(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          check(arg);
  });
  for (Root &root : roots)
    if (root.open)
      open.push_back(root.ptr);
  return open;
}
