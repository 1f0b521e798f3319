//===- mbarrier-opt.cpp - MlirOptMain with the mbarrier dialect -----------===//
#include "mbarrier/Pipelines/Pipelines.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::mbarrier::MBarrierDialect>();
  mlir::registerAllPasses();
  mlir::mbarrier::registerAllMBarrierPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mbarrier-opt: MLIR optimizer driver with the mbarrier dialect\n",
      registry));
}
