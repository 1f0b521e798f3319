//===- UpstreamOps.cpp - what the checker knows of upstream ops ----------===//
//
// Typed checks of the nvvm, gpu, scf and llvm ops the checker understands,
// and the inline-PTX text it recognizes, in one place.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/UpstreamOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier::checksync;

SpecialReg checksync::specialRegisterOf(Operation *op) {
  using R = SpecialReg;
  // Asked of every op the interpreters evaluate: one dialect test first,
  // not sixty op tests.
  if (!isa_and_nonnull<NVVM::NVVMDialect>(op->getDialect()))
    return R::None;
  R reg = llvm::TypeSwitch<Operation *, R>(op)
              .Case([](NVVM::ThreadIdXOp) { return R::TidX; })
              .Case([](NVVM::ThreadIdYOp) { return R::TidY; })
              .Case([](NVVM::ThreadIdZOp) { return R::TidZ; })
              .Case([](NVVM::BlockDimXOp) { return R::NTidX; })
              .Case([](NVVM::BlockDimYOp) { return R::NTidY; })
              .Case([](NVVM::BlockDimZOp) { return R::NTidZ; })
              .Case([](NVVM::LaneIdOp) { return R::LaneId; })
              .Case([](NVVM::WarpSizeOp) { return R::WarpSize; })
              .Case([](NVVM::BlockIdXOp) { return R::CtaIdX; })
              .Case([](NVVM::BlockIdYOp) { return R::CtaIdY; })
              .Case([](NVVM::BlockIdZOp) { return R::CtaIdZ; })
              .Case([](NVVM::GridDimXOp) { return R::NCtaIdX; })
              .Case([](NVVM::GridDimYOp) { return R::NCtaIdY; })
              .Case([](NVVM::GridDimZOp) { return R::NCtaIdZ; })
              .Case([](NVVM::ClusterId) { return R::ClusterCtaRank; })
              .Case([](NVVM::ClusterDim) { return R::ClusterNCtaRank; })
              .Case([](NVVM::BlockInClusterIdXOp) { return R::ClusterCtaIdX; })
              .Case([](NVVM::BlockInClusterIdYOp) { return R::ClusterCtaIdY; })
              .Case([](NVVM::BlockInClusterIdZOp) { return R::ClusterCtaIdZ; })
              .Case([](NVVM::ClusterDimBlocksXOp) { return R::ClusterNCtaIdX; })
              .Case([](NVVM::ClusterDimBlocksYOp) { return R::ClusterNCtaIdY; })
              .Case([](NVVM::ClusterDimBlocksZOp) { return R::ClusterNCtaIdZ; })
              .Case([](NVVM::ClusterIdXOp) { return R::ClusterIdX; })
              .Case([](NVVM::ClusterIdYOp) { return R::ClusterIdY; })
              .Case([](NVVM::ClusterIdZOp) { return R::ClusterIdZ; })
              .Case([](NVVM::ClusterDimXOp) { return R::NClusterIdX; })
              .Case([](NVVM::ClusterDimYOp) { return R::NClusterIdY; })
              .Case([](NVVM::ClusterDimZOp) { return R::NClusterIdZ; })
              .Default([](Operation *) { return R::None; });
  // The other special registers (%warpid, %clock, %smid, %envregN, ...).
  if (reg == R::None &&
      isa<NVVM::WarpIdOp, NVVM::WarpDimOp, NVVM::SmIdOp, NVVM::SmDimOp,
          NVVM::GridIdOp, NVVM::LaneMaskEqOp, NVVM::LaneMaskLeOp,
          NVVM::LaneMaskLtOp, NVVM::LaneMaskGeOp, NVVM::LaneMaskGtOp,
          NVVM::TotalSmemSize, NVVM::DynamicSmemSize, NVVM::AggrSmemSize,
          NVVM::ClockOp, NVVM::Clock64Op, NVVM::GlobalTimerOp,
          NVVM::GlobalTimerLoOp, NVVM::EnvReg0Op, NVVM::EnvReg1Op,
          NVVM::EnvReg2Op, NVVM::EnvReg3Op, NVVM::EnvReg4Op, NVVM::EnvReg5Op,
          NVVM::EnvReg6Op, NVVM::EnvReg7Op, NVVM::EnvReg8Op, NVVM::EnvReg9Op,
          NVVM::EnvReg10Op, NVVM::EnvReg11Op, NVVM::EnvReg12Op,
          NVVM::EnvReg13Op, NVVM::EnvReg14Op, NVVM::EnvReg15Op,
          NVVM::EnvReg16Op, NVVM::EnvReg17Op, NVVM::EnvReg18Op,
          NVVM::EnvReg19Op, NVVM::EnvReg20Op, NVVM::EnvReg21Op,
          NVVM::EnvReg22Op, NVVM::EnvReg23Op, NVVM::EnvReg24Op,
          NVVM::EnvReg25Op, NVVM::EnvReg26Op, NVVM::EnvReg27Op,
          NVVM::EnvReg28Op, NVVM::EnvReg29Op, NVVM::EnvReg30Op,
          NVVM::EnvReg31Op>(op))
    return R::Other;
  return reg;
}

