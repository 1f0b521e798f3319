/*===- mbarrier-c/Dialect.h - C API of the mbarrier dialect --------*- C -*-===*/
#ifndef MBARRIER_C_DIALECT_H
#define MBARRIER_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(MBarrier, mbarrier);

/* !mbarrier.group<N> */
MLIR_CAPI_EXPORTED bool mlirTypeIsAMBarrierGroupType(MlirType type);
MLIR_CAPI_EXPORTED MlirType mlirMBarrierGroupTypeGet(MlirContext ctx,
                                                     unsigned depth);
MLIR_CAPI_EXPORTED unsigned mlirMBarrierGroupTypeGetDepth(MlirType type);
MLIR_CAPI_EXPORTED MlirTypeID mlirMBarrierGroupTypeGetTypeID(void);

/* !mbarrier.remote<N> */
MLIR_CAPI_EXPORTED bool mlirTypeIsAMBarrierRemoteType(MlirType type);
MLIR_CAPI_EXPORTED MlirType mlirMBarrierRemoteTypeGet(MlirContext ctx,
                                                      unsigned depth);
MLIR_CAPI_EXPORTED unsigned mlirMBarrierRemoteTypeGetDepth(MlirType type);
MLIR_CAPI_EXPORTED MlirTypeID mlirMBarrierRemoteTypeGetTypeID(void);

/* Registers convert-mbarrier-to-nvvm and the mbarrier-to-ptx pipeline with
 * the global pass registry (so PassManager.parse finds them). */
MLIR_CAPI_EXPORTED void mlirMBarrierRegisterPasses(void);

/* What the NVPTX backend of this process knows (asked of the backend). */
/* The number of chips (sm_* processors), and the name of chip `i`. */
MLIR_CAPI_EXPORTED intptr_t mlirMBarrierGetNumNVPTXChips(void);
MLIR_CAPI_EXPORTED MlirStringRef mlirMBarrierGetNVPTXChip(intptr_t i);
/* The PTX ISA versions (x10) the backend has a +ptxNN feature for. */
MLIR_CAPI_EXPORTED intptr_t mlirMBarrierGetNumNVPTXPTXVersions(void);
MLIR_CAPI_EXPORTED unsigned mlirMBarrierGetNVPTXPTXVersion(intptr_t i);
/* The PTX ISA version (x10) the backend emits for `chip` with no +ptxNN
 * feature (its minimum); 0 for a chip the backend does not know. */
MLIR_CAPI_EXPORTED unsigned mlirMBarrierGetNVPTXMinPTXVersion(MlirStringRef chip);

/// Whether `attr` is an `#nvvm.target`.
MLIR_CAPI_EXPORTED bool mlirMBarrierAttributeIsANVVMTarget(MlirAttribute attr);
/// The chip of an `#nvvm.target` (see mlirMBarrierAttributeIsANVVMTarget).
MLIR_CAPI_EXPORTED MlirStringRef mlirMBarrierNVVMTargetGetChip(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif /* MBARRIER_C_DIALECT_H */
