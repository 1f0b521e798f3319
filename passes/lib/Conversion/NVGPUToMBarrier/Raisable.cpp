//===- Raisable.cpp - which nvgpu barrier groups raise --------------------===//
//
// A group raises whole or not at all: its values would otherwise be two
// types at once. What keeps a group in nvgpu is what this dialect cannot
// say with the same meaning (a wait on a state token), or a use the raise
// does not see through; each such op gets a remark, never a silent change.
//
//===----------------------------------------------------------------------===//
#include "Raisable.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::raise_nvgpu;

std::optional<int64_t> raise_nvgpu::boxBytes(Type descriptor) {
  auto type = dyn_cast<nvgpu::TensorMapDescriptorType>(descriptor);
  if (!type)
    return std::nullopt;
  MemRefType box = type.getTensor();
  if (!box.hasStaticShape() || !box.getElementType().isIntOrFloat() ||
      box.getElementTypeBitWidth() % 8)
    return std::nullopt;
  int64_t bytes = box.getElementTypeBitWidth() / 8;
  for (int64_t dim : box.getShape())
    if (dim <= 0 || (bytes *= dim) > kMaxTxCount)
      return std::nullopt;
  return bytes;
}

namespace {

/// Why a constant `value` makes the raised op invalid: outside [lo, hi].
std::optional<std::string> outside(Value value, int64_t lo, int64_t hi,
                                   StringRef what) {
  std::optional<int64_t> v = getConstantIntValue(value);
  if (!v || (*v >= lo && *v <= hi))
    return std::nullopt;
  return (what + " " + Twine(*v) + " is outside [" + Twine(lo) + ", " +
          Twine(hi) + "]")
      .str();
}

/// Why an arrive's token keeps it in nvgpu: its state is used.
std::optional<std::string> tokenUsed(Value token) {
  if (token.use_empty())
    return std::nullopt;
  return ("its state token is used (by '" +
          token.getUsers().begin()->getName().getStringRef() +
          "'): this dialect's waits take a phase parity, not a state")
      .str();
}

/// Why the use `user` of the group `group` (N barriers) has no counterpart,
/// or none when it raises.
std::optional<std::string> whyNot(Operation *user, Value group, unsigned n) {
  auto index = [&](Value id) -> std::optional<std::string> {
    return outside(id, 0, int64_t(n) - 1, "the barrier index");
  };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(user)
      .Case([&](nvgpu::MBarrierGetOp op) { return index(op.getMbarId()); })
      .Case([&](nvgpu::MBarrierInitOp op) -> std::optional<std::string> {
        if (auto why = index(op.getMbarId()))
          return why;
        return outside(op.getCount(), 1, kMaxArriveCount, "the arrival count");
      })
      .Case([&](nvgpu::MBarrierArriveOp op) -> std::optional<std::string> {
        if (auto why = index(op.getMbarId()))
          return why;
        return tokenUsed(op.getToken());
      })
      .Case([&](nvgpu::MBarrierArriveNoCompleteOp op)
                -> std::optional<std::string> {
        if (auto why = index(op.getMbarId()))
          return why;
        if (auto why = tokenUsed(op.getToken()))
          return why;
        return outside(op.getCount(), 1, kMaxArriveCount, "the arrival count");
      })
      .Case([&](nvgpu::MBarrierArriveExpectTxOp op)
                -> std::optional<std::string> {
        if (auto why = index(op.getMbarId()))
          return why;
        return outside(op.getTxcount(), 0, kMaxTxCount, "the tx count");
      })
      .Case([&](nvgpu::MBarrierTryWaitParityOp op) {
        return index(op.getMbarId());
      })
      .Case([&](nvgpu::MBarrierTestWaitOp) -> std::optional<std::string> {
        return std::string("it waits on a state token: this dialect's waits "
                           "take a phase parity (mbarrier.test_wait %g[%i], "
                           "%parity)");
      })
      .Case([&](nvgpu::TmaAsyncLoadOp op) -> std::optional<std::string> {
        if (op.getBarriers() != group)
          return std::string("it uses the group as something other than its "
                             "completion barrier");
        if (auto why = index(op.getMbarId()))
          return why;
        std::optional<int64_t> bytes =
            boxBytes(op.getTensorMapDescriptor().getType());
        if (!bytes || *bytes % 16)
          return std::string("the box of its tensor map descriptor has no "
                             "static size that is a multiple of 16 bytes, at "
                             "most 2^20-1");
        if (!nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(
                op.getDst().getType()))
          return std::string("its destination is not in workgroup memory");
        if (op.getCoordinates().empty() || op.getCoordinates().size() > 5)
          return std::string("it has no 1 to 5 coordinates");
        return std::nullopt;
      })
      .Default([&](Operation *op) -> std::optional<std::string> {
        return ("the group is used by '" + op->getName().getStringRef() +
                "', which the raise does not see through")
            .str();
      });
}

/// Whether `op` uses a barrier group of nvgpu.
bool usesGroup(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    return isa<nvgpu::MBarrierGroupType>(t);
  });
}

} // namespace

llvm::DenseSet<Operation *> raise_nvgpu::planRaising(Operation *root) {
  llvm::DenseSet<Operation *> raised;
  root->walk([&](Operation *op) {
    if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      auto type = create.getBarriers().getType();
      unsigned n = type.getNumBarriers();
      if (!nvgpu::NVGPUDialect::isSharedMemoryAddressSpace(
              type.getMemorySpace())) {
        create.emitRemark() << "not raised into the mbarrier dialect: the "
                               "group is not in workgroup memory";
        return;
      }
      if (n < 1 || 8ull * n > kMaxStaticSharedBytes) {
        create.emitRemark()
            << "not raised into the mbarrier dialect: a group of " << n
            << " barriers is not one mbarrier.alloc can hold (1 to "
            << kMaxStaticSharedBytes / 8 << ")";
        return;
      }
      SmallVector<Operation *> users;
      bool ok = true;
      for (Operation *user : create.getBarriers().getUsers()) {
        if (std::optional<std::string> why =
                whyNot(user, create.getBarriers(), n)) {
          user->emitRemark() << "keeps its barrier group in nvgpu "
                                "(mbarrier-raise-nvgpu): "
                             << *why;
          ok = false;
        }
        users.push_back(user);
      }
      if (!ok)
        return;
      raised.insert(create);
      raised.insert(users.begin(), users.end());
      return;
    }
    // A group that is not made by an mbarrier.create in sight (a function
    // argument, an iter_arg) stays nvgpu.
    if (isa<nvgpu::NVGPUDialect>(op->getDialect()) && usesGroup(op) &&
        llvm::none_of(op->getOperands(), [](Value v) {
          return isa<nvgpu::MBarrierGroupType>(v.getType()) &&
                 v.getDefiningOp<nvgpu::MBarrierCreateOp>();
        }))
      op->emitRemark() << "not raised into the mbarrier dialect: its barrier "
                          "group is not made by an nvgpu.mbarrier.create in "
                          "sight";
  });
  return raised;
}