bool checksync::isClusterIndex(Operation *op) {
  using R = SpecialReg;
  R reg = specialRegisterOf(op);
  return reg == R::ClusterIdX || reg == R::ClusterIdY ||
         reg == R::ClusterIdZ || isa<gpu::ClusterIdOp>(op);
}

PointSource checksync::pointSourceOf(Operation *op) {
  using R = SpecialReg;
  switch (specialRegisterOf(op)) {
  case R::None:
    break;
  case R::NTidX: case R::NTidY: case R::NTidZ:
  case R::NCtaIdX: case R::NCtaIdY: case R::NCtaIdZ:
  case R::ClusterNCtaRank:
  case R::ClusterNCtaIdX: case R::ClusterNCtaIdY: case R::ClusterNCtaIdZ:
  case R::ClusterIdX: case R::ClusterIdY: case R::ClusterIdZ:
  case R::NClusterIdX: case R::NClusterIdY: case R::NClusterIdZ:
  case R::WarpSize:
    return PointSource::Launch;
  case R::CtaIdX: case R::CtaIdY: case R::CtaIdZ:
  case R::ClusterCtaRank:
  case R::ClusterCtaIdX: case R::ClusterCtaIdY: case R::ClusterCtaIdZ:
    return PointSource::CTA;
  default:
    return PointSource::Thread; // tid, laneid, warpid, clock, smid, ...
  }
  if (isa<gpu::BlockDimOp, gpu::GridDimOp, gpu::ClusterDimOp,
          gpu::ClusterDimBlocksOp, gpu::ClusterIdOp>(op))
    return PointSource::Launch;
  if (isa<gpu::BlockIdOp, gpu::ClusterBlockIdOp>(op))
    return PointSource::CTA;
  // thread_id, lane_id, subgroup_id, ...: any other id op of the gpu dialect.
  if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) &&
      op->getNumRegions() == 0 && op->getNumResults() > 0)
    return PointSource::Thread;
  if (isElectSync(op))
    return PointSource::Thread;
  return PointSource::None;
}

bool checksync::readsPoint(Operation *op) {
  using R = SpecialReg;
  switch (specialRegisterOf(op)) {
  case R::TidX: case R::TidY: case R::TidZ: case R::LaneId:
  case R::ClusterCtaRank:
  case R::ClusterCtaIdX: case R::ClusterCtaIdY: case R::ClusterCtaIdZ:
    return true;
  default:
    break;
  }
  return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::ClusterBlockIdOp>(op) ||
         isElectSync(op);
}

