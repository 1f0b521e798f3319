//===- CAPI.cpp - C API of the mbarrier dialect ---------------------------===//
#include "mbarrier-c/Dialect.h"
#include "mbarrier/Target/NVPTX/NVPTXTargets.h"
#include "mbarrier/Pipelines/Pipelines.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::mbarrier;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(MBarrier, mbarrier, MBarrierDialect)

#define MBARRIER_DEFINE_CAPI_TYPE(Name)                                        \
  bool mlirTypeIsAMBarrier##Name##Type(MlirType type) {                        \
    return isa<Name##Type>(unwrap(type));                                      \
  }                                                                            \
  MlirType mlirMBarrier##Name##TypeGet(MlirContext ctx, unsigned depth) {      \
    return wrap(Name##Type::getChecked(                                       \
        mlir::detail::getDefaultDiagnosticEmitFn(unwrap(ctx)), unwrap(ctx),     \
        depth));                          \
  }                                                                            \
  unsigned mlirMBarrier##Name##TypeGetDepth(MlirType type) {                   \
    return cast<Name##Type>(unwrap(type)).getDepth();                          \
  }                                                                            \
  MlirTypeID mlirMBarrier##Name##TypeGetTypeID(void) {                         \
    return wrap(Name##Type::getTypeID());                                      \
  }

MBARRIER_DEFINE_CAPI_TYPE(Group)
MBARRIER_DEFINE_CAPI_TYPE(Remote)

void mlirMBarrierRegisterPasses(void) { registerAllMBarrierPasses(); }

intptr_t mlirMBarrierGetNumNVPTXChips(void) { return getNVPTXChips().size(); }

MlirStringRef mlirMBarrierGetNVPTXChip(intptr_t i) {
  return wrap(StringRef(getNVPTXChips()[i]));
}

intptr_t mlirMBarrierGetNumNVPTXPTXVersions(void) {
  return getNVPTXPTXVersions().size();
}

unsigned mlirMBarrierGetNVPTXPTXVersion(intptr_t i) {
  return getNVPTXPTXVersions()[i];
}

unsigned mlirMBarrierGetNVPTXMinPTXVersion(MlirStringRef chip) {
  return getNVPTXMinPTXVersion(unwrap(chip)).value_or(0);
}

bool mlirMBarrierAttributeIsANVVMTarget(MlirAttribute attr) {
  return getNVVMTargetChip(unwrap(attr)).has_value();
}

MlirStringRef mlirMBarrierNVVMTargetGetChip(MlirAttribute attr) {
  return wrap(getNVVMTargetChip(unwrap(attr)).value_or(StringRef()));
}
