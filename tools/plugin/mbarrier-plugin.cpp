//===- mbarrier-plugin.cpp - dialect and pass plugin for mlir-opt ---------===//
//
//   mlir-opt --load-dialect-plugin=libMBarrierPlugin.so \
//            --load-pass-plugin=libMBarrierPlugin.so ...
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Pipelines/Pipelines.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT
    DialectPluginLibraryInfo
    mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MBarrier", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<mbarrier::MBarrierDialect>();
            mbarrier::registerAllMBarrierPasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT
    PassPluginLibraryInfo
    mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MBarrierPasses", LLVM_VERSION_STRING,
          []() { mbarrier::registerAllMBarrierPasses(); }};
}