bool checksync::readsClock(Operation *op) {
  return isa<NVVM::ClockOp, NVVM::Clock64Op, NVVM::GlobalTimerOp,
             NVVM::GlobalTimerLoOp>(op);
}

bool checksync::isThreadBarrier(Operation *op) {
  return isCTABarrier(op) || isa<NVVM::BarrierArriveOp, NVVM::SyncWarpOp>(op);
}

Value checksync::barWarpSyncMask(Operation *op) {
  if (auto sync = dyn_cast<NVVM::SyncWarpOp>(op))
    return sync.getMask();
  return {};
}

bool checksync::isElectSync(Operation *op) { return isa<NVVM::ElectSyncOp>(op); }

bool checksync::isCTABarrier(Operation *op) {
  return isa<NVVM::Barrier0Op, NVVM::BarrierOp, gpu::BarrierOp>(op);
}

std::optional<UpstreamNamedBarrier>
checksync::upstreamNamedBarrierOf(Operation *op) {
  if (auto sync = dyn_cast<NVVM::BarrierOp>(op))
    return UpstreamNamedBarrier{sync.getBarrierId(), sync.getNumberOfThreads(),
                                true};
  if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(op))
    return UpstreamNamedBarrier{arrive.getBarrierId(),
                                arrive.getNumberOfThreads(), false};
  if (isa<NVVM::Barrier0Op, gpu::BarrierOp>(op))
    return UpstreamNamedBarrier{Value(), Value(), true};
  return std::nullopt;
}

StringRef checksync::inlinePTX(Operation *op) {
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return asmOp.getAsmString();
  return "";
}

bool checksync::isClusterArrive(Operation *op, bool *relaxed) {
  StringRef ptx = inlinePTX(op);
  if (ptx.contains("barrier.cluster.arrive")) {
    if (relaxed)
      *relaxed = ptx.contains("barrier.cluster.arrive.relaxed");
    return true;
  }
  if (isa<NVVM::ClusterArriveOp>(op)) {
    if (relaxed)
      *relaxed = false;
    return true;
  }
  if (isa<NVVM::ClusterArriveRelaxedOp>(op)) {
    if (relaxed)
      *relaxed = true;
    return true;
  }
  return false;
}

bool checksync::isClusterWait(Operation *op) {
  return isa<NVVM::ClusterWaitOp>(op) ||
         inlinePTX(op).contains("barrier.cluster.wait");
}

bool checksync::isUpstreamReleaseFence(Operation *op) {
  if (auto fence = dyn_cast<LLVM::FenceOp>(op)) {
    StringRef scope = fence.getSyncscope().value_or("");
    if (scope == "block" || scope == "cta" || scope == "singlethread")
      return false;
    auto ordering = fence.getOrdering();
    return ordering == LLVM::AtomicOrdering::release ||
           ordering == LLVM::AtomicOrdering::acq_rel ||
           ordering == LLVM::AtomicOrdering::seq_cst;
  }
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
    // Inline PTX: fence.{acq_rel,sc,release}.{cluster,gpu,sys} or membar.
    StringRef text = asmOp.getAsmString();
    bool fence = text.contains("fence.acq_rel") || text.contains("fence.sc") ||
                 text.contains("fence.release") || text.contains("membar.gl") ||
                 text.contains("membar.sys");
    return fence && !text.contains(".cta") && !text.contains("sync_restrict");
  }
  return isa<NVVM::FenceScClusterOp, NVVM::MembarOp, NVVM::FenceSyncRestrictOp,
             NVVM::FenceProxyReleaseOp>(op);
}

bool checksync::isAsyncProxySharedFence(Operation *op) {
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op))
    return fence.getKind() == NVVM::ProxyKind::async ||
           fence.getKind() == NVVM::ProxyKind::async_shared;
  StringRef text = inlinePTX(op);
  return text.contains("fence.proxy.async") &&
         !text.contains("fence.proxy.async.global");
}

SmallVector<Value, 2> checksync::asyncProxySharedReads(Operation *op) {
  if (auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op))
    return {mma.getDescriptorA(), mma.getDescriptorB()};
  if (Value source = bulkStoreSource(op))
    return {source};
  return {};
}

bool checksync::isStore(Operation *op) {
  if (isa<LLVM::StoreOp, NVVM::StMatrixOp>(op))
    return true;
  // memref.store, vector.store and the other writes to a memref.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> writes;
  effects.getEffects<MemoryEffects::Write>(writes);
  return llvm::any_of(writes, [](const MemoryEffects::EffectInstance &e) {
    return e.getValue() && isa<BaseMemRefType>(e.getValue().getType());
  });
}

bool checksync::isLoop(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp,
             LoopLikeOpInterface>(op);
}

bool checksync::isForLoop(Operation *op) { return isa<scf::ForOp>(op); }
Operation *checksync::inductionLoopOf(Value v) {
  auto loop = dyn_cast_or_null<scf::ForOp>(v.getParentRegion()
                                               ? v.getParentRegion()->getParentOp()
                                               : nullptr);
  return loop && v == loop.getInductionVar() ? loop.getOperation() : nullptr;
}
bool checksync::isWhileLoop(Operation *op) { return isa<scf::WhileOp>(op); }
Value checksync::spinLoopExitValue(Operation *op) {
  auto loop = dyn_cast<scf::WhileOp>(op);
  if (!loop || loop->getNumOperands() != 0 || loop->getNumResults() != 0)
    return {};
  Block &before = loop.getBefore().front();
  auto condition = dyn_cast<scf::ConditionOp>(before.getTerminator());
  if (!condition || condition.getArgs().size() != 0)
    return {};
  Value goOn = condition.getCondition();
  Operation *negation = goOn.getDefiningOp();
  if (!negation || negation->getBlock() != &before ||
      negation->getNumOperands() != 2)
    return {};
  auto constantBit = [](Value v) -> std::optional<bool> {
    llvm::APInt bit;
    if (!v.getType().isInteger(1) || !matchPattern(v, m_ConstantInt(&bit)))
      return std::nullopt;
    return !bit.isZero();
  };
  Value lhs = negation->getOperand(0), rhs = negation->getOperand(1);
  if (constantBit(lhs) && !constantBit(rhs))
    std::swap(lhs, rhs);
  std::optional<bool> bit = constantBit(rhs);
  if (!bit || !lhs.getDefiningOp() || lhs.getDefiningOp()->getBlock() != &before)
    return {};
  bool negates = false;
  if (isa<arith::XOrIOp>(negation))
    negates = *bit;
  else if (auto cmp = dyn_cast<arith::CmpIOp>(negation))
    negates = (cmp.getPredicate() == arith::CmpIPredicate::eq && !*bit) ||
              (cmp.getPredicate() == arith::CmpIPredicate::ne && *bit);
  return negates ? lhs : Value();
}
bool checksync::isIfOp(Operation *op) { return isa<scf::IfOp>(op); }
Value checksync::ifCondition(Operation *op) {
  auto ifOp = dyn_cast<scf::IfOp>(op);
  return ifOp ? ifOp.getCondition() : Value();
}
bool checksync::isExecuteRegion(Operation *op) {
  return isa<scf::ExecuteRegionOp>(op);
}
bool checksync::isIndexSwitch(Operation *op) {
  return isa<scf::IndexSwitchOp>(op);
}

bool checksync::isBulkCopy(Operation *op) {
  return isa<NVVM::CpAsyncBulkCommitGroupOp, NVVM::CpAsyncBulkSharedCTAToGlobalOp,
             NVVM::CpAsyncBulkPrefetchOp, NVVM::CpAsyncBulkGlobalToSharedClusterOp,
             NVVM::CpAsyncBulkSharedCTAToSharedClusterOp,
             NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp,
             NVVM::CpAsyncBulkTensorPrefetchOp, NVVM::CpAsyncBulkTensorReduceOp,
             NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp,
             NVVM::CpAsyncBulkWaitGroupOp>(op);
}

Value checksync::bulkStoreSource(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(op))
    return copy.getSrcMem();
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkSharedCTAToGlobalOp>(op))
    return copy.getSrcMem();
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorReduceOp>(op))
    return copy.getSrcMem();
  return {};
}

Value checksync::bulkStoreSize(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkSharedCTAToGlobalOp>(op))
    return copy.getSize();
  return {};
}

bool checksync::isOrderedMemoryAccess(Operation *op) {
  if (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(op))
    return true;
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return load.getVolatile_() ||
           load.getOrdering() != LLVM::AtomicOrdering::not_atomic;
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return store.getVolatile_() ||
           store.getOrdering() != LLVM::AtomicOrdering::not_atomic;
  return false;
}

bool checksync::isBulkCommitGroup(Operation *op) {
  return isa<NVVM::CpAsyncBulkCommitGroupOp>(op);
}

std::optional<BulkWait> checksync::bulkWaitGroup(Operation *op) {
  auto wait = dyn_cast<NVVM::CpAsyncBulkWaitGroupOp>(op);
  if (!wait)
    return std::nullopt;
  return BulkWait{int64_t(wait.getGroup()), bool(wait.getRead())};
}

MemoryWrite checksync::memoryWriteOf(Operation *op) {
  if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
    Type type = store.getValue().getType();
    int64_t bytes = type.isIntOrFloat() && type.getIntOrFloatBitWidth() >= 8
                        ? type.getIntOrFloatBitWidth() / 8
                        : 1;
    return {store.getAddr(), bytes};
  }
  if (auto st = dyn_cast<NVVM::StMatrixOp>(op))
    return {st.getPtr(), 1};
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return {copy.getDstMem(), 16};
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return {copy.getDstMem(), 16};
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkSharedCTAToSharedClusterOp>(op))
    return {copy.getDstMem(), 16};
  return {};
}

/// The bytes of an integer or float type of whole bytes, or of an array
/// of such; none for another type.
static std::optional<int64_t> byteSizeOf(Type type) {
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    std::optional<int64_t> elem = byteSizeOf(array.getElementType());
    if (!elem)
      return std::nullopt;
    return *elem * int64_t(array.getNumElements());
  }
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return type.getIntOrFloatBitWidth() / 8;
}

std::optional<Address> checksync::decomposeAddress(Value ptr) {
  Address address;
  for (unsigned depth = 0; depth < 64; ++depth) {
    Operation *def = ptr.getDefiningOp();
    if (auto addr = dyn_cast_or_null<LLVM::AddressOfOp>(def)) {
      address.symbol = addr.getGlobalNameAttr();
      return address;
    }
    if (auto cast = dyn_cast_or_null<LLVM::AddrSpaceCastOp>(def)) {
      ptr = cast.getArg();
      continue;
    }
    auto gep = dyn_cast_or_null<LLVM::GEPOp>(def);
    if (!gep) {
      address.base = ptr;
      return address;
    }
    // The first index steps over whole elements, each further one into an
    // array element (`gep %g[0, %i] : !llvm.array<N x T>`).
    Type type = gep.getElemType();
    bool first = true;
    for (auto index : gep.getIndices()) {
      if (!first) {
        auto array = dyn_cast<LLVM::LLVMArrayType>(type);
        if (!array)
          return std::nullopt;
        type = array.getElementType();
      }
      first = false;
      std::optional<int64_t> scale = byteSizeOf(type);
      if (!scale)
        return std::nullopt;
      if (auto attr = dyn_cast<IntegerAttr>(index))
        address.constant += attr.getInt() * *scale;
      else
        address.scaled.push_back({cast<Value>(index), *scale});
    }
    if (first)
      return std::nullopt;
    ptr = gep.getBase();
  }
  return std::nullopt;
}

std::optional<BulkLoad> checksync::bulkLoadOf(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return BulkLoad{copy.getMbar(), copy.getSize(), copy.getMulticastMask()};
  return std::nullopt;
}

bool checksync::isLocalSharedStore(Operation *op) {
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(store.getAddr().getType()))
      return ptr.getAddressSpace() ==
             static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
  return false;
}

namespace {
/// The address operand of an llvm.load, llvm.store or atomic
/// read-modify-write (llvm.atomicrmw, llvm.cmpxchg: CUDA's atomicAdd /
/// atomicCAS), and whether it writes.
std::optional<std::pair<Value, bool>> accessedAddress(Operation *op) {
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return std::make_pair(store.getAddr(), true);
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return std::make_pair(load.getAddr(), false);
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    return std::make_pair(rmw.getPtr(), true);
  if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    return std::make_pair(cas.getPtr(), true);
  return std::nullopt;
}

unsigned addressSpaceOf(Value ptr) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
  return type ? type.getAddressSpace() : ~0u;
}
} // namespace

bool checksync::isRemoteMemoryAccess(Operation *op) {
  auto access = accessedAddress(op);
  return access && addressSpaceOf(access->first) ==
                       static_cast<unsigned>(
                           NVVM::NVVMMemorySpace::SharedCluster);
}

std::optional<ClusterAccess> checksync::clusterAccessOf(Operation *op) {
  auto access = accessedAddress(op);
  if (!access || addressSpaceOf(access->first) !=
                     static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster))
    return std::nullopt;
  Value ptr = access->first;
  for (unsigned depth = 0; depth < 64; ++depth) {
    Operation *def = ptr.getDefiningOp();
    if (auto mapa = dyn_cast_or_null<NVVM::MapaOp>(def))
      return ClusterAccess{mapa.getB(), mapa.getA(), access->second};
    if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(def))
      ptr = gep.getBase();
    else if (auto cast = dyn_cast_or_null<LLVM::AddrSpaceCastOp>(def))
      ptr = cast.getArg();
    else
      return std::nullopt;
  }
  return std::nullopt;
}

bool checksync::isLocalSharedLoad(Operation *op) {
  auto access = accessedAddress(op);
  return access && !access->second &&
         addressSpaceOf(access->first) ==
             static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
}

Attribute checksync::allocationOf(Value ptr) {
  for (unsigned depth = 0; ptr && depth < 64; ++depth) {
    Operation *def = ptr.getDefiningOp();
    if (auto addr = dyn_cast_or_null<LLVM::AddressOfOp>(def))
      return addr.getGlobalNameAttr();
    if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(def))
      ptr = gep.getBase();
    else if (auto cast = dyn_cast_or_null<LLVM::AddrSpaceCastOp>(def))
      ptr = cast.getArg();
    else if (auto mapa = dyn_cast_or_null<NVVM::MapaOp>(def))
      ptr = mapa.getA();
    else
      return {};
  }
  return {};
}

bool checksync::isWgmmaMma(Operation *op) {
  return isa<NVVM::WgmmaMmaAsyncOp>(op);
}

bool checksync::isWgmmaCommitGroup(Operation *op) {
  return isa<NVVM::WgmmaGroupSyncAlignedOp>(op);
}

std::optional<int64_t> checksync::wgmmaWaitGroup(Operation *op) {
  if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op))
    return static_cast<int64_t>(wait.getGroup());
  return std::nullopt;
}

bool checksync::isGridCtaId(Operation *op) {
  SpecialReg reg = specialRegisterOf(op);
  return reg == SpecialReg::CtaIdX || reg == SpecialReg::CtaIdY ||
         reg == SpecialReg::CtaIdZ || isa<gpu::BlockIdOp>(op);
}

std::optional<int64_t> checksync::declaredGridX(Operation *fn) {
  auto func = dyn_cast<gpu::GPUFuncOp>(fn);
  std::optional<ArrayRef<int32_t>> grid =
      func ? func.getKnownGridSize() : std::nullopt;
  if (!grid || grid->empty() || (*grid)[0] < 1)
    return std::nullopt;
  return (*grid)[0];
}

bool checksync::uniformInCTA(Value v, unsigned *work) {
  if (++*work > 64)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<FunctionOpInterface>(owner))
      return true;
    if (isForLoop(owner) &&
        arg.getArgNumber() == 0 && owner->getNumOperands() >= 3)
      return llvm::all_of(owner->getOperands().take_front(3),
                          [&](Value b) { return uniformInCTA(b, work); });
    return false;
  }
  Operation *def = v.getDefiningOp();
  switch (pointSourceOf(def)) {
  case PointSource::Launch:
  case PointSource::CTA:
    return true;
  case PointSource::Thread:
    return false;
  case PointSource::None:
    break;
  }
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value operand) { return uniformInCTA(operand, work); });
}

bool checksync::isIntegerCast(Operation *op) {
  return isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp,
                         arith::ExtUIOp, arith::ExtSIOp, arith::TruncIOp>(op);
}

bool checksync::isIntegerAdd(Operation *op) {
  return isa_and_nonnull<arith::AddIOp>(op);
}

std::optional<CpAsyncCopy> checksync::cpAsyncCopyOf(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncOp>(op))
    return CpAsyncCopy{copy.getDst(), int64_t(copy.getSize())};
  return std::nullopt;
}

bool checksync::isCpAsyncCommitGroup(Operation *op) {
  return isa<NVVM::CpAsyncCommitGroupOp>(op);
}

std::optional<int64_t> checksync::cpAsyncWaitGroup(Operation *op) {
  if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op))
    return int64_t(wait.getN());
  return std::nullopt;
}

std::optional<CpAsyncArrive> checksync::cpAsyncMBarrierArriveOf(Operation *op) {
  if (auto arrive = dyn_cast<NVVM::CpAsyncMBarrierArriveOp>(op))
    return CpAsyncArrive{arrive.getAddr(), arrive.getNoinc()};
  return std::nullopt;
}

bool checksync::isCpAsyncArriveOn(Operation *op, Value address) {
  std::optional<CpAsyncArrive> arrive = cpAsyncMBarrierArriveOf(op);
  return arrive && arrive->barrier == address;
}

/// The bytes of a loaded value: an integer, float or vector of them.
static int64_t bytesOfType(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * bytesOfType(vector.getElementType());
  if (type.isIntOrFloat() && type.getIntOrFloatBitWidth() >= 8)
    return type.getIntOrFloatBitWidth() / 8;
  return 1;
}

SharedRead checksync::sharedReadOf(Operation *op) {
  auto shared = [](Value ptr) {
    auto type = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
    return type && type.getAddressSpace() ==
                       static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
  };
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    if (shared(load.getAddr()))
      return {load.getAddr(), bytesOfType(load.getResult().getType())};
  if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op))
    if (shared(ld.getPtr())) {
      int64_t rows = 8 * int64_t(ld.getNum());
      return {ld.getPtr(), 16,
              rows >= 32 ? ~uint32_t(0) : (uint32_t(1) << rows) - 1};
    }
  return {};
}

bool checksync::isIntegerMul(Operation *op) {
  return isa_and_nonnull<arith::MulIOp>(op);
}

bool checksync::isIntegerRem(Operation *op, bool *isSigned) {
  bool rems = isa_and_nonnull<arith::RemSIOp>(op);
  if (isSigned)
    *isSigned = rems;
  return rems || isa_and_nonnull<arith::RemUIOp>(op);
}

bool checksync::isZeroExtend(Operation *op) {
  return isa_and_nonnull<arith::ExtUIOp>(op);
}

bool checksync::isIntegerTrunc(Operation *op) {
  return isa_and_nonnull<arith::TruncIOp>(op);
}
